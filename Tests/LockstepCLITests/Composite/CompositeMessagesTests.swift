import Foundation
import TestSupport
import XCTest

/// What `composite` says when its options and inputs leave it nothing to do, or draw other than
/// asked: the exact lines, and nothing left under the output's name.
final class CompositeMessagesTests: ScratchFolderTestCase {
    var bg: String { Repository.fixture("bg.mp4") }
    var fg: String { Repository.fixture("fg.mp4") }
    var out: String { scratch.appendingPathComponent("o.mp4").path }

    /// Inputs that share no time after --offsets or --trim: the options are the cause, not the
    /// first input (it said "fg.mp4: has no video frame to composite"). fg.mp4 is 2 s, bg.mp4 3 s.
    func testInputsThatShareNoTimeNameTheOptionsAndTheSpans() throws {
        let cases: [([String], String)] = [
            (["--offsets=0,30"], "--offsets leaves no time that every input covers (on input 1's clock): \(fg) 0.000 to 2.000 s, \(bg) 30.000 to 33.000 s."),
            (["--offsets=0,-5"], "--offsets leaves no time that every input covers (on input 1's clock): \(fg) 0.000 to 2.000 s, \(bg) -5.000 to -2.000 s."),
            (["--trim", "2=100:"], "--trim leaves no time that every input covers (on input 1's clock): \(fg) 0.000 to 2.000 s, \(bg) none (its trim starts at 100.000 s, after its end at 3.000 s)."),
            (
                ["--offsets=0,1", "--trim", "1=:0.5"],
                "--offsets and --trim leave no time that every input covers (on input 1's clock): \(fg) 0.000 to 0.500 s, \(bg) 1.000 to 4.000 s."
            )
        ]
        for (args, line) in cases {
            let r = try Processes.lockstep(["composite", fg, bg, "--blend", "quad", "-o", out, "--quiet"] + args)
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertEqual(r.stderr, "Error: \(line)\n", "\(args)")
            XCTAssertEqual(try leftovers(), [], "\(args)")
        }
        // Time shared: the same options give a picture.
        let ok = try Processes.lockstep(["composite", fg, bg, "--blend", "quad", "-o", out, "--quiet", "--offsets=0,1"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
    }

    /// A real input with no video frame keeps its own line.
    func testAnInputWithNoFrameIsStillNamed() throws {
        let empty = scratch.appendingPathComponent("empty.mp4").path
        try Processes.check("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10", "-frames:v", "0", "-c:v", "libx264", empty])
        let r = try Processes.lockstep(["composite", empty, bg, "--blend", "quad", "-o", out, "--quiet"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("Error: \(empty): "), r.stderr)
        XCTAssertFalse(r.stderr.contains("leaves no time"), r.stderr)
        XCTAssertEqual(try leftovers(), ["empty.mp4"])
    }

    /// The border drawn around each cell, measured in the decoded output (luma over 128: white on
    /// black inputs), against what was asked: an odd width is drawn one wider (4:2:0 stores the
    /// colour once per 2x2 pixels: a border's edge on an odd pixel would split a chroma sample),
    /// and a note says so.
    func testBorderWidthAsDrawnAndItsNote() throws {
        let black = scratch.appendingPathComponent("black.mp4").path
        try Processes.check("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=black:size=320x240:rate=10:duration=0.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", black])
        for (asked, drawn) in [(3, 4), (4, 4), (1, 2)] {
            let r = try Processes.lockstep(["composite", black, black, "--blend", "grid", "--border", String(asked), "-o", out, "--quiet"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let note = asked == drawn ? "" : "note: --border \(asked) is drawn \(drawn) pixels wide: a border's width is even, as 4:2:0 pictures store their colour once per 2x2 pixels\n"
            XCTAssertEqual(r.stderr, note, "--border \(asked)")
            let probe = try Processes.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=width,height", "-of", "csv=p=0", out])
            let text = String(decoding: probe.stdout, as: UTF8.self)
            let size = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
            XCTAssertEqual(size.count, 2, text)
            guard size.count == 2 else { return }
            let (w, h) = (size[0], size[1])
            let gray = [UInt8](try Processes.check("ffmpeg", ["-v", "error", "-i", out, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"]))
            XCTAssertEqual(gray.count, w * h)
            // From the top, in the middle of the first cell; from the left, half-way down.
            let top = (0..<h).prefix { gray[$0 * w + w / 4] > 128 }.count
            let left = (0..<w).prefix { gray[(h / 2) * w + $0] > 128 }.count
            XCTAssertEqual(top, drawn, "--border \(asked): rows from the top")
            XCTAssertEqual(left, drawn, "--border \(asked): columns from the left")
            try FileManager.default.removeItem(atPath: out)
        }
    }

    /// A label no canvas can show (100 kB): refused naming --label and the limit (it took 39 s
    /// instead of 1 s to composite 20 s with one, cutting it a character at a time).
    func testALabelLongerThanAnyCanvasShowsIsRefused() throws {
        let long = String(repeating: "label ", count: 17_067)
        let r = try Processes.lockstep(["composite", fg, bg, "--blend", "grid", "--label", "a", "--label", long, "-o", out, "--quiet"])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertEqual(
            r.stderr.split(separator: "\n").first.map(String.init),
            "Error: --label 2 is 102402 characters long; a label is at most 2730 (the widest canvas, 16384 pixels, shows no more).")
        XCTAssertEqual(try leftovers(), [])
        // At the limit: drawn, cut to its cell's width.
        let most = String(repeating: "x", count: 2730)
        let ok = try Processes.lockstep(["composite", fg, bg, "--blend", "grid", "--label", most, "-o", out, "--quiet"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
    }
}
