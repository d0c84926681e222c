import CFFmpeg
import Compositor
import Foundation
import XCTest

@testable import Media

/// Where a writer cannot write: each is one error naming the path, never a crash (before: the
/// AVFormatContext was freed in `init`'s catch and again in deinit, SIGSEGV).
final class WriterFailureTests: MediaTestCase {
    func makeWriter(_ path: String) throws -> MovieWriter {
        try MovieWriter(
            path: path, container: "mp4", canvas: Size(width: 64, height: 48), frameRate: Rational(30, 1),
            settings: EncodeSettings(), withAudio: true)
    }

    func testAMissingFolderIsAnErrorNamingThePath() {
        let p = path("no-such-folder/out.mp4")
        let e = mediaError { _ = try makeWriter(p) }
        XCTAssertEqual(e?.description, "\(p): No such file or directory (avio_open)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: p))
    }

    func testAPathUnderARegularFileIsAnError() throws {
        // chmod does not stop root; a file used as a folder stops everyone.
        let file = path("plain")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let p = file + "/out.mp4"
        XCTAssertEqual(mediaError { _ = try makeWriter(p) }?.description, "\(p): Not a directory (avio_open)")
    }

    func testANameOfThreeHundredCharactersIsAnError() {
        let p = path(String(repeating: "n", count: 300) + ".mp4")
        XCTAssertEqual(mediaError { _ = try makeWriter(p) }?.description, "\(p): File name too long (avio_open)")
    }

    func testAPlaceInProcIsAnError() {
        let p = "/proc/lockstep-\(getpid())/out.mp4"
        XCTAssertNotNil(mediaError { _ = try makeWriter(p) })
    }

    func testAnOddOrEmptyCanvasIsRefusedBeforeAnythingIsCreated() {
        let p = path("odd.mp4")
        let e = mediaError {
            _ = try MovieWriter(
                path: p, container: "mp4", canvas: Size(width: 0, height: 48), frameRate: Rational(30, 1),
                settings: EncodeSettings(), withAudio: false)
        }
        XCTAssertEqual(e?.description, "\(p): cannot encode a 0x48 picture: 4:2:0 pictures need even sizes of at least 2x2")
        XCTAssertFalse(FileManager.default.fileExists(atPath: p))
    }

    /// Many failed writers in a row: each releases what it made (no descriptor, no frame kept).
    func testFailedWritersReleaseEverything() throws {
        let before = openDescriptors(), frames = Frame.live
        for i in 0..<40 {
            _ = mediaError { _ = try makeWriter(path("missing/\(i).mp4")) }
            _ = mediaError { _ = try makeWriter(path(String(repeating: "n", count: 300))) }
        }
        assertNoDescriptorLeak(since: before)
        XCTAssertEqual(Frame.live, frames)
    }

    /// A full disk: `finish()` must fail (a failed last flush renamed into place as a success
    /// would be a broken movie under the user's name).
    func testAFullDiskMakesFinishFail() throws {
        let frame = try Frame(width: 64, height: 48)
        var failed = false
        do {
            // Without audio the header stays in the buffer: the failure comes at the end.
            let writer = try MovieWriter(
                path: "/dev/full", container: "mp4", canvas: Size(width: 64, height: 48),
                frameRate: Rational(30, 1), settings: EncodeSettings(), withAudio: false)
            for k in 0..<60 {
                try frame.makeWritable()
                frame.withImage { image in
                    for y in 0..<image.height { for x in 0..<image.width { image.y[x, y] = UInt8((x * 31 + y * 17 + k * 13) & 255) } }
                }
                try writer.writeVideo(frame, index: Int64(k))
            }
            try writer.finish()
        } catch let e as MediaError {
            failed = true
            XCTAssertEqual(e.path, "/dev/full")
            XCTAssertTrue(e.message.contains("No space left on device"), e.description)
        }
        XCTAssertTrue(failed, "writing to /dev/full succeeded")
    }

    /// The close itself is checked: bytes that cannot be flushed make `close()` throw.
    func testCloseReportsAFailedFlush() throws {
        let output = try OutputFormat(path: "/dev/full", container: "mp4")
        let bytes = [UInt8](repeating: 7, count: 1000)
        avio_write(output.context.pointee.pb, bytes, Int32(bytes.count))  // buffered, not yet written
        XCTAssertThrowsError(try output.close()) { error in
            XCTAssertEqual("\(error)", "/dev/full: No space left on device (avio_flush)")
        }
        XCTAssertNoThrow(try output.close(), "closing twice is harmless")
    }

    func testAWrittenFileCloses() throws {
        let p = path("ok.mp4")
        try writeMovie(p, frames: 5)
        let reader = try MovieReader(path: p)
        XCTAssertEqual(reader.video.indexedFrames, 5)
    }

    func testWritingAfterFinishIsAnErrorNotACrash() throws {
        let p = path("done.mp4")
        let writer = try makeWriter(p)
        try writer.finish()
        let frame = try Frame(width: 64, height: 48)
        XCTAssertEqual(
            mediaError { try writer.writeVideo(frame, index: 0) }?.description,
            "\(p): a frame was written after the file was closed")
    }
}

func openDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// A leak shows as more descriptors than before: each loop that calls this opens and fails
/// dozens of times, so one kept descriptor per try is dozens more. Fewer is fine: a previous
/// test's child process (ffmpeg through Foundation's Process) may close its pipes meanwhile,
/// which made an exact comparison fail once in CI (54, not 57).
func assertNoDescriptorLeak(since before: Int, file: StaticString = #filePath, line: UInt = #line) {
    let now = openDescriptors()
    XCTAssertGreaterThan(before, 0, "/proc/self/fd could not be read", file: file, line: line)
    XCTAssertLessThanOrEqual(now, before, "descriptors grew from \(before) to \(now)", file: file, line: line)
}
