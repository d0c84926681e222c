import Foundation
import TestSupport
import XCTest

/// The kit's longest cases (the slow tier, `scripts/test --all`): each makes and reads a 10 s
/// coded movie through a pipeline whose verdict kind a default-tier case already covers (frames
/// dropped: the independent generator's drops; audio early: audio late; a letterboxed quarter-width
/// re-encode; a duplicated frame).
final class CodedVerifySlowTests: CodedVerifyTestCase {
    func testAudioAdvanced20msFailsATSCAsEarly() throws {
        let r = try verify(try pipeline("a20.mp4", ["-af", "atrim=start=0.02,asetpts=PTS-STARTPTS"] + Self.h264 + Self.aac))
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(offset(r.doc)["mean"] as? Double ?? 0, -20, accuracy: 1)
        XCTAssertEqual(verdict(r.doc, "atscIS191"), "fail")
        XCTAssertEqual(verdict(r.doc, "ebuR37"), "pass", "EBU R37 allows audio 40 ms early")
    }

    func testFrames100To104DroppedAreExactlyTheMissingCodes() throws {
        let r = try verify(try pipeline("drop.mp4", ["-vf", "select='not(between(n,100,104))'", "-fps_mode", "passthrough"] + Self.h264 + Self.aac))
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(runs(r.doc, "missing"), [["from": 100, "to": 104, "outputFrame": 100]])
        XCTAssertEqual(runs(r.doc, "repeated").count, 0)
        XCTAssertEqual(r.doc["frames"] as? Int, 295)
    }

    func testFrame200DuplicatedIsNamed() throws {
        // Frames 0-200, then 200-299: frame 200 twice. (FFmpeg 5.1's `loop=1:1:200` repeats frame
        // 199, not 200, as its own framemd5 shows; verify names 199 there, rightly.)
        let r = try verify(
            try pipeline(
                "dup.mp4",
                [
                    "-filter_complex", "[0:v]split[a][b];[a]trim=end_frame=201[a1];[b]trim=start_frame=200[b1];[a1][b1]concat=n=2:v=1:a=0,setpts=N/FRAME_RATE/TB[v]",
                    "-map", "[v]", "-map", "0:a"
                ] + Self.h264 + Self.aac))
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(runs(r.doc, "repeated"), [["code": 200, "from": 201, "to": 201]])
        XCTAssertEqual(runs(r.doc, "missing").count, 0)
    }

    func testScaledToAQuarterWidthAtCRF35InALetterboxWithRangeExpanded() throws {
        let folder = try Scratch.makeFolder("lockstep-coded-1080")
        defer { try? FileManager.default.removeItem(at: folder) }
        let big = folder.appendingPathComponent("big.mkv").path
        let made = try Processes.lockstep(["testsrc", "-o", big, "--duration", "3", "--size", "1920x1080", "--codec", "ffv1"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let small = try verify(try pipeline("q.mp4", input: big, ["-vf", "scale=480:270", "-c:v", "libx264", "-preset", "veryfast", "-crf", "35"] + Self.aac))
        XCTAssertEqual(small.status, 0, "\(small.doc)")
        XCTAssertEqual(small.doc["frames"] as? Int, 90)
        XCTAssertEqual(small.doc["unreadable"] as? [[Int]], [])
        // Letterboxed into 4:3, its video range stretched to full as if read wrongly.
        let boxed = try verify(try pipeline("box.mp4", input: big, ["-vf", "scale=480:270,pad=480:360:0:45,lutyuv=y='(val-16)*255/219'", "-c:v", "libx264", "-crf", "35"] + Self.aac))
        XCTAssertEqual(boxed.status, 0, "\(boxed.doc)")
    }

}
