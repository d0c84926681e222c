import Motion
import XCTest

@testable import Lockstep

/// The snake report's per-frame shift (FFTW, bytes) against Motion's pure-Swift PhaseCorrelator
/// (the reference, doubles) on the same pictures: a large one (box-downscaled) and one smaller
/// than the square (edges repeated).
final class PictureShiftMeterTests: XCTestCase {
    /// Seeded noise on a 3-pixel grid, sampled bilinearly at (x + ox, y + oy): broadband, like
    /// real footage (a texture of sines made the correlation itself ambiguous).
    static func picture(width: Int, height: Int, ox: Double, oy: Double) -> [UInt8] {
        let gw = width / 3 + 12, gh = height / 3 + 12
        var state: UInt64 = 12345
        let grid = (0..<(gw * gh)).map { _ -> Double in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 56)
        }
        var out = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let u = (Double(x) + ox) / 3 + 4, v = (Double(y) + oy) / 3 + 4
                let x0 = Int(u), y0 = Int(v), fx = u - Double(x0), fy = v - Double(y0)
                func g(_ a: Int, _ b: Int) -> Double { grid[b * gw + a] }
                let top = g(x0, y0) * (1 - fx) + g(x0 + 1, y0) * fx, bottom = g(x0, y0 + 1) * (1 - fx) + g(x0 + 1, y0 + 1) * fx
                out[y * width + x] = UInt8((top * (1 - fy) + bottom * fy).rounded())
            }
        }
        return out
    }

    func testItMeasuresWhatTheReferenceMeasures() {
        for (w, h, moves) in [(640, 360, [(0.0, 0.0), (6.0, -4.0), (9.5, -2.0), (3.0, 5.0)]), (100, 80, [(0.0, 0.0), (2.0, 1.0), (3.5, -1.0)])] {
            let meter = PictureShiftMeter(size: 128)
            var reference = PhaseCorrelator(size: 128)
            var previous: (Double, Double)?
            for (ox, oy) in moves {
                let luma = Self.picture(width: w, height: h, ox: ox, oy: oy)
                let got = luma.withUnsafeBufferPointer { b in meter.next(width: w, height: h) { b.baseAddress! + $0 * w } }
                let (samples, k) = PhaseCorrelator.downscale(luma, width: w, height: h, size: 128)
                let want = reference.next(samples).map { (dx: $0.dx * Double(k), dy: $0.dy * Double(k)) }
                XCTAssertEqual(got == nil, want == nil)
                if let got, let want, let (px, py) = previous {
                    // Bytes against doubles: a few hundredths of a pixel (times the downscale).
                    XCTAssertEqual(got.dx, want.dx, accuracy: 0.05 * Double(k), "\(w)x\(h) \(ox),\(oy)")
                    XCTAssertEqual(got.dy, want.dy, accuracy: 0.05 * Double(k), "\(w)x\(h) \(ox),\(oy)")
                    // And the truth: the window moved right and down, the content left and up.
                    XCTAssertEqual(got.dx, -(ox - px), accuracy: 0.3 * Double(k)); XCTAssertEqual(got.dy, -(oy - py), accuracy: 0.3 * Double(k))
                }
                previous = (ox, oy)
            }
        }
    }
}
