import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// Issue 40, finding 1: every `--hdr` output longer than about 25 frames corrupted the heap
/// (libx265 3.5 keeps a reused frame's SEI buffer at its first message's size; the provenance
/// record grows with the frame number). HEVC outputs now carry the record in an SEI put into
/// each packet after the encoder. This suite writes HEVC outputs of hundreds of frames, past a
/// GOP (250), and runs in the sanitizer tier under ASan (whose memcpy interceptor sees libx265's
/// copies too): before the fix the process aborted ("free(): invalid next size") or, under ASan,
/// stopped at the overflow.
final class LongHEVCOutputTests: ScratchTestCase {
    /// A clip of testsrc2 made by the ffmpeg CLI: `seconds` at 30 fps.
    func clip(_ name: String, size: String, seconds: Int, pattern: String = "testsrc2") throws -> String {
        let path = scratch.appendingPathComponent(name).path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "\(pattern)=s=\(size):r=30:d=\(seconds)",
                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path
            ])
        return path
    }

    /// The user-data SEI messages ffprobe finds, per frame (an outside reader of the stream).
    func userDataPerFrame(_ path: String) throws -> [Int] {
        let text = String(
            decoding: try Processes.check(
                "ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_frames", "-show_entries", "frame=pts:frame_side_data=side_data_type", "-of", "compact", path]),
            as: UTF8.self)
        var counts: [Int] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("frame|") { counts.append(0) }
            if line.contains("User Data Unregistered SEI") { counts[counts.count - 1] += 1 }
        }
        return counts
    }

    /// The fault grew with the frame number (the record's length), not with the picture: the
    /// inputs are 64x48 (a 78x38 canvas, where 160x120 inputs made 196x98) and two clips
    /// made by ffmpeg serve the five inputs under five names (each name is in every record).
    func testAFiveInputHDRGridOfThreeHundredFramesKeepsEveryFramesProvenance() throws {
        let made = try ["testsrc2", "smptebars"].map { try clip("\($0).mp4", size: "64x48", seconds: 10, pattern: $0) }
        let inputs = try (0..<5).map { i -> String in
            let path = scratch.appendingPathComponent("in\(i).mp4").path
            try FileManager.default.copyItem(atPath: made[i % 2], toPath: path)
            return path
        }
        let out = scratch.appendingPathComponent("grid.mp4").path
        let r = try Processes.lockstep(["composite", "--blend", "grid", "--hdr", "hlg", "--quiet", "-o", out] + inputs)
        XCTAssertEqual(r.status, 0, r.stderr)
        let verify = try Processes.lockstep(["verify", out])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertTrue(verify.stdout.hasPrefix("\(out): 300 frames"), verify.stdout)
        // One provenance message per frame, as ffprobe reads the stream; the first frame also
        // holds libx265's own (its version and settings).
        XCTAssertEqual(try userDataPerFrame(out), [2] + Array(repeating: 1, count: 299))
    }

    /// The shape of the sweep's case: one clip mixed with itself into HLG, in Matroska and MOV
    /// too (each muxer turns the Annex B packets into length-prefixed units). 60 frames, past
    /// the ~25 where the fault began (the 300-frame grid above goes past a GOP), at 96x64.
    func testAMixIntoHLGInEveryContainerVerifies() throws {
        let input = try clip("s.mp4", size: "96x64", seconds: 2)
        for name in ["t.mp4", "t.mkv", "t.mov"] {
            let out = scratch.appendingPathComponent(name).path
            let r = try Processes.lockstep(["composite", "--blend", "mix", "--hdr", "hlg", "--quiet", "-o", out, input, input])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            let verify = try Processes.lockstep(["verify", out])
            XCTAssertEqual(verify.status, 0, "\(name): " + verify.stdout + verify.stderr)
            XCTAssertTrue(verify.stdout.hasPrefix("\(out): 60 frames"), verify.stdout)
        }
    }
}
