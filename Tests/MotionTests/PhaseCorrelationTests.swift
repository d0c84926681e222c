import Motion
import XCTest

final class PhaseCorrelationTests: XCTestCase {
    /// A seeded noise texture (broadband, like real footage), sampled bilinearly at (x + ox, y + oy).
    static let grid: [Double] = {
        var state: UInt64 = 12345
        return (0..<(128 * 128)).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 56)
        }
    }()
    func texture(_ size: Int, ox: Double, oy: Double) -> [Double] {
        func g(_ x: Int, _ y: Int) -> Double { Self.grid[y * 128 + x] }
        var out = [Double](repeating: 0, count: size * size)
        for y in 0..<size {
            for x in 0..<size {
                let u = Double(x) + ox + 20, v = Double(y) + oy + 20
                let x0 = Int(u), y0 = Int(v), fx = u - Double(x0), fy = v - Double(y0)
                let top = g(x0, y0) * (1 - fx) + g(x0 + 1, y0) * fx, bottom = g(x0, y0 + 1) * (1 - fx) + g(x0 + 1, y0 + 1) * fx
                out[y * size + x] = top * (1 - fy) + bottom * fy
            }
        }
        return out
    }

    func testFindsWholeAndFractionalShiftsWithTheirSign() {
        var pc = PhaseCorrelator(size: 64)
        XCTAssertNil(pc.next(texture(64, ox: 0, oy: 0)))
        // The window looks 3 px further right and 2 px further down: the content moves left and up.
        let s = pc.next(texture(64, ox: 3, oy: 2))!
        XCTAssertEqual(s.dx, -3, accuracy: 0.25); XCTAssertEqual(s.dy, -2, accuracy: 0.25)
        let f = pc.next(texture(64, ox: 3 - 1.5, oy: 2))!
        XCTAssertEqual(f.dx, 1.5, accuracy: 0.3); XCTAssertEqual(f.dy, 0, accuracy: 0.25)
    }

    /// A band-limited picture with exact sub-sample shifts: 500 seeded Gaussian blobs (sigma 1.2
    /// to 4 samples, bright and dark) evaluated where the window looks, (x + ox, y + oy). No
    /// resampling filter is involved, so the true shift is exactly the one asked for (bilinear
    /// resampling would itself shift the phase of each frequency differently).
    struct Blobs {
        var x: [Double] = [], y: [Double] = [], s: [Double] = [], a: [Double] = []
        init(size: Int) {
            var state: UInt64 = 2024
            func uniform(_ lo: Double, _ hi: Double) -> Double {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return lo + (hi - lo) * Double(state >> 11) / Double(1 << 53)
            }
            for _ in 0..<500 {
                x.append(uniform(-20, Double(size) + 20)); y.append(uniform(-20, Double(size) + 20))
                s.append(uniform(1.2, 4)); a.append(uniform(-60, 60))
            }
        }
        func picture(_ size: Int, ox: Double, oy: Double) -> [Double] {
            var out = [Double](repeating: 128, count: size * size)
            for i in x.indices {
                // Each blob only where it is above 1e-4 of its height (4.3 sigma).
                let r = 4.3 * s[i], cx = x[i] - ox, cy = y[i] - oy
                let x0 = max(0, Int((cx - r).rounded(.down))), x1 = min(size - 1, Int((cx + r).rounded(.up)))
                let y0 = max(0, Int((cy - r).rounded(.down))), y1 = min(size - 1, Int((cy + r).rounded(.up)))
                guard x0 <= x1, y0 <= y1 else { continue }
                for py in y0...y1 {
                    for px in x0...x1 {
                        let dx = Double(px) - cx, dy = Double(py) - cy
                        out[py * size + px] += a[i] * exp(-(dx * dx + dy * dy) / (2 * s[i] * s[i]))
                    }
                }
            }
            return out
        }
    }

    /// The sub-sample estimate is not pulled towards whole samples: over fractional shifts 0 to
    /// 0.9 (x) and 0.37 to 0.82 (y), every shift within 0.03 samples. (The parabola through the
    /// raw peak this replaced was off by up to 0.13 samples on such blobs in a numpy prototype of
    /// this test, and by 0.13 px rms on make-synthetic-camera-2's jump50 clip: the 1.06 ms miss.)
    func testFractionalShiftsAreMeasuredWithoutBiasTowardsWholeSamples() {
        let n = 128
        let blobs = Blobs(size: n)
        let first = blobs.picture(n, ox: 0, oy: 0)
        var worst = 0.0
        for step in 0..<10 {
            let f = Double(step) / 10
            let ox = 2 + f, oy = -3 + 0.37 + f / 2
            var pc = PhaseCorrelator(size: n)
            _ = pc.next(first)
            let s = pc.next(blobs.picture(n, ox: ox, oy: oy))!
            // The window looks (ox, oy) further on: the content moves by (-ox, -oy).
            XCTAssertEqual(s.dx, -ox, accuracy: 0.03, "dx at fraction \(f)")
            XCTAssertEqual(s.dy, -oy, accuracy: 0.03, "dy at fraction \(f)")
            XCTAssertGreaterThan(s.peak, 0.5, "a moved copy of the same picture peaks high")
            worst = max(worst, abs(s.dx + ox), abs(s.dy + oy))
        }
        print(String(format: "PhaseCorrelator on exactly shifted blobs: worst error %.4f samples", worst))
    }

    func testThePeakFitIsExactForAGaussianAndStaysInsideHalfASample() {
        for centre in stride(from: -0.5, through: 0.5, by: 0.125) {
            func g(_ x: Double) -> Double { 3 * exp(-(x - centre) * (x - centre) / (2 * PhaseCorrelationPeak.sigma * PhaseCorrelationPeak.sigma)) }
            XCTAssertEqual(PhaseCorrelationPeak.offset(g(-1), g(0), g(1)), centre, accuracy: 1e-12)
        }
        // No clean peak (a neighbour at or below zero): the parabola, clamped to half a sample.
        XCTAssertEqual(PhaseCorrelationPeak.offset(0, 1, 0.5), 1.0 / 6, accuracy: 1e-12)
        XCTAssertEqual(PhaseCorrelationPeak.offset(-1, 1, 1), 0.5)
        XCTAssertEqual(PhaseCorrelationPeak.offset(1, 1, 1), 0, "flat: no offset")
        XCTAssertEqual(PhaseCorrelationPeak.weight(kx: 0, ky: 0, size: 64), 1)
        XCTAssertEqual(PhaseCorrelationPeak.weight(kx: 5, ky: 3, size: 64), PhaseCorrelationPeak.weight(kx: 59, ky: 61, size: 64), "k and k - n are one frequency")
    }

    /// A picture smaller than the square (snake's 128 samples on a 160x120 clip trapped here):
    /// its pixels one to one at the centre, the edges repeated beyond it.
    func testDownscaleOfAPictureSmallerThanTheSquareRepeatsItsEdges() {
        let luma: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]  // 4 x 3
        let (s, k) = PhaseCorrelator.downscale(luma, width: 4, height: 3, size: 8)
        XCTAssertEqual(k, 1)
        XCTAssertEqual(s.count, 64)
        // x0 = (4 - 8) / 2 = -2, y0 = (3 - 8) / 2 = -2 (Swift's division truncates): rows -2...5, columns -2...5.
        XCTAssertEqual(Array(s[0..<8]), [1, 1, 1, 2, 3, 4, 4, 4])
        XCTAssertEqual(Array(s[(3 * 8)..<(4 * 8)]), [5, 5, 5, 6, 7, 8, 8, 8])
        XCTAssertEqual(Array(s[(7 * 8)..<(8 * 8)]), [9, 9, 9, 10, 11, 12, 12, 12])
    }

    func testDownscaleAveragesTheCentreSquare() {
        let luma = [UInt8](repeating: 10, count: 8 * 4) + [UInt8](repeating: 30, count: 8 * 4)  // 8x8, top half 10
        let (s, k) = PhaseCorrelator.downscale(luma, width: 8, height: 8, size: 4)
        XCTAssertEqual(k, 2)
        XCTAssertEqual(s[0], 10); XCTAssertEqual(s[15], 30)
    }
}
