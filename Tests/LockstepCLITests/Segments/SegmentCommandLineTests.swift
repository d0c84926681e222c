import Foundation
import TestSupport
import XCTest

/// `--frames`, `--gop` and `--audio-codec` as a person types them: exit 64 with the exact
/// sentence for a malformed value, exit 1 naming the input for a range past the output's end.
final class SegmentCommandLineTests: ScratchFolderTestCase {
    func fixture(_ name: String) -> String { Repository.fixture(name) }

    func assertUsage(_ command: [String], says expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try Processes.lockstep(command)
        XCTAssertEqual(r.status, 64, r.stderr, file: file, line: line)
        XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), "Error: \(expected)", file: file, line: line)
        XCTAssertEqual(try leftovers(), [], file: file, line: line)
    }

    func testMalformedFramesExitWith64AndASentence() throws {
        let out = scratch.appendingPathComponent("seg.mkv").path
        let composite = ["composite", "--blend", "chromakey", "-o", out, fixture("l1.mp4"), fixture("bg.mp4")]
        try assertUsage(composite + ["--frames", "20:10"], says: "--frames 20:10: B must be greater than A.")
        try assertUsage(composite + ["--frames=-5:10"], says: "--frames -5:10: A must be 0 or more.")
        try assertUsage(composite + ["--frames", "start:end"], says: "--frames start:end: expected A:B, two whole numbers of output frames (A included, B excluded).")
        try assertUsage(["filter", "--filter", "invert", "--frames", "3:3", "-o", out, fixture("bg.mp4")], says: "--frames 3:3: B must be greater than A.")
        try assertUsage(composite + ["--gop", "0"], says: "--gop 0: the GOP length must be between 1 and 10000 frames.")
        let mp4 = scratch.appendingPathComponent("seg.mp4").path
        try assertUsage(
            ["composite", "--blend", "chromakey", "--audio-codec", "flac", "-o", mp4, fixture("l1.mp4"), fixture("bg.mp4")],
            says: "--audio-codec flac needs a .mkv output (FFmpeg 5.1 writes FLAC into Matroska; into MP4 only as an experimental feature); got \(mp4).")
    }

    func testFramesPastTheEndIsAOneLineError() throws {
        let out = scratch.appendingPathComponent("seg.mkv").path
        let r = try Processes.lockstep([
            "composite", "--blend", "chromakey", "--quiet", "--frames", "40:80", "--audio-codec", "flac",
            "-o", out, fixture("l1.mp4"), fixture("bg.mp4")
        ])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: --frames 40:80: input 1 (\(fixture("l1.mp4"))) ends the output after 60 frames; the range must lie within 0:60.\n")
        XCTAssertEqual(try leftovers(), [])
    }

    func testASegmentThroughTheCommandLine() throws {
        let out = scratch.appendingPathComponent("seg.mkv").path
        let r = try Processes.lockstep([
            "snake", fixture("synthetic/pan.mp4"), "--imu", fixture("synthetic/pan-imu.csv"), "--quiet", "--frames", "30:60", "--gop", "15",
            "--audio-codec", "flac", "-o", out
        ])
        guard r.status == 0 else { return XCTFail(r.stderr) }
        XCTAssertTrue(r.stdout.hasPrefix("wrote \(out): 30 frames"), r.stdout)
        let probe = String(decoding: try Processes.check("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", out]), as: UTF8.self)
        XCTAssertEqual(probe.split(whereSeparator: \.isNewline).first, "h264")
    }

    /// An end past the output's end is refused with the one sentence in every command, however
    /// large: `--frames 0:9223372036854775807` (Int64.max, once the open range's in-band mark)
    /// rendered the whole clip and exited 0 in composite, filter and concat; `reverse --to 9999`
    /// reversed the whole clip. Only `--from T` alone runs to the end.
    func testAnEndPastTheOutputIsRefusedInEveryCommand() throws {
        let q0 = fixture("q0.mp4"), q1 = fixture("q1.mp4")  // 75 and 66 frames at 30 fps
        let out = scratch.appendingPathComponent("o.mp4").path
        let huge = "0:9223372036854775807"
        let cases: [([String], String)] = [
            (["composite", "--blend", "mix", "--frames", huge, q0, q1], "--frames \(huge): input 2 (\(q1)) ends the output after 66 frames; the range must lie within 0:66."),
            (["filter", "--filter", "none", "--frames", huge, q0], "--frames \(huge): input 1 (\(q0)) ends the output after 75 frames; the range must lie within 0:75."),
            (["filter", "--filter", "none", "--frames", "3:9999", q0], "--frames 3:9999: input 1 (\(q0)) ends the output after 75 frames; the range must lie within 0:75."),
            (["concat", "--frames", huge, q0, q1], "--frames \(huge): input 2 (\(q1)) ends the output after 141 frames; the range must lie within 0:141."),
            (["reverse", "--frames", huge, q0], "--frames \(huge): input 1 (\(q0)) ends the output after 75 frames; the range must lie within 0:75."),
            (["reverse", "--to", "9999", q0], "--to 9999: input 1 (\(q0)) ends the output at 2.500 s (75 frames); the cut must lie within 0-2.500 s."),
            (["filter", "--filter", "none", "--to", "9999", q0], "--to 9999: input 1 (\(q0)) ends the output at 2.500 s (75 frames); the cut must lie within 0-2.500 s.")
        ]
        for (command, sentence) in cases {
            let r = try Processes.lockstep(command + ["--quiet", "-o", out])
            XCTAssertEqual(r.status, 1, "\(command): \(r.stdout)")
            XCTAssertEqual(r.stderr, "Error: \(sentence)\n", "\(command)")
            XCTAssertEqual(try leftovers(), [], "\(command)")
        }
        // `--from` alone still runs to the end.
        let r = try Processes.lockstep(["filter", "--filter", "none", "--from", "2", "--quiet", "-o", out, q0])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "wrote \(out): 15 frames, 320x240 at 30 fps, 0.500 s, audio 0.500 s\n")
    }
}
