import Motion
import XCTest

/// The centre's shift from the block flow, on flows made by PictureRotationTests' own projection
/// (known turns through a known lens, a little noise, blocks that walk through).
final class CentreShiftTests: XCTestCase {
    typealias P = PictureRotationTests

    /// A pure roll moves no block at the centre: the fit says 0 however unevenly the blocks
    /// matched, where their weighted mean (what a whole-picture correlation of texture on the
    /// left half sees, roughly) moves by pixels.
    func testARollIsNotAShiftWhereverTheTextureIs() throws {
        var flow = P.flow(lens: .init(f: 300, k1: nil), width: 640, turns: [(0, 0, 0.03), (0, 0, -0.02)])
        // Texture on the left two columns only: the rest matched barely above the floor.
        for k in 0..<flow.intervals {
            for i in 0..<flow.blocks where flow.centreX[i] >= 0 { flow.weight[k * flow.blocks + i] = 0.06 }
        }
        for k in 0..<flow.intervals {
            let c = try XCTUnwrap(CentreShift.fit(flow, interval: k))
            // Not exactly 0: a turn also draws the picture in by 1 - cos theta (0.1 px at the
            // left edge here), which no shift-and-turn model holds.
            XCTAssertEqual(c.dx, 0, accuracy: 0.15, "interval \(k)"); XCTAssertEqual(c.dy, 0, accuracy: 0.15, "interval \(k)")
            // The test can tell: the weighted mean of the blocks' motion is far from 0.
            let rows = (0..<flow.blocks).map { k * flow.blocks + $0 }
            let sw = rows.reduce(0.0) { $0 + Double(flow.weight[$1]) }
            let meanDy = rows.reduce(0.0) { $0 + Double(flow.weight[$1] * flow.dy[$1]) } / sw
            XCTAssertGreaterThan(abs(meanDy), 1.5, "interval \(k)")
        }
    }

    /// With a pan and a tilt, adding a roll leaves the centre's shift where it was, and that
    /// shift is the centre's true motion up to the lens's off-centre stretch (a pinhole moves
    /// the picture's edges further than its centre: on this 56-degree lens, about 9%).
    func testPanAndTiltComeThroughARoll() throws {
        let lens = P.Lens(f: 600, k1: nil)
        let turns: [(Double, Double, Double)] = [(0.01, -0.02, 0), (-0.006, 0.004, 0)]
        let rolled = turns.map { ($0.0, $0.1, 0.025) }
        let plain = P.flow(lens: lens, width: 640, turns: turns), turned = P.flow(lens: lens, width: 640, turns: rolled)
        for (k, t) in turns.enumerated() {
            let a = try XCTUnwrap(CentreShift.fit(plain, interval: k)), b = try XCTUnwrap(CentreShift.fit(turned, interval: k))
            XCTAssertEqual(a.dx, b.dx, accuracy: 0.1, "interval \(k)"); XCTAssertEqual(a.dy, b.dy, accuracy: 0.1, "interval \(k)")
            let truth = P.moved(0, 0, lens: lens, rx: t.0, ry: t.1, rz: 0)
            XCTAssertEqual(a.dx, truth.0, accuracy: 0.12 * abs(truth.0) + 0.05, "interval \(k)")
            XCTAssertEqual(a.dy, truth.1, accuracy: 0.12 * abs(truth.1) + 0.05, "interval \(k)")
        }
    }

    /// Blocks on something walking through do not pull it; too few matched blocks give nothing.
    func testWalkersAndEmptyPictures() throws {
        let lens = P.Lens(f: 600, k1: nil)
        let turns: [(Double, Double, Double)] = [(0.004, -0.005, 0.01)]
        let clean = try XCTUnwrap(CentreShift.fit(P.flow(lens: lens, width: 640, turns: turns), interval: 0))
        let walked = try XCTUnwrap(CentreShift.fit(P.flow(lens: lens, width: 640, turns: turns, outliers: [3, 4, 8]), interval: 0))
        XCTAssertEqual(walked.dx, clean.dx, accuracy: 0.05); XCTAssertEqual(walked.dy, clean.dy, accuracy: 0.05)

        var sky = P.flow(lens: lens, width: 640, turns: turns)
        for i in 3..<sky.blocks { sky.weight[i] = 0.01 }
        XCTAssertNil(CentreShift.fit(sky, interval: 0), "3 matched blocks are too few")
    }
}
