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
}
