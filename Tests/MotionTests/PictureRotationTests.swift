import Foundation
import Motion
import XCTest

/// The lens model, the per-frame rotation from block motion and the lens search, on block
/// flows made here from known rotations: the blocks' end points are computed with this file's
/// own projection (the angle from the optical axis by acos, the radius by the lens formula, a
/// rotation matrix built from Euler angles), not with the code under test.
final class PictureRotationTests: XCTestCase {
    /// r = f theta (1 + k1 theta^2) for a fisheye, f tan theta for a pinhole.
    struct Lens { var f: Double; var k1: Double?;  }

    /// Where a pixel (from the centre) goes when the camera turns by `rx, ry, rz` (radians about
    /// its x right, y down, z forward): the world direction stays, the camera's axes turn.
    static func moved(_ x: Double, _ y: Double, lens: Lens, rx: Double, ry: Double, rz: Double) -> (Double, Double) {
        let r = (x * x + y * y).squareRoot()
        let theta: Double
        if let k1 = lens.k1 {
            // Bisection on f t (1 + k1 t^2) = r.
            var lo = 0.0, hi = 3.0
            for _ in 0..<80 { let m = (lo + hi) / 2; if lens.f * m * (1 + k1 * m * m) < r { lo = m } else { hi = m } }
            theta = (lo + hi) / 2
        } else {
            theta = atan(r / lens.f)
        }
        let phi = atan2(y, x)
        var d = [sin(theta) * cos(phi), sin(theta) * sin(phi), cos(theta)]
        // The camera turns by R = Rz Ry Rx (small angles: the order barely matters); a fixed
        // direction in the new camera's axes is R^T d.
        func rot(_ axis: Int, _ a: Double) -> [[Double]] {
            let c = cos(a), s = sin(a)
            switch axis {
            case 0: return [[1, 0, 0], [0, c, -s], [0, s, c]]
            case 1: return [[c, 0, s], [0, 1, 0], [-s, 0, c]]
            default: return [[c, -s, 0], [s, c, 0], [0, 0, 1]]
            }
        }
        func mul(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] { (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } } }
        let m = mul(rot(2, rz), mul(rot(1, ry), rot(0, rx)))
        d = (0..<3).map { i in (0..<3).reduce(0) { $0 + m[$1][i] * d[$1] } }  // R^T d
        let t2 = acos(min(1, d[2])), p2 = atan2(d[1], d[0])
        let r2 = lens.k1.map { lens.f * t2 * (1 + $0 * t2 * t2) } ?? lens.f * tan(t2)
        return (r2 * cos(p2), r2 * sin(p2))
    }

    static func flow(lens: Lens, width: Int, turns: [(Double, Double, Double)], outliers: Set<Int> = [], seed: UInt64 = 1) -> BlockFlow {
        var xs: [Double] = [], ys: [Double] = []
        for r in 0..<3 { for c in 0..<5 { xs.append(Double(c - 2) * Double(width) * 0.2); ys.append(Double(r - 1) * Double(width) * 0.17) } }
        var flow = BlockFlow(centreX: xs, centreY: ys, width: width)
        var state = seed
        func noise() -> Double { state = state &* 6364136223846793005 &+ 1442695040888963407; return Double(state >> 11) / Double(1 << 53) - 0.5 }
        for (k, t) in turns.enumerated() {
            var dx: [Float] = [], dy: [Float] = []
            for i in xs.indices {
                let e = moved(xs[i], ys[i], lens: lens, rx: t.0, ry: t.1, rz: t.2)
                // Outlier blocks (something walking through) move on their own.
                let extra = outliers.contains(i) ? (7.0 + 3 * Double(k % 3), -4.0) : (0, 0)
                dx.append(Float(e.0 - xs[i] + extra.0 + 0.05 * noise())); dy.append(Float(e.1 - ys[i] + extra.1 + 0.05 * noise()))
            }
            flow.append(dx: dx, dy: dy, weight: [Float](repeating: 0.8, count: xs.count))
        }
        return flow
    }

    func testLensRoundTripAndFieldOfView() {
        for lens in [LensModel(focalLengthPx: 300, k1: 0), LensModel(focalLengthPx: 180, k1: 0.07), LensModel(focalLengthPx: 500, k1: 1.0 / 3)] {
            for (x, y) in [(0.0, 0.0), (120.0, -40.0), (-300.0, 200.0)] {
                let p = lens.pixel(lens.ray(x: x, y: y))!
                XCTAssertEqual(p.x, x, accuracy: 1e-9); XCTAssertEqual(p.y, y, accuracy: 1e-9)
            }
        }
        // An equidistant fisheye shows half its width at (width / 2) / f radians.
        XCTAssertEqual(LensModel(focalLengthPx: 200, k1: 0).horizontalFOVDegrees(width: 640), 2 * 320.0 / 200 * 180 / .pi, accuracy: 1e-9)
        XCTAssertEqual(LensModel.pinholeFOVDegrees(focalLengthPx: 320, width: 640), 90, accuracy: 1e-9)
    }

    /// Pan, tilt and roll come back through a pinhole and a fisheye; the roll needs no lens.
    func testRotationFromBlocksSeesRoll() throws {
        let turns = [(0.01, -0.02, 0.015), (-0.004, 0.006, -0.03), (0.0, 0.0, 0.02)]
        for lens in [Lens(f: 350, k1: nil), Lens(f: 160, k1: 0.05)] {
            let flow = Self.flow(lens: lens, width: 640, turns: turns)
            let model = LensModel(focalLengthPx: lens.f, k1: lens.k1 ?? 1.0 / 3)
            for (k, t) in turns.enumerated() {
                let fit = try XCTUnwrap(PictureRotation.fit(flow, interval: k, lens: lens.k1 == nil ? LensModel(focalLengthPx: lens.f, k1: 0.34) : model))
                // A pinhole read through the k1 = 1/3 fisheye: close, not exact, off the centre.
                let tol = lens.k1 == nil ? 0.0015 : 0.0003
                XCTAssertEqual(fit.omega.x, t.0, accuracy: tol, "\(lens) \(k)"); XCTAssertEqual(fit.omega.y, t.1, accuracy: tol, "\(lens) \(k)")
                XCTAssertEqual(fit.omega.z, t.2, accuracy: 0.0005, "\(lens) \(k)")
            }
            // The roll under a nominal lens of the wrong focal length is still the roll.
            let rolls = PictureRotation.rolls(flow)
            for (k, t) in turns.enumerated() { XCTAssertEqual(rolls[k], t.2, accuracy: 0.001, "\(lens) nominal \(k)") }
        }
    }

    /// A fifth of the blocks on something moving by itself does not move the answer.
    func testSomethingWalkingThroughDoesNotCount() throws {
        let turns = [(0.006, -0.012, 0.01), (-0.01, 0.004, -0.008)]
        let lens = Lens(f: 200, k1: 0.05)
        let flow = Self.flow(lens: lens, width: 640, turns: turns, outliers: [3, 4, 8])
        for (k, t) in turns.enumerated() {
            let fit = try XCTUnwrap(PictureRotation.fit(flow, interval: k, lens: LensModel(focalLengthPx: 200, k1: 0.05)))
            XCTAssertEqual(fit.omega.x, t.0, accuracy: 0.0005); XCTAssertEqual(fit.omega.y, t.1, accuracy: 0.0005)
            XCTAssertEqual(fit.omega.z, t.2, accuracy: 0.0005)
            XCTAssertEqual(fit.inliers, 12, "the three walking blocks are left out")
        }
    }

    /// The lens search finds f and k1 of a fisheye, and a pinhole as k1 near 1/3.
    func testLensSearchFindsFocalLengthAndDistortion() throws {
        var turns: [(Double, Double, Double)] = []
        for k in 0..<40 { let a = Double(k); turns.append((0.012 * sin(a * 0.7), 0.02 * cos(a * 0.45), 0.01 * sin(a * 1.3 + 1))) }
        let rotations = turns.map { Optional(SIMD3($0.0, $0.1, $0.2)) }
        // A 150-degree fisheye on a picture 640 px wide.
        let fish = try XCTUnwrap(LensSearch.search(Self.flow(lens: Lens(f: 220, k1: 0.06), width: 640, turns: turns), rotations: rotations))
        XCTAssertEqual(fish.lens.focalLengthPx, 220, accuracy: 220 * 0.02)
        XCTAssertEqual(fish.lens.k1, 0.06, accuracy: 0.03)
        let pin = try XCTUnwrap(LensSearch.search(Self.flow(lens: Lens(f: 420, k1: nil), width: 640, turns: turns), rotations: rotations))
        XCTAssertEqual(pin.lens.focalLengthPx, 420, accuracy: 420 * 0.03)
        // A pinhole is not exactly any k1 (tan theta = theta + theta^3 / 3 + 2 theta^5 / 15 ...):
        // the k1 that fits it over the picture lies a little above 1/3, and the field of view agrees.
        XCTAssertGreaterThan(pin.lens.k1, 0.25); XCTAssertLessThan(pin.lens.k1, 0.6)
        XCTAssertEqual(LensModel.pinholeFOVDegrees(focalLengthPx: 420, width: 640), pin.lens.horizontalFOVDegrees(width: 640), accuracy: 2)
    }
}
