import Compositor
import XCTest

@testable import Verify

/// verify's reverse/boomerang check on made-up scans: clean orders pass, each fault is named.
final class ReverseChecksTests: XCTestCase {
    func scan(_ sources: [Int64], mode: String) -> [ScannedFrame] {
        sources.enumerated().map { k, s in
            var p = Provenance(k: Int64(k), src: [[s, s * 512]])
            if k == 0 { p.sync = mode; p.fps = "30/1"; p.inputs = [Provenance.Input(name: "in.mp4", timeBase: "1/15360", audio: false)] }
            return ScannedFrame(pts: Timestamp(Int64(k), Rational(1, 30)), meanLuma: 80, lumaDeviation: 20, difference: 5, provenance: p)
        }
    }
    func messages(_ sources: [Int64], _ mode: String) -> [String] {
        Checks.reverseProvenance(scan(sources, mode: mode), boomerang: mode == "boomerang").map(\.message)
    }

    func testCleanOrdersPass() {
        XCTAssertEqual(messages([3, 2, 1, 0], "reverse"), [])
        XCTAssertEqual(messages([3, 2, 1, 0, 3, 2, 1, 0], "reverse"), [])
        XCTAssertEqual(messages([0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0], "boomerang"), [])
        // And through Checks.run: the index-sync check does not see them.
        let report = Checks.run(Scan(path: "x.mp4", frames: scan([3, 2, 1, 0], mode: "reverse"), videoDuration: 4.0 / 30, audio: nil))
        XCTAssertEqual(report.violations.map(\.message), [])
    }

    func testFaultsAreNamedByFrame() {
        XCTAssertEqual(messages([4, 3, 1, 0], "reverse"), ["output frame 2 jumps from source frame 3 to 1: source frame 2 was dropped"])
        XCTAssertEqual(messages([3, 2, 2, 1, 0], "reverse"), ["output frame 2 shows source frame 2 again"])
        XCTAssertEqual(messages([3, 2, 1], "reverse"), ["the output ends at source frame 1, not 0"])
        XCTAssertEqual(
            messages([2, 3, 1, 0], "reverse"),
            [
                "output frame 0 shows source frame 2, not 3",
                "output frame 1 goes from source frame 2 to 3, against the direction of play",
                "output frame 2 jumps from source frame 3 to 1: source frame 2 was dropped"
            ])
        XCTAssertEqual(messages([0, 1, 2, 3, 3, 2, 1, 0], "boomerang"), ["output frame 4 shows source frame 3 again"])
        XCTAssertEqual(messages([0, 1, 2, 3, 2, 1, 0, 0, 1, 2, 3, 2, 1, 0], "boomerang"), ["output frame 7 shows source frame 0 again"])
        XCTAssertEqual(messages([0, 1, 2, 3, 1, 0], "boomerang"), ["output frame 4 jumps from source frame 3 to 1: source frame 2 was dropped"])
    }

    // MARK: timing of a variable-rate reversal

    /// Source frames 0...5 (time base 1/15360) lasting 256, 256, 512, 512, 1024 ticks (the last
    /// one's is not known); `shown` their order in the output, `outputPTS` the output's times.
    static let sourcePTS: [Int64] = [0, 256, 512, 1024, 1536, 2560]
    func vfrScan(_ shown: [Int64], outputPTS: [Int64], mode: String = "reverse", sourcePTS: [Int64] = sourcePTS, end: Int64) -> Scan {
        let frames = zip(shown, outputPTS).enumerated().map { k, x in
            var p = Provenance(k: Int64(k), src: [[x.0, sourcePTS[Int(x.0)]]])
            if k == 0 { p.sync = mode; p.fps = "30/1"; p.inputs = [Provenance.Input(name: "vfr.mp4", timeBase: "1/15360", audio: false)] }
            return ScannedFrame(pts: Timestamp(x.1, Rational(1, 15360)), meanLuma: 80, lumaDeviation: 20, difference: 5, provenance: p)
        }
        return Scan(path: "x.mp4", frames: frames, videoDuration: Double(end) / 15360, audio: nil)
    }
    let reversed: [Int64] = [5, 4, 3, 2, 1, 0]
    let reversedPTS: [Int64] = [0, 1024, 2048, 2560, 3072, 3328]

    func testAVariableRateReversalWithEachSourceDurationIsClean() {
        let scan = vfrScan(reversed, outputPTS: reversedPTS, end: 3584)
        XCTAssertEqual(Checks.run(scan).violations.map(\.message), [])
        // The constant-step check alone would call the same file irregular.
        XCTAssertFalse(Checks.timing(scan, step: Checks.commonStep(scan.frames)).isEmpty)
        let boomerang = vfrScan([0, 1, 2, 3, 2, 1, 0], outputPTS: [0, 256, 512, 1024, 1536, 2048, 2304], mode: "boomerang", end: 2560)
        XCTAssertEqual(Checks.run(boomerang).violations.map(\.message), [])
    }

    func testAReversalWhoseDurationsAreNotItsSourcesIsReported() {
        // Output frame 3 shifted by 100 ticks: frame 2 lasts too long, frame 3 too short.
        var shifted = reversedPTS
        shifted[3] += 100
        XCTAssertEqual(
            Checks.run(vfrScan(reversed, outputPTS: shifted, end: 3584)).violations.map(\.message),
            [
                "output frame 2 lasts 39.8 ms, but its source frame 3 lasts 33.3 ms",
                "output frame 3 lasts 26.8 ms, but its source frame 2 lasts 33.3 ms"
            ])
        // The provenance's source frame 1 moved 200 ticks later: source frame 1 now lasts 56 ticks.
        var moved = Self.sourcePTS
        moved[1] += 200
        XCTAssertEqual(
            Checks.run(vfrScan(reversed, outputPTS: reversedPTS, sourcePTS: moved, end: 3584)).violations.map(\.message),
            ["output frame 4 lasts 16.7 ms, but its source frame 1 lasts 3.6 ms"])
    }

    // MARK: a reversal that keeps its source's timeline

    /// Source frames starting at 0, 1, 3 and 4 thirtieths of a second (frame 1 lasts two: a
    /// missed frame), ending at 5; output at 30 fps. Each record is [index, pts, until].
    static let timedStarts: [Int64] = [0, 1, 3, 4]
    func timedScan(_ shown: [Int64], mode: String = "reverse", trim: String? = nil) -> Scan {
        let frames = shown.enumerated().map { k, s in
            let until = s + 1 < Self.timedStarts.count ? Self.timedStarts[Int(s) + 1] : 5
            var p = Provenance(k: Int64(k), src: [[s, Self.timedStarts[Int(s)], until]])
            if k == 0 {
                p.sync = mode; p.fps = "30/1"; p.timing = "time"
                var input = Provenance.Input(name: "drops.mp4", timeBase: "1/30", audio: false)
                input.origin = 0; input.duration = "1/6"; input.trim = trim
                p.inputs = [input]
            }
            return ScannedFrame(pts: Timestamp(Int64(k), Rational(1, 30)), meanLuma: 80, lumaDeviation: 20, difference: 5, provenance: p)
        }
        return Scan(path: "x.mp4", frames: frames, videoDuration: Double(shown.count) / 30, audio: nil)
    }

    func testATimedReversalRepeatsAndSkipsAsTimeSays() {
        // Reversed: 3, 2, then frame 1 for two frames (it lasted two), then 0.
        XCTAssertEqual(Checks.run(timedScan([3, 2, 1, 1, 0])).violations.map(\.message), [])
        // Two loops: the second starts again at 3.
        XCTAssertEqual(Checks.run(timedScan([3, 2, 1, 1, 0, 3, 2, 1, 1, 0])).violations.map(\.message), [])
        // A boomerang: forward over [0, 5), back over [0, 4) (frame 3 not twice): 2 at 5, 1 at 6 and 7, 0 at 8.
        XCTAssertEqual(Checks.run(timedScan([0, 1, 1, 2, 3, 2, 1, 1, 0], mode: "boomerang")).violations.map(\.message), [])
        // A cut of [1/30, 4/30): frames 1 and 2, reversed.
        XCTAssertEqual(Checks.run(timedScan([2, 1, 1], trim: "1/30:2/15")).violations.map(\.message), [])
    }

    func testATimedReversalOutOfTimeIsNamed() {
        XCTAssertEqual(
            Checks.run(timedScan([3, 2, 2, 1, 0])).violations.map(\.message),
            ["output frame 2 at 0.067 s plays source time 0.100 s, but still shows source frame 2, on screen over 0.100-0.133 s"])
        XCTAssertEqual(
            Checks.run(timedScan([3, 2, 1, 0, 0])).violations.map(\.message),
            ["output frame 3 at 0.100 s plays source time 0.067 s, but shows source frame 0, on screen over 0.000-0.033 s: not yet"])
        XCTAssertEqual(
            Checks.run(timedScan([3, 1, 2, 1, 0])).violations.map(\.message),
            [
                "output frame 2 goes from source frame 1 to 2, against the direction of play",
                "output frame 1 at 0.033 s plays source time 0.133 s, but shows source frame 1, on screen over 0.033-0.100 s: not yet",
                "output frame 2 at 0.067 s plays source time 0.100 s, but still shows source frame 2, on screen over 0.100-0.133 s"
            ])
    }
}
