import Foundation
import TestSupport
import XCTest

/// `stabilise --from/--to` and `--frames A:B` on a real GoPro (karma.mp4, GPMF gyro; calibrate runs inside): each
/// frame is warped with the gyro of its own source time and the path is smoothed over the whole
/// clip, so the cut's frames are the uncut output's frames over its span. Outside checks:
/// ffmpeg's decode of both movies (luma PSNR per frame), ffprobe's frame count and duration, and
/// `lockstep verify` on the cut.
/// Both runs at --size 428x240, half of karma's 854x480: the claim is which warp each frame
/// gets, not the size it is drawn at (the decode, the gyro and calibrate's answer are the
/// same), and each run costs about 40% less (9.3 -> 5.4 CPU-s for the whole clip).
final class StabiliseCutTests: ScratchFolderTestCase {
    let karma = Repository.shared("karma.mp4")
    let width = 428, height = 240

    func lumaFrames(_ movie: String) throws -> [[UInt8]] {
        let raw = try Processes.check("ffmpeg", ["-v", "error", "-i", movie, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        let size = width * height
        XCTAssertEqual(raw.count % size, 0, movie)
        return stride(from: 0, to: raw.count, by: size).map { [UInt8](raw[$0..<min($0 + size, raw.count)]) }
    }

    func testACutIsTheUncutOutputOverItsSpan() throws {
        guard FileManager.default.fileExists(atPath: karma) else { return XCTFail("\(karma) is not beside the checkout") }
        let whole = scratch.appendingPathComponent("whole.mp4").path, cut = scratch.appendingPathComponent("cut.mp4").path
        let common = ["--crf", "0", "--preset", "ultrafast", "--quiet", "--size", "\(width)x\(height)"]
        var r = try Processes.lockstep(["stabilise", karma, "-o", whole] + common, timeout: 600)
        XCTAssertEqual(r.status, 0, r.stderr)
        r = try Processes.lockstep(["stabilise", karma, "--from", "4", "--to", "7", "-o", cut] + common, timeout: 600)
        XCTAssertEqual(r.status, 0, r.stderr)
        // At 30000/1001 fps the cut keeps output frames [floor(4 * fps), ceil(7 * fps)) = [119, 210).
        XCTAssertTrue(r.stdout.contains("wrote \(cut): 91 frames"), r.stdout)
        let probe = try Processes.check(
            "ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames:format=duration", "-of", "default=nw=1", cut])
        let text = String(decoding: probe, as: UTF8.self)
        XCTAssertTrue(text.contains("nb_read_frames=91"), text)
        let duration = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("duration=") }.flatMap { Double($0.dropFirst(9)) }, text)
        XCTAssertEqual(duration, 91 * 1001 / 30000.0, accuracy: 0.01, text)  // 3.036 s: the cut rounds out to whole frames
        let verified = try Processes.lockstep(["verify", cut])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)

        let a = try lumaFrames(whole), b = try lumaFrames(cut)
        XCTAssertEqual(a.count, 362)
        XCTAssertEqual(b.count, 91)
        guard a.count == 362, b.count == 91 else { return }
        var worst = Double.infinity
        for k in 0..<91 { worst = min(worst, PixelDifference.psnr(a[119 + k], b[k])) }
        // Both lossless (--crf 0): the same warps decode to the same luma (MSE 0, measured at
        // both sizes). A cut warped with the gyro of 0 s instead of its own time measured 33.6 dB
        // at worst at full size; one whose time origin is a single frame late (a scratch build,
        // `InputStabiliser.setOrigin` + 33.37 ms) 44.7 dB at full size and 49.3 dB at this
        // size: so the bar is 60 dB, which only a cut the same to rounding passes.
        XCTAssertGreaterThan(worst, 60, "the cut's frames are the uncut output's frames 119..209")

        // `--frames 119:210`, the same output frames by number: the same pictures, the gyro's
        // time origin still the input's first frame (not the segment's).
        let frames = scratch.appendingPathComponent("frames.mp4").path
        r = try Processes.lockstep(["stabilise", karma, "--frames", "119:210", "-o", frames] + common, timeout: 600)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("wrote \(frames): 91 frames"), r.stdout)
        let c = try lumaFrames(frames)
        XCTAssertEqual(c.count, 91)
        guard c.count == 91 else { return }
        var worstByNumber = Double.infinity
        for k in 0..<91 { worstByNumber = min(worstByNumber, PixelDifference.psnr(a[119 + k], c[k])) }
        XCTAssertGreaterThan(worstByNumber, 60, "--frames 119:210 gives the uncut output's frames 119..209")
        let verifiedFrames = try Processes.lockstep(["verify", frames])
        XCTAssertEqual(verifiedFrames.status, 0, verifiedFrames.stdout + verifiedFrames.stderr)
    }
}
