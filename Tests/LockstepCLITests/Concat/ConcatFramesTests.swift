import Foundation
import TestSupport
import XCTest

/// `concat --frames A:B`: output frames [A, B) of the whole join, as every other command that
/// makes frames takes it (issue 43: "--frames A:B stays"); concat offered only --from/--to.
/// Checked against the same cut by time on a clip whose frames say their number (NumberedClip,
/// made by the ffmpeg CLI), read back by ffmpeg's signalstats.
final class ConcatFramesTests: ScratchFolderTestCase {
    func testFramesAreTheCutByTimeByNumber() throws {
        let clip = scratch.appendingPathComponent("numbered.mp4").path
        try NumberedClip.make(clip, seconds: 4, size: "160x96", gop: 60, sound: "sine=frequency=440:sample_rate=48000")
        let byNumber = scratch.appendingPathComponent("frames.mp4").path, byTime = scratch.appendingPathComponent("time.mp4").path
        // 3.3 s to 5.3 s at 30 fps: frames [99, 159), across the join at frame 120.
        var r = try Processes.lockstep(["concat", clip, clip, "--frames", "99:159", "-o", byNumber, "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("wrote \(byNumber): 60 frames (21 + 39)"), r.stdout)
        r = try Processes.lockstep(["concat", clip, clip, "--from", "3.3", "--to", "5.3", "-o", byTime, "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("wrote \(byTime): 60 frames (21 + 39)"), r.stdout)
        let a = try NumberedClip.means(byNumber), b = try NumberedClip.means(byTime)
        XCTAssertEqual(a.count, 60)
        XCTAssertEqual(a, b)
        // The uncut join's frames 99...158 (the colour conversion moves luma with chroma, so
        // the join's own means are the reference, not the clip's numbers).
        let whole = scratch.appendingPathComponent("whole.mp4").path
        r = try Processes.lockstep(["concat", clip, clip, "-o", whole, "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let w = try NumberedClip.means(whole)
        XCTAssertEqual(w.count, 240)
        guard w.count == 240 else { return }
        for (i, m) in a.enumerated() {
            XCTAssertEqual(m[0], w[99 + i][0], accuracy: 0.5, "frame \(i): luma")  // a frame off: 2
            XCTAssertEqual(m[1], w[99 + i][1], accuracy: 0.5, "frame \(i): chroma")
        }
        let v = try Processes.lockstep(["verify", byNumber])
        XCTAssertEqual(v.status, 0, v.stdout)
    }

    func testBadFramesAreOneSentenceAndWriteNothing() throws {
        let clip = scratch.appendingPathComponent("numbered.mp4").path
        try NumberedClip.make(clip, seconds: 1, size: "64x36", gop: 30, sound: "sine=frequency=440:sample_rate=48000")
        let out = scratch.appendingPathComponent("o.mp4").path
        for (args, line) in [
            (["--frames", "10:20", "--from", "1"], "Error: --frames and --from/--to both choose the output's frames; give one."),
            (["--frames", "10:20", "--copy"], "Error: --copy cannot be combined with --frames: copied video is not re-encoded, so it cannot be cut inside a GOP."),
            (["--frames", "20:10"], "Error: --frames 20:10: B must be greater than A."),
            (["--frames", "50:70"], "Error: --frames 50:70: input 2 (\(clip)) ends the output after 60 frames; the range must lie within 0:60.")
        ] {
            let r = try Processes.lockstep(["concat", clip, clip, "-o", out, "--quiet"] + args)
            XCTAssertNotEqual(r.status, 0, "\(args)")
            XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), line, "\(args)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "\(args)")
        }
    }

    /// `--gop` and `--audio-codec` with composite's meaning (issue 43's last loose ends: concat
    /// refused them as clip names): a keyframe every G output frames across the join, FLAC into
    /// a .mkv; refused into an .mp4, and with --copy (the video is not re-encoded).
    func testGOPAndAudioCodec() throws {
        let q0 = Repository.fixture("q0.mp4"), q1 = Repository.fixture("q1.mp4")  // 75 + 66 frames
        let mkv = scratch.appendingPathComponent("o.mkv").path, mp4 = scratch.appendingPathComponent("o.mp4").path
        let r = try Processes.lockstep(["concat", q0, q1, "--gop", "20", "--audio-codec", "flac", "-o", mkv, "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try ReverseCommandTests.keyframes(mkv), Array(stride(from: 0, to: 141, by: 20)))
        XCTAssertEqual(try ReverseCommandTests.audioCodec(mkv), "flac")
        for (args, line) in [
            (["--audio-codec", "flac"], "Error: --audio-codec flac needs a .mkv output (FFmpeg 5.1 writes FLAC into Matroska; into MP4 only as an experimental feature); got \(mp4)."),
            (["--gop", "10001"], "Error: --gop 10001: the GOP length must be between 1 and 10000 frames."),
            (["--gop", "30", "--copy"], "Error: --copy cannot be combined with --gop: copied video is not decoded or re-encoded.")
        ] {
            let bad = try Processes.lockstep(["concat", q0, q1, "-o", mp4, "--quiet"] + args)
            XCTAssertEqual(bad.status, 64, "\(args)")
            XCTAssertEqual(bad.stderr.split(separator: "\n").first.map(String.init), line, "\(args)")
        }
        XCTAssertEqual(try leftovers(), ["o.mkv"])
    }
}
