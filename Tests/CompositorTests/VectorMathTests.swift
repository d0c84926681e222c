import Compositor
import XCTest

/// The vector RGB kernel against the per-pixel definition (each 2x2 block to RGB, BT.709, with
/// `apply(SIMD3)`, clipped, back; chroma the mean of the block's pixels), on a picture of odd
/// size, so the partial chunks at the right edge and the half blocks at both edges are covered.
final class VectorMathTests: XCTestCase {
    struct Swap: RGBTransform {  // only the per-pixel form: the kernel falls back to it
        func apply(_ c: SIMD3<Float>) -> SIMD3<Float> { SIMD3(c.z, c.x, c.y) }
    }

    func reference<T: RGBTransform>(_ t: T, _ input: YUVImage, _ output: YUVImage) {
        func clamp8(_ x: Float) -> UInt8 { UInt8(max(0, min(255, x.rounded()))) }
        for by in 0..<input.u.height {
            for bx in 0..<input.u.width {
                let pb = (Float(input.u[bx, by]) - 128) / 224, pr = (Float(input.v[bx, by]) - 128) / 224
                var sb: Float = 0, sr: Float = 0, n: Float = 0
                for y in (2 * by)..<min(input.height, 2 * by + 2) {
                    for x in (2 * bx)..<min(input.width, 2 * bx + 2) {
                        let yn = (Float(input.y[x, y]) - 16) / 219
                        // BT.709, the working signal's matrix.
                        var c = t.apply(SIMD3(yn + 1.5748 * pr, yn - 0.187324 * pb - 0.468124 * pr, yn + 1.8556 * pb))
                        c = SIMD3(max(0, min(1, c.x)), max(0, min(1, c.y)), max(0, min(1, c.z)))
                        let l = 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z
                        output.y[x, y] = clamp8(16 + 219 * l)
                        sb += (c.z - l) / 1.8556; sr += (c.x - l) / 1.5748; n += 1
                    }
                }
                output.u[bx, by] = clamp8(128 + 224 * sb / n); output.v[bx, by] = clamp8(128 + 224 * sr / n)
            }
        }
    }

    func check<T: RGBTransform>(_ t: T, _ name: String) {
        let w = 37, h = 23
        let input = YUVBuffer(width: w, height: h), a = YUVBuffer(width: w, height: h), b = YUVBuffer(width: w, height: h)
        var seed: UInt32 = 12345
        func next() -> UInt8 { seed = seed &* 1_664_525 &+ 1_013_904_223; return UInt8(truncatingIfNeeded: seed >> 24) }
        let img = input.image
        for y in 0..<h { for x in 0..<w { img.y[x, y] = next() } }
        for y in 0..<img.u.height { for x in 0..<img.u.width { img.u[x, y] = next(); img.v[x, y] = next() } }
        var kernel = RGBPointKernel(t)
        kernel.apply(img, into: a.image)
        reference(t, img, b.image)
        var worst = 0, differing = 0, total = 0
        for (p, q) in [(a.image.y, b.image.y), (a.image.u, b.image.u), (a.image.v, b.image.v)] {
            for y in 0..<p.height {
                for x in 0..<p.width {
                    let d = abs(Int(p[x, y]) - Int(q[x, y])); worst = max(worst, d); differing += d > 0 ? 1 : 0; total += 1
                }
            }
        }
        // Float rounding may differ in the last bit (pow as polynomials, sums in another order):
        // at most one level, and on almost no sample.
        XCTAssertLessThanOrEqual(worst, 1, name)
        XCTAssertLessThanOrEqual(differing, total / 200, name)
    }

    func testVectorKernelMatchesThePerPixelDefinitionOnAnOddSize() {
        check(RosyTransform(), "rosy"); check(SepiaTransform(intensity: 0.7), "sepia")
        check(BrightnessTransform(amount: 0.2), "brightness"); check(ContrastTransform(amount: 1.5), "contrast")
        check(SaturationTransform(amount: 1.8), "saturation"); check(ExposureTransform(ev: 1), "exposure")
        check(GammaTransform(gamma: 0.45), "gamma 0.45"); check(GammaTransform(gamma: 2.2), "gamma 2.2")
        check(PosterizeTransform(levels: 5), "posterize"); check(Swap(), "per-pixel fallback")
        var t: [SIMD3<Float>] = []
        for b in 0..<5 { for g in 0..<5 { for r in 0..<5 { let v = SIMD3(Float(r), Float(g), Float(b)) / 4; t.append(v * v * SIMD3(1, 0.9, 0.8)) } } }
        let lut = CubeLUT(size: 5, table: t)
        check(LUTTransform(lut, .trilinear), "lut trilinear"); check(LUTTransform(lut, .tetrahedral), "lut tetrahedral")
    }
}
