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
        XCTAssertEqual(messages([2, 3, 1, 0], "reverse"), ["output frame 0 shows source frame 2, not 3",
                                                            "output frame 1 goes from source frame 2 to 3, against the direction of play",
                                                            "output frame 2 jumps from source frame 3 to 1: source frame 2 was dropped"])
        XCTAssertEqual(messages([0, 1, 2, 3, 3, 2, 1, 0], "boomerang"), ["output frame 4 shows source frame 3 again"])
        XCTAssertEqual(messages([0, 1, 2, 3, 2, 1, 0, 0, 1, 2, 3, 2, 1, 0], "boomerang"), ["output frame 7 shows source frame 0 again"])
        XCTAssertEqual(messages([0, 1, 2, 3, 1, 0], "boomerang"), ["output frame 4 jumps from source frame 3 to 1: source frame 2 was dropped"])
    }
}
