import Compositor
import Foundation
import XCTest

@testable import Media

/// Inputs a reader cannot read: one error naming the file, of kind `.unreadable` where the file
/// is at fault, and every FFmpeg object released.
final class ReaderFailureTests: MediaTestCase {
    /// Opening `path` fails with exactly `message` after the path, of kind `kind`.
    func assertOpenFails(_ path: String, _ message: String, _ kind: MediaError.Kind, line: UInt = #line) {
        let e = mediaError({ _ = try MovieReader(path: path) }, line: line)
        XCTAssertEqual(e?.description, "\(path): \(message)", line: line)
        XCTAssertEqual(e?.kind, kind, line: line)
    }

    func testNotAMovie() {
        assertOpenFails(fixture("notmovie.mp4"), "not a movie FFmpeg can read (Invalid data found when processing input)", .unreadable)
    }

    func testNotAMovieOfAnotherMaker() throws {
        // Independent of the fixtures: random bytes under a movie's name.
        let p = path("random.mov")
        var g = SystemRandomNumberGenerator()
        try Data((0..<5000).map { _ in UInt8.random(in: 0...255, using: &g) }).write(to: URL(fileURLWithPath: p))
        XCTAssertEqual(mediaError { _ = try MovieReader(path: p) }?.kind, .unreadable)
    }

    func testAMissingFile() {
        assertOpenFails(path("missing.mp4"), "No such file or directory (avformat_open_input)", .unreadable)
    }

    func testNoVideoStream() {
        assertOpenFails(fixture("audioonly.m4a"), "no video stream", .failed)
    }

    func testNoVideoStreamOfAnotherMaker() throws {
        let p = path("tone.mka")
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=300:duration=0.5", "-c:a", "flac", p])
        XCTAssertEqual(mediaError { _ = try MovieReader(path: p) }?.description, "\(p): no video stream")
    }

    func testATruncatedInputIsNamedWhenItsEndIsReached() {
        let e = mediaError { try self.readAll(fixture("truncated.mp4")) }
        XCTAssertEqual(e?.description, "\(fixture("truncated.mp4")): truncated file: its index lists 90 video frames, only 55 could be read")
        XCTAssertEqual(e?.kind, .unreadable)
    }

    func testATruncatedInputOfAnotherMaker() throws {
        // Written by Lockstep's own writer, index first, cut at 60%.
        let whole = path("whole.mp4"), cut = path("cut.mp4")
        try writeMovie(whole, frames: 30)
        try ffmpeg(["-i", whole, "-c", "copy", "-movflags", "+faststart", path("fast.mp4")])
        let data = try Data(contentsOf: URL(fileURLWithPath: path("fast.mp4")))
        try data.prefix(data.count * 6 / 10).write(to: URL(fileURLWithPath: cut))
        XCTAssertEqual(mediaError { try self.readAll(cut) }?.kind, .unreadable)
    }

    /// Many failed opens: every context and descriptor is released.
    func testFailedOpensReleaseEverything() throws {
        let before = openDescriptors(), frames = Frame.live
        for _ in 0..<40 {
            _ = mediaError { _ = try MovieReader(path: fixture("notmovie.mp4")) }
            _ = mediaError { _ = try MovieReader(path: fixture("audioonly.m4a")) }
            _ = mediaError { _ = try MovieReader(path: path("missing.mp4")) }
        }
        for _ in 0..<5 { _ = mediaError { try self.readAll(fixture("truncated.mp4")) } }
        assertNoDescriptorLeak(since: before)
        XCTAssertEqual(Frame.live, frames)
    }

    func testProbeClassesUnreadableFiles() {
        XCTAssertEqual(mediaError { _ = try MovieProbe.probe(fixture("notmovie.mp4")) }?.kind, .unreadable)
        XCTAssertEqual(mediaError { _ = try MovieProbe.probe(path("missing.mp4")) }?.kind, .unreadable)
        XCTAssertEqual(mediaError { _ = try MovieProbe.probe(fixture("audioonly.m4a")) }?.kind, .failed)
    }
}
