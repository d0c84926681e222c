import Compositor
import Foundation
import TestSupport
import Verify
import XCTest

@testable import Lockstep

/// `composite --sync audio` (issue 24): two cameras that started at different moments, each
/// input placed on the first one's clock by its sound before the job. The clips are cut by the
/// ffmpeg CLI from the shared GoPro file karma.mp4 (real picture, real sound), so where each lies
/// on the other's clock is known from the cut, not from Lockstep.
final class SoundSyncTests: ScratchTestCase {
    /// karma.mp4 (29.97 fps) from `start` for `seconds`, re-encoded: frame 0 of the cut is the
    /// source's frame at `start` (a frame boundary), its sound starts there too. The picture is
    /// scaled to 320x180 (the placement is by the sound and checked by the frames' provenance:
    /// neither depends on the picture's size, which made encoding the cuts and the output the
    /// test's largest cost).
    func cut(_ name: String, from source: String, start: String, seconds: String) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        _ = try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-i", source, "-ss", start, "-t", seconds, "-map", "0:v:0", "-map", "0:a:0",
                "-vf", "scale=320:180", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "128k", path
            ])
        return path
    }

    /// B starts 90 frames (3.003 s) into A: every output frame shows B's frame k - 90 beside A's
    /// frame k, the offset announced within 1 ms, verify clean.
    func testTwoCutsOfOneGoProClipArePutBackOnTheirFrames() throws {
        let karma = Repository.shared("karma.mp4")
        XCTAssertTrue(FileManager.default.fileExists(atPath: karma), "karma.mp4 is not at \(karma)")
        let a = try cut("a.mp4", from: karma, start: "0", seconds: "8")
        let b = try cut("b.mp4", from: karma, start: "3.003", seconds: "7")
        let (out, result) = try compose(.quad, [a, b]) { $0.clocksFromSound = true }
        let line = try XCTUnwrap(result.notices.first { $0.hasPrefix("input 2 (b.mp4): placed by its sound ") }, "\(result.notices)")
        let seconds = try XCTUnwrap(Double(line.dropFirst("input 2 (b.mp4): placed by its sound ".count).prefix { $0 != " " }), line)
        XCTAssertEqual(seconds, 3.003, accuracy: 0.001, line)
        let frames = try VerifyJob.scan(out.path).frames
        // From B's start (A's frame 90) to A's end (8 s = frame 239).
        XCTAssertEqual(result.frames, 240 - 90, "\(result.frames) frames")
        let pairs = frames.compactMap { $0.provenance?.src }.map { ($0[0][0], $0[1][0]) }
        XCTAssertEqual(pairs.count, frames.count)
        XCTAssertEqual(pairs.first?.0, 90)
        XCTAssertEqual(pairs.first?.1, 0)
        XCTAssertEqual(pairs.filter { $0.0 - $0.1 != 90 }.count, 0, "pairs off the 90-frame shift: \(pairs.filter { $0.0 - $0.1 != 90 }.prefix(5))")
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [])
    }

    /// Sound from another event (the HERO7 clip's): the job stops with align's sentence naming
    /// the input, and writes nothing.
    func testAnotherEventsSoundStopsTheJobAndWritesNothing() throws {
        let a = try cut("a.mp4", from: Repository.shared("karma.mp4"), start: "0", seconds: "6")
        let other = try cut("other.mp4", from: Repository.shared("gopro-hero7/hero7.mp4"), start: "0", seconds: "6")
        let out = scratch.appendingPathComponent("o.mp4")
        XCTAssertThrowsError(
            try CompositeJob(
                options: {
                    var o = CompositeOptions(inputs: [a, other], output: out.path, blend: .quad)
                    o.clocksFromSound = true
                    return o
                }()
            ).run()
        ) { error in
            XCTAssertTrue("\(error)".contains("other.mp4"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        XCTAssertEqual(try leftovers().sorted(), ["a.mp4", "other.mp4"])
    }
}
