import Compositor
import XCTest

/// The VideoSnake renderer against values worked out by hand from its definition.
final class SnakeEffectTests: XCTestCase {
    func picture(_ w: Int, _ h: Int, luma: (Int, Int) -> Int) -> YUVBuffer {
        let b = YUVBuffer(width: w, height: h)
        PlaneKernels.fill(b.image, YUVColor(y: 16, u: 128, v: 128))
        for y in 0..<h { for x in 0..<w { b.image.y[x, y] = UInt8(luma(x, y)) } }
        return b
    }

    func testFirstFrameIsTheCurrentPictureAtAQuarterSizeCentredOnBlack() {
        // 16x16, luma 10x + y. The front quad is 4x4 at [6, 10); pixel 6's centre is 1/8 of the way
        // in, which samples the source at 1/8 * 16 - 0.5 = 1.5: bilinear of a linear ramp is exact.
        let src = picture(16, 16) { x, y in 10 * x + y }, out = YUVBuffer(width: 16, height: 16)
        let r = SnakeRenderer(width: 16, height: 16)
        withExtendedLifetime(src) { r.render(src.image, motion: nil, into: out.image) }
        XCTAssertEqual(out.image.y[6, 6], 17)  // 10 * 1.5 + 1.5 = 16.5 → 17
        XCTAssertEqual(out.image.y[9, 9], 149)  // src 13.5: 135 + 13.5 = 148.5 → 149
        XCTAssertEqual(out.image.y[7, 6], 57)  // src x 5.5, y 1.5: 55 + 1.5 = 56.5 → 57
        XCTAssertEqual(out.image.y[5, 6], 16, "outside the quad: black")
        XCTAssertEqual(out.image.y[0, 0], 16)
    }

    func testEveryQuadHasABlackBorderOfOnePercent() {
        // frontScale 1: the current frame fills the canvas; 1% of 200 px is 2 px of border.
        var p = SnakeParameters(); p.frontScale = 1
        let src = picture(200, 200) { _, _ in 200 }, out = YUVBuffer(width: 200, height: 200)
        let r = SnakeRenderer(width: 200, height: 200, parameters: p)
        withExtendedLifetime(src) { r.render(src.image, motion: nil, into: out.image) }
        XCTAssertEqual(out.image.y[0, 100], 16); XCTAssertEqual(out.image.y[1, 100], 16)
        XCTAssertEqual(out.image.y[2, 100], 200); XCTAssertEqual(out.image.y[197, 100], 200)
        XCTAssertEqual(out.image.y[198, 100], 16); XCTAssertEqual(out.image.y[100, 199], 16)
    }

    func testVelocityIntegratesAccelerationAndDecaysWithoutMotion() {
        let r = SnakeRenderer(width: 16, height: 16)
        r.advance(SnakeMotion(ax: 1, ay: -2, time: 0))  // first sample: dt = 0
        XCTAssertEqual(r.velocity.x, 0)
        r.advance(SnakeMotion(ax: 1, ay: -2, time: 0.5))  // v = (0 + 1 * 0.5) * 0.75
        XCTAssertEqual(r.velocity.x, 0.375, accuracy: 1e-12)
        XCTAssertEqual(r.velocity.y, -0.75, accuracy: 1e-12)
        // Shift: t = v * 0.01 * 16 = 0.06 NDC → 0.06 * 16 / 2 = 0.48 px across; y: -0.12 * 8 = -0.96 px.
        XCTAssertEqual(r.trailShift.dx, 0.48, accuracy: 1e-12)
        XCTAssertEqual(r.trailShift.dy, -0.96, accuracy: 1e-12)
        r.advance(nil)  // a frame without motion: decay only
        XCTAssertEqual(r.velocity.x, 0.28125, accuracy: 1e-12)
        var mirrored = SnakeParameters(); mirrored.mirror = true
        r.parameters = mirrored
        XCTAssertEqual(r.trailShift.dx, -0.36, accuracy: 1e-12, "--mirror flips the horizontal motion")
    }

    func testTheTrailIsThePreviousOutputShrunkAndMovedByTheVelocity() {
        // 40x40 of luma 200. Frame 1: a 10x10 block at [15, 25), black elsewhere.
        // Frame 2 with ax = 4 over dt = 0.5: v = 2 * 0.75 = 1.5 → t = 1.5 * 0.01 * 40 = 0.6 NDC = 12 px.
        // The trail quad is 34 px wide from 20 + 12 - 17 = 15, and 34 px tall from 3.
        let src = picture(40, 40) { _, _ in 200 }, out = YUVBuffer(width: 40, height: 40)
        let r = SnakeRenderer(width: 40, height: 40)
        withExtendedLifetime(src) {
            r.render(src.image, motion: SnakeMotion(ax: 4, ay: 0, time: 0), into: out.image)
            XCTAssertEqual(out.image.y[15, 20], 200); XCTAssertEqual(out.image.y[14, 20], 16)
            r.render(src.image, motion: SnakeMotion(ax: 4, ay: 0, time: 0.5), into: out.image)
        }
        // Pixel 31: (31.5 - 15) / 34 = 0.4853 of the quad → frame 1's x = 18.9: inside its block.
        XCTAssertEqual(out.image.y[31, 20], 200)
        // Pixel 39: (39.5 - 15) / 34 = 0.7206 → x = 28.3: frame 1 was black there.
        XCTAssertEqual(out.image.y[39, 20], 16)
        // The front quad is drawn on top, unshifted.
        XCTAssertEqual(out.image.y[20, 20], 200)
        // Pixel 27 (27.5 - 15) / 34 = 0.3676 → x = 14.2: between frame 1's black 14 and bright 15.
        XCTAssertEqual(out.image.y[27, 20], UInt8((16 + (200 - 16) * 0.2059).rounded()))
    }
}
