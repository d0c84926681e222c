import Compositor
import Foundation
import Media
import TestSupport
import XCTest

@testable import Lockstep

/// A variant that fails in the middle of the pass (a failure injected after 10 frames: no input
/// can be relied on to make one encoder fail and not the others) is fed nothing more: no
/// pictures, no audio kept for it; the other variants are written in full, its file is absent.
final class FilterVariantsFailureTests: ScratchTestCase {
    func testAVariantFailingMidwayIsFedNothingMoreAndTheOthersFinish() throws {
        // Made by the ffmpeg CLI: 4 s of moving bars at 24 fps with a tone.
        let input = scratch.appendingPathComponent("bars4.mp4").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=256x144:r=24:d=4",
                "-f", "lavfi", "-i", "sine=f=440:d=4", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                "-c:a", "aac", "-shortest", input
            ])
        let folder = scratch.appendingPathComponent("looks")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let specs = try ["rosy", "mono", "invert"].map { try FilterChainSpec(parsing: $0) }
        var options = FilterVariantsOptions(input: input, folder: folder.path, chains: specs)
        options.injectedFailure = (variant: 1, afterFrames: 10)
        let job = FilterVariantsJob(options: options)
        let result = try job.run()
        XCTAssertEqual(result.frames, 96)
        XCTAssertEqual(result.failed.map(\.chain), ["mono"])
        XCTAssertEqual(result.failed.first?.failure, "failed after 10 frames, as the test asked")
        // Only the two good files, no temporary left behind.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["invert.mp4", "rosy.mp4"])
        for name in ["rosy.mp4", "invert.mp4"] {
            let path = folder.appendingPathComponent(name).path
            XCTAssertEqual(try VerifyJob.scan(path).frames.count, 96, name)
            let duration = try Processes.check(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration",
                    "-of", "csv=p=0", path
                ])
            let seconds = Double(String(decoding: duration, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            XCTAssertEqual(seconds, 4, accuracy: 0.05, "\(name): the whole tone")
        }
        // The failed variant's audio copy holds nothing and stopped being fed when it failed;
        // a good one was given the whole input's audio.
        let copies = try XCTUnwrap(job.lane).audioCopies
        XCTAssertEqual(copies.count, 3)
        let failed = copies[1].fed, good = copies[0].fed
        print("variants audio: failed copy fed \(failed.total), holds \(failed.held); good copy fed \(good.total)")
        XCTAssertEqual(failed.held, 0)
        XCTAssertGreaterThan(good.total, Int64(3.9 * Double(AudioFormat.sampleRate)))
        XCTAssertLessThan(failed.total, good.total / 2, "fed \(failed.total) samples after failing at frame 10, of \(good.total)")
        XCTAssertEqual(copies[2].fed.total, good.total)
    }
}
