import Compositor
import Verify
import XCTest

/// verify's concat check on hand-made scans: a clean join passes; a frame lost at a join, a
/// repeat, a clip skipped or out of order is named with its output frame.
final class ConcatCheckTests: XCTestCase {
    let tb = Rational(1, 15360)
    let header = [
        Provenance.Input(name: "a.mp4", timeBase: "1/15360", audio: true, frames: 3),
        Provenance.Input(name: "b.mp4", timeBase: "1/12800", audio: false, frames: 2),
        Provenance.Input(name: "c.mp4", timeBase: "1/15360", audio: true, frames: 4)
    ]

    /// One output frame per (clip, source index).
    func scan(_ shown: [(Int, Int64)]) -> Scan {
        let frames = shown.enumerated().map { k, s in
            var p = Provenance(k: Int64(k), src: [[s.1, s.1 * 512]])
            p.clip = s.0
            if k == 0 { p.sync = "concat"; p.fps = "30/1"; p.inputs = header }
            return ScannedFrame(
                pts: Timestamp(Int64(k) * 512, tb), meanLuma: 100 + Double(k % 5), lumaDeviation: 30,
                difference: k == 0 ? nil : 1, provenance: p)
        }
        return Scan(path: "x.mp4", frames: frames, videoDuration: Double(frames.count) / 30, audio: nil)
    }
    func messages(_ shown: [(Int, Int64)]) -> [String] {
        Checks.run(scan(shown)).violations.filter { $0.kind != .audioMissing }.map(\.message)
    }

    func testCleanJoinsAndACapInTheLastClipPass() {
        XCTAssertEqual(messages([(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0), (2, 1), (2, 2), (2, 3)]), [])
        XCTAssertEqual(messages([(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)]), [])
    }

    func testAFrameLostAtAJoinIsNamed() {
        XCTAssertEqual(
            messages([(0, 0), (0, 1), (1, 0), (1, 1)]),
            ["the join into clip 2 (b.mp4) at output frame 2: clip 1 (a.mp4) ended after 2 of its 3 frames"])
    }

    func testRepeatsSkipsAndDisorderAreNamed() {
        XCTAssertEqual(messages([(0, 0), (0, 1), (0, 1), (0, 2)]), ["output frame 2: clip 1 (a.mp4) shows source frame 1 again"])
        XCTAssertEqual(
            messages([(0, 0), (0, 2)]),
            ["output frame 1: clip 1 (a.mp4) jumps from source frame 0 to 2: source frame 1 was dropped"])
        XCTAssertEqual(
            messages([(0, 0), (0, 1), (0, 2), (2, 0)]),
            ["output frame 3: clip 3 (c.mp4) follows clip 1 (a.mp4); the clips between are missing"])
        XCTAssertEqual(messages([(0, 0), (0, 1), (0, 2), (1, 1)]), ["output frame 3: clip 2 (b.mp4) starts at source frame 1, not 0"])
        XCTAssertEqual(messages([(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (0, 0)]), ["output frame 5: clip 1 (a.mp4) comes back after clip 2 (b.mp4)"])
    }

    /// A join that ends in silence (a last clip without audio, or one that ends quietly) is no
    /// fault: silence at the end is not judged at all (issue 26).
    func testEndingInSilenceIsNoFault() {
        for clips: [(Int, Int64)] in [[(0, 0), (0, 1), (0, 2), (1, 0)], [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)]] {
            var s = scan(clips)
            s.audio = ScannedAudio(start: 0, end: Double(clips.count) / 30, tailLevel: -200, overallLevel: -20)
            XCTAssertEqual(Checks.run(s).violations, [])
        }
    }
}

/// verify's check of a concat by time (the default): clips placed at their starts, frames shown
/// as time says, joins at each clip's end.
final class ConcatByTimeCheckTests: XCTestCase {
    let out = Rational(1, 30)
    /// Clip 1: 30 fps, 3 frames (0.1 s, its stream 1/10 s). Clip 2: 25 fps in 1/25, 3 frames, from 0.1 s.
    let inputs: [Provenance.Input] = {
        var a = Provenance.Input(name: "a.mp4", timeBase: "1/30", audio: false, frames: 3); a.duration = "1/10"
        var b = Provenance.Input(name: "b.mp4", timeBase: "1/25", audio: false, frames: 3); b.duration = "3/25"
        return [a, b]
    }()

    /// (clip, source index, pts, until) per output frame; clip starts on each clip's first frame.
    func scan(_ shown: [(Int, Int64, Int64, Int64)], starts: [String] = ["0/1", "1/10"]) -> Scan {
        var lastClip = -1
        let frames = shown.enumerated().map { k, s -> ScannedFrame in
            var p = Provenance(k: Int64(k), src: [[s.1, s.2, s.3]])
            p.clip = s.0
            if s.0 != lastClip { p.clipStart = starts[s.0]; p.origin = 0; lastClip = s.0 }
            if k == 0 { p.sync = "concat"; p.timing = "time"; p.fps = "30/1"; p.inputs = inputs }
            return ScannedFrame(pts: Timestamp(Int64(k), out), meanLuma: 100 + Double(k % 5), lumaDeviation: 30, difference: k == 0 ? nil : 1, provenance: p)
        }
        return Scan(path: "x.mp4", frames: frames, videoDuration: Double(frames.count) / 30, audio: nil)
    }
    func messages(_ s: [(Int, Int64, Int64, Int64)], starts: [String] = ["0/1", "1/10"]) -> [String] {
        Checks.run(scan(s, starts: starts)).violations.filter { $0.kind != .audioMissing }.map(\.message)
    }

    func testAJoinByTimePasses() {
        // Clip 2 at 25 fps from 0.1 s: ticks 3-6 at clip times 0, 1/30, 2/30, 3/30 show frames 0, 0, 1, 2.
        XCTAssertEqual(messages([(0, 0, 0, 1), (0, 1, 1, 2), (0, 2, 2, 3), (1, 0, 0, 1), (1, 0, 0, 1), (1, 1, 1, 2), (1, 2, 2, 3)]), [])
    }

    func testAClipEndedEarlyIsNamed() {
        // Clip 1 stops after frame 1 (the job's last frame: until is its end) though it shows 3.
        XCTAssertEqual(
            messages([(0, 0, 0, 1), (0, 1, 1, 2), (1, 0, 0, 1), (1, 0, 0, 1), (1, 1, 1, 2)], starts: ["0/1", "1/15"]),
            ["the join into clip 2 (b.mp4) at output frame 2: clip 1 (a.mp4) ended after 2 of its 3 frames"])
        // Two frames short, its length is off by more than an output frame too.
        XCTAssertEqual(
            messages([(0, 0, 0, 1), (1, 0, 0, 1), (1, 0, 0, 1), (1, 1, 1, 2)], starts: ["0/1", "1/30"]),
            [
                "the join into clip 2 (b.mp4) at output frame 1: clip 1 (a.mp4) ended after 1 of its 3 frames",
                "clip 1 (a.mp4) lasts 0.033 s in the output, but its stream lasts 0.100 s"
            ])
    }

    func testAClipPlacedWhereItsFramesAreNotIsNamed() {
        XCTAssertEqual(
            messages([(0, 0, 0, 1), (0, 1, 1, 2), (0, 2, 2, 3), (1, 0, 0, 1)], starts: ["0/1", "1/5"]).first,
            "output frame 3 at 0.100 s starts clip 2 (b.mp4), whose time 0 is at 0.200 s")
        XCTAssertEqual(
            messages([(0, 0, 0, 1), (0, 1, 1, 2), (0, 2, 2, 3), (1, 2, 2, 3)]).first,
            "output frame 3 at 0.100 s: clip 2 (b.mp4) shows source frame 2 of 0.080 s, which is not on screen yet")
    }
}
