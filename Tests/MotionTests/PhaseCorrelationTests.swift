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
        for y in 0..<size { for x in 0..<size {
            let u = Double(x) + ox + 20, v = Double(y) + oy + 20
            let x0 = Int(u), y0 = Int(v), fx = u - Double(x0), fy = v - Double(y0)
            let top = g(x0, y0) * (1 - fx) + g(x0 + 1, y0) * fx, bottom = g(x0, y0 + 1) * (1 - fx) + g(x0 + 1, y0 + 1) * fx
            out[y * size + x] = top * (1 - fy) + bottom * fy
        } }
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

    func testDownscaleAveragesTheCentreSquare() {
        let luma = [UInt8](repeating: 10, count: 8 * 4) + [UInt8](repeating: 30, count: 8 * 4)   // 8x8, top half 10
        let (s, k) = PhaseCorrelator.downscale(luma, width: 8, height: 8, size: 4)
        XCTAssertEqual(k, 2)
        XCTAssertEqual(s[0], 10); XCTAssertEqual(s[15], 30)
    }
}
