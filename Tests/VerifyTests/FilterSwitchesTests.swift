import Compositor
import Verify
import XCTest

/// The filter switch frames read from hand-made provenance: the first chain, then each change;
/// a frame without a record switches nothing; a movie without chains has none.
final class FilterSwitchesTests: XCTestCase {
    let tb = Rational(1, 15360)  // 30 fps = 512 ticks

    func frames(_ chains: [String?], first: Int64 = 0) -> [ScannedFrame] {
        chains.enumerated().map { k, chain in
            var p: Provenance? = Provenance(k: Int64(k), src: [[Int64(k), Int64(k) * 512]])
            if let chain { p?.filter = chain == "-" ? nil : chain } else { p = nil }
            return ScannedFrame(pts: Timestamp(first + Int64(k) * 512, tb), meanLuma: 100, lumaDeviation: 30, difference: nil, provenance: p)
        }
    }

    func testSwitchesAreTheFramesWhereTheChainChanges() {
        // nil: no provenance record at all (frame 4): the chain before it goes on.
        let f = frames(["mono", "mono", "invert", "none", nil, "none", "blur:radius=3,sepia", "blur:radius=3,sepia"], first: 1024)
        XCTAssertEqual(
            Checks.filterSwitches(f),
            [
                FilterSwitch(frame: 0, time: 0, filter: "mono"),
                FilterSwitch(frame: 2, time: 2.0 / 30, filter: "invert"),
                FilterSwitch(frame: 3, time: 3.0 / 30, filter: "none"),
                FilterSwitch(frame: 6, time: 6.0 / 30, filter: "blur:radius=3,sepia")
            ])
    }

    func testAMovieWithoutChainsReportsNone() {
        XCTAssertEqual(Checks.filterSwitches(frames(["-", "-", nil])), [])
        let report = Checks.run(Scan(path: "x.mp4", frames: frames(["-", "-"]), videoDuration: 2.0 / 30, audio: nil))
        XCTAssertNil(report.filterSwitches)
        let encoded = String(decoding: try! JSONEncoder().encode(report), as: UTF8.self)
        XCTAssertFalse(encoded.contains("filterSwitches"), encoded)
    }

    func testTheReportCarriesThemThroughJSON() throws {
        let report = Checks.run(Scan(path: "x.mp4", frames: frames(["rosy", "rosy", "none"]), videoDuration: 3.0 / 30, audio: nil))
        XCTAssertEqual(report.filterSwitches?.map(\.frame), [0, 2])
        let back = try JSONDecoder().decode(VerifyReport.self, from: JSONEncoder().encode(report))
        XCTAssertEqual(back, report)
    }
}
