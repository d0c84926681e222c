import Compositor
import Verify
import XCTest

/// verify's concat check on hand-made scans: a clean join passes; a frame lost at a join, a
/// repeat, a clip skipped or out of order is named with its output frame.
final class ConcatCheckTests: XCTestCase {
    let tb = Rational(1, 15360)
    let header = [Provenance.Input(name: "a.mp4", timeBase: "1/15360", audio: true, frames: 3),
                  Provenance.Input(name: "b.mp4", timeBase: "1/12800", audio: false, frames: 2),
                  Provenance.Input(name: "c.mp4", timeBase: "1/15360", audio: true, frames: 4)]

    /// One output frame per (clip, source index).
    func scan(_ shown: [(Int, Int64)]) -> Scan {
        let frames = shown.enumerated().map { k, s in
            var p = Provenance(k: Int64(k), src: [[s.1, s.1 * 512]])
            p.clip = s.0
            if k == 0 { p.sync = "concat"; p.fps = "30/1"; p.inputs = header }
            return ScannedFrame(pts: Timestamp(Int64(k) * 512, tb), meanLuma: 100 + Double(k % 5), lumaDeviation: 30,
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
        XCTAssertEqual(messages([(0, 0), (0, 1), (1, 0), (1, 1)]),
                       ["the join into clip 2 (b.mp4) at output frame 2: clip 1 (a.mp4) ended after 2 of its 3 frames"])
    }

    func testRepeatsSkipsAndDisorderAreNamed() {
        XCTAssertEqual(messages([(0, 0), (0, 1), (0, 1), (0, 2)]), ["output frame 2: clip 1 (a.mp4) shows source frame 1 again"])
        XCTAssertEqual(messages([(0, 0), (0, 2)]),
                       ["output frame 1: clip 1 (a.mp4) jumps from source frame 0 to 2: source frame 1 was dropped"])
        XCTAssertEqual(messages([(0, 0), (0, 1), (0, 2), (2, 0)]),
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
