import XCTest

@testable import Motion

/// What counts as another answer for the offset (issue 41): a peak standing on its own, not a
/// bump on the winner's own shoulder. On a camera that never stops turning the correlation over
/// offsets is one broad peak, and a bump a few steps from its top (0.998 against 0.999) made
/// calibrate call the offset ambiguous and refuse a right answer.
final class PeakAnalysisTests: XCTestCase {
    /// h * exp(-(i - at)^2 / (2 sigma^2)).
    func bump(_ i: Int, at: Int, height h: Double, sigma: Double) -> Double {
        let d = Double(i - at)
        return h * exp(-d * d / (2 * sigma * sigma))
    }

    /// A broad peak (0.999 at index 50, sigma 15 steps) over a floor near 0.
    func broadPeak() -> [Double?] {
        (0..<101).map { (i: Int) -> Double? in bump(i, at: 50, height: 0.999, sigma: 15) }
    }

    func testABumpOnTheWinnersShoulderIsNoRival() throws {
        var curve = broadPeak()
        // A dip of 0.0005 at 54 leaves 55 (0.9935) a local maximum on the shoulder.
        curve[54] = curve[55]! - 0.0005
        let p = try XCTUnwrap(PeakAnalysis(curve))
        XCTAssertEqual(p.index, 50)
        XCTAssertLessThan(p.runnerUp, 0.5, "the shoulder's bump is the winner's own peak")
        // Half its height over the curve's median (0.249; the level 0.624): 14 steps either side.
        XCTAssertEqual(p.width, 36...64)
    }

    func testASeparatePeakIsARival() throws {
        // Two narrow peaks (sigma 4 steps), 0.95 at 30 and 0.9 at 70: the dip between reaches the floor.
        let curve: [Double?] = (0..<101).map { (i: Int) -> Double? in
            bump(i, at: 30, height: 0.95, sigma: 4) + bump(i, at: 70, height: 0.9, sigma: 4)
        }
        let p = try XCTUnwrap(PeakAnalysis(curve))
        XCTAssertEqual(p.index, 30)
        XCTAssertEqual(p.runnerUp, 0.9, accuracy: 1e-3)
        XCTAssertFalse(p.width.contains(70))
    }

    func testAPeakAcrossAnUncoveredGapIsARival() throws {
        // The same broad peak with the offsets 60-62 not covered by the trace: the top of what
        // lies beyond the gap (63) is not known to be on the winner's peak.
        var curve = broadPeak()
        for i in 60...62 { curve[i] = nil }
        let p = try XCTUnwrap(PeakAnalysis(curve))
        XCTAssertEqual(p.runnerUp, curve[63]!, accuracy: 1e-12)
    }
}
