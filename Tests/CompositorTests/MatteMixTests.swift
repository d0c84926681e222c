import Compositor
import XCTest

/// `--matte`'s per-pixel mix on 2x2 pictures, against values worked out by hand.
final class MatteMixTests: XCTestCase {
    func picture(y: [UInt8], u: UInt8, v: UInt8) -> YUVBuffer {
        let b = YUVBuffer(width: 2, height: 2)
        let img = b.image
        for i in 0..<4 { img.y.row(i / 2)[i % 2] = y[i] }
        img.u.row(0)[0] = u; img.v.row(0)[0] = v
        return b
    }

    func testWeightsFollowTheMatteLumaInVideoRange() {
        let mix = MatteMix(factor: 1)
        XCTAssertEqual(mix.weight(0), 0)
        XCTAssertEqual(mix.weight(16), 0)
        XCTAssertEqual(mix.weight(126), 129)  // (126 - 16) / 219 * 256 = 128.58
        XCTAssertEqual(mix.weight(235), 256)
        XCTAssertEqual(mix.weight(255), 256)
        XCTAssertEqual(MatteMix(factor: 0.5).weight(235), 128)
        XCTAssertEqual(MatteMix(factor: 0).weight(235), 0)
        // An alpha plane: full range.
        let alpha = MatteMix(factor: 1, fullRange: true)
        XCTAssertEqual([alpha.weight(0), alpha.weight(16), alpha.weight(128), alpha.weight(255)], [0, 16, 129, 256])
    }

    func testEachLumaPixelTakesItsOwnWeightAndChromaTheMeanOfItsFour() {
        let over = picture(y: [200, 200, 200, 200], u: 50, v: 240)
        let under = picture(y: [100, 100, 100, 100], u: 150, v: 16)
        // Black, white, mid grey, below black; the matte's chroma is colour and must not matter.
        let matte = picture(y: [16, 235, 126, 0], u: 0, v: 255)
        let out = YUVBuffer(width: 2, height: 2)
        MatteMix(factor: 1).apply(over: over.image, under: under.image, matte: matte.image.y, into: out.image)
        let o = out.image
        // (100 * 127 + 200 * 129 + 128) >> 8 = 150
        XCTAssertEqual([o.y.row(0)[0], o.y.row(0)[1], o.y.row(1)[0], o.y.row(1)[1]], [100, 200, 150, 100])
        // Mean weight (0 + 256 + 129 + 0 + 2) >> 2 = 96: U (150 * 160 + 50 * 96 + 128) >> 8 = 113,
        // V (16 * 160 + 240 * 96 + 128) >> 8 = 100.
        XCTAssertEqual(o.u.row(0)[0], 113)
        XCTAssertEqual(o.v.row(0)[0], 100)
    }

    func testTheMixFactorScalesTheMatteAndTheOutputMayBeAnInput() {
        let over = picture(y: [200, 200, 200, 200], u: 128, v: 128)
        let under = picture(y: [100, 100, 100, 100], u: 128, v: 128)
        let matte = picture(y: [235, 235, 16, 16], u: 128, v: 128)
        MatteMix(factor: 0.5).apply(over: over.image, under: under.image, matte: matte.image.y, into: under.image)
        let o = under.image
        // w = 128: (100 * 128 + 200 * 128 + 128) >> 8 = 150
        XCTAssertEqual([o.y.row(0)[0], o.y.row(0)[1], o.y.row(1)[0], o.y.row(1)[1]], [150, 150, 100, 100])
        XCTAssertEqual(o.u.row(0)[0], 128)
    }
}
