import Foundation
import TestSupport
import XCTest

/// `filter --variants` with a cut seeks (the keyframe before the cut, then decoding forward to
/// the exact frame) instead of decoding everything before it. On a clip with one keyframe every
/// 10 s (made by the ffmpeg CLI, B-frames on) whose every frame is flat and says its number in
/// its luma (16 + 2 (n mod 100)) and chroma (16 + 8 floor(n / 100)), a cut must show the very
/// frames the whole pass shows at its ticks: a seek that lands on the wrong frame, or that
/// starts decoding after the keyframe, shifts or spoils them. The clip lasts 14 s (was 20): the
/// cut at 12.3-13.3 s lies after the second keyframe (10 s) either way, and the 6 s after it were
/// encoded, passed through whole and measured frame by frame for nothing. The flat frames are
/// drawn by geq at 32x18 and scaled up by pixel repetition: the same file byte for byte as geq
/// at 320x180 (checked with cmp), for a quarter of the CPU (geq evaluates its expressions per pixel).
final class VariantsSeekTests: ScratchFolderTestCase {
    func numberedClip() throws -> String {
        let path = scratch.appendingPathComponent("numbered.mp4").path
        try NumberedClip.make(path, seconds: 14, size: "320x180", gop: 300, sound: "sine=frequency=440")
        return path
    }

    func means(_ path: String) throws -> [[Double]] { try NumberedClip.means(path) }

    func testACutOnALongGOPShowsTheWholePassFramesAtItsTicks() throws {
        let clip = try numberedClip()
        // The source's keyframes: 0 and 300 (10 s) only, so a cut at 12.3 s starts decoding at 300.
        let keys = String(decoding: try Processes.check("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", clip]), as: UTF8.self)
        XCTAssertEqual(keys.split(separator: "\n").filter { $0.contains(",K") }.count, 2, keys)
        let whole = scratch.appendingPathComponent("whole").path, cut = scratch.appendingPathComponent("cut").path
        let a = try Processes.lockstep(["filter", clip, "--variants", "none", "-o", whole], timeout: 600)
        XCTAssertEqual(a.status, 0, a.stderr)
        let b = try Processes.lockstep(["filter", clip, "--variants", "none;mono", "--from", "12.3", "--to", "13.3", "-o", cut], timeout: 600)
        XCTAssertEqual(b.status, 0, b.stderr)
        let all = try means(whole + "/none.mp4"), part = try means(cut + "/none.mp4")
        XCTAssertEqual(all.count, 420)
        // Frames [369, 399): floor(12.3 x 30) to ceil(13.3 x 30).
        XCTAssertEqual(part.count, 30)
        for (i, m) in part.enumerated() where 369 + i < all.count {
            XCTAssertEqual(m[0], all[369 + i][0], accuracy: 0.5, "frame \(i) of the cut: luma")  // a frame off: 2
            XCTAssertEqual(m[1], all[369 + i][1], accuracy: 0.5, "frame \(i) of the cut: chroma")
        }
        // The whole pass's frames are the source's, one for one (each 2 luma steps from the last).
        for k in 1..<all.count where k % 100 != 0 { XCTAssertGreaterThan(all[k][0] - all[k - 1][0], 1, "frame \(k)") }
        for name in ["none.mp4", "mono.mp4"] {
            let v = try Processes.lockstep(["verify", cut + "/" + name], timeout: 300)
            XCTAssertEqual(v.status, 0, "\(name): \(v.stdout)")
        }
    }
}
