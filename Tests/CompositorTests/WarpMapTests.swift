import Compositor
import XCTest

/// The stabiliser's warp: bilinear sampling through an interpolated grid, 8 and 10 bit.
final class WarpMapTests: XCTestCase {
    func picture(_ w: Int, _ h: Int) -> YUVBuffer {
        let b = YUVBuffer(width: w, height: h)
        let im = b.image
        for y in 0..<h { for x in 0..<w { im.y[x, y] = UInt8((x * 7 + y * 13) % 256) } }
        for y in 0..<im.u.height { for x in 0..<im.u.width { im.u[x, y] = UInt8((x * 5 + y * 3) % 256); im.v[x, y] = UInt8((x + 2 * y) % 256) } }
        return b
    }

    func testIdentityGridCopies() {
        for (w, h) in [(64, 36), (37, 21), (6, 4)] {
            let src = picture(w, h), dst = YUVBuffer(width: w, height: h)
            let map = WarpMap(width: w, height: h, cell: 8)
            map.setIdentity()
            map.warp(src.image, into: dst.image)
            for y in 0..<h { for x in 0..<w { XCTAssertEqual(dst.image.y[x, y], src.image.y[x, y], "\(w)x\(h) at \(x),\(y)") } }
            // Chroma sits at the luma-centred positions, which the identity map keeps.
            for y in 0..<src.image.u.height { for x in 0..<src.image.u.width { XCTAssertEqual(dst.image.u[x, y], src.image.u[x, y], "\(w)x\(h) chroma at \(x),\(y)") } }
        }
    }

    func testHalfPixelShiftAveragesNeighboursAndEdgesRepeat() {
        let w = 48, h = 20
        let src = YUVBuffer(width: w, height: h), dst = YUVBuffer(width: w, height: h)
        for y in 0..<h { for x in 0..<w { src.image.y[x, y] = UInt8(4 * x) } }
        let map = WarpMap(width: w, height: h, cell: 16)
        map.setIdentity()
        for k in 0..<(map.columns * map.rows) { map.grid[2 * k] += 2.5 }
        map.warp(src.image, into: dst.image)
        for y in 0..<h {
            for x in 0..<(w - 3) { XCTAssertEqual(Int(dst.image.y[x, y]), 4 * x + 10, "at \(x),\(y)") }
            // Past the right edge: the last column repeated.
            XCTAssertEqual(Int(dst.image.y[w - 1, y]), 4 * (w - 1))
        }
    }

    func testTenBitWarpMatchesTheEightBitOneScaled() {
        let w = 40, h = 24
        let b8 = picture(w, h)
        let src = YUV16Buffer(width: w, height: h), dst = YUV16Buffer(width: w, height: h), out8 = YUVBuffer(width: w, height: h)
        for y in 0..<h { for x in 0..<w { src.image.y[x, y] = UInt16(b8.image.y[x, y]) * 4 } }
        let map = WarpMap(width: w, height: h, cell: 8)
        map.setIdentity()
        for k in 0..<(map.columns * map.rows) { map.grid[2 * k] += 0.25 * Float(k % 3); map.grid[2 * k + 1] += 0.5 }
        map.warp(src.image, into: dst.image)
        map.warp(b8.image, into: out8.image)
        for y in 0..<h { for x in 0..<w { XCTAssertEqual(Double(dst.image.y[x, y]) / 4, Double(out8.image.y[x, y]), accuracy: 0.75) } }
    }

    /// The C kernel (AVX2 gathers on a CPU that has them, one pixel at a time otherwise) against
    /// bilinear sampling written here from the documented rule: the map interpolated between
    /// nodes, the coordinate clamped to the plane, the four neighbours weighted, rounded half up.
    /// A map that turns, scales and runs off every edge; widths not a multiple of 8.
    func testKernelMatchesBilinearSamplingWrittenHere() {
        let w = 203, h = 61
        let src = picture(w, h), dst = YUVBuffer(width: w, height: h)
        let map = WarpMap(width: w, height: h, cell: 16)
        for j in 0..<map.rows {
            for i in 0..<map.columns {
                let x = Float(min(i * 16, w - 1)), y = Float(min(j * 16, h - 1))
                map.grid[2 * (j * map.columns + i)] = 1.07 * x - 0.05 * y - 6.3
                map.grid[2 * (j * map.columns + i) + 1] = 0.04 * x + 1.09 * y - 3.7
            }
        }
        map.warp(src.image, into: dst.image)
        func sample(_ x: Double, _ y: Double) -> Int {
            let sx = min(max(x, 0), Double(w - 1)), sy = min(max(y, 0), Double(h - 1))
            let ix = min(Int(sx), w - 2), iy = min(Int(sy), h - 2)
            let fx = sx - Double(ix), fy = sy - Double(iy)
            func p(_ x: Int, _ y: Int) -> Double { Double(src.image.y[x, y]) }
            let top = p(ix, iy) + (p(ix + 1, iy) - p(ix, iy)) * fx, bottom = p(ix, iy + 1) + (p(ix + 1, iy + 1) - p(ix, iy + 1)) * fx
            return Int(top + (bottom - top) * fy + 0.5)
        }
        var exact = 0, worst = 0
        for y in 0..<h {
            for x in 0..<w {
                // The map is affine, so its interpolation between nodes is the same affine map.
                let want = sample(1.07 * Double(x) - 0.05 * Double(y) - 6.3, 0.04 * Double(x) + 1.09 * Double(y) - 3.7)
                let d = abs(Int(dst.image.y[x, y]) - want)
                worst = max(worst, d)
                if d == 0 { exact += 1 }
            }
        }
        // Float against double rounding: a sample at a half may round the other way.
        XCTAssertLessThanOrEqual(worst, 1)
        XCTAssertGreaterThan(Double(exact) / Double(w * h), 0.98)
    }
}
