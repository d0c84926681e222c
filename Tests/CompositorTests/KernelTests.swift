import Compositor
import XCTest

final class ChromaKeyTests: XCTestCase {
    /// GPUImage's shader, in RGB, as the reference the YUV table must agree with.
    func gpuImageAlpha(_ c: RGB, key: RGB, similarity: Double = 0.4, smoothness: Double = 0.1) -> Double {
        func cbcr(_ c: RGB) -> (Double, Double) {
            let r = Double(c.r) / 255, g = Double(c.g) / 255, b = Double(c.b) / 255
            let y = 0.2989 * r + 0.5866 * g + 0.1145 * b
            return (0.5647 * (b - y), 0.7132 * (r - y))
        }
        let (cb, cr) = cbcr(c), (kb, kr) = cbcr(key)
        let d = ((cb - kb) * (cb - kb) + (cr - kr) * (cr - kr)).squareRoot()
        let t = min(1, max(0, (d - similarity) / smoothness))
        return 1 - t * t * (3 - 2 * t)
    }

    func testTableAgreesWithGPUImagesRGBFormulaOnTheUVPlanes() {
        let key = ChromaKey()
        let colours: [RGB] = [
            RGB(r: 0, g: 255, b: 0), RGB(r: 255, g: 0, b: 0), RGB(r: 128, g: 128, b: 128),
            RGB(r: 40, g: 200, b: 60), RGB(r: 90, g: 170, b: 90), RGB(r: 0, g: 0, b: 255),
            RGB(r: 120, g: 180, b: 100), RGB(r: 255, g: 255, b: 255)
        ]
        for c in colours {
            let yuv = YUVColor(rgb: c)
            XCTAssertEqual(key.alpha(u: yuv.u, v: yuv.v), gpuImageAlpha(c, key: key.keyColor), accuracy: 0.04, "\(c)")
        }
        // The defaults key pure green fully and keep red and grey fully.
        XCTAssertEqual(key.alpha(u: YUVColor(rgb: RGB(r: 0, g: 255, b: 0)).u, v: YUVColor(rgb: RGB(r: 0, g: 255, b: 0)).v), 1)
        XCTAssertEqual(key.alpha(u: 128, v: 128), 0)
    }

    func testKeyingReplacesGreenByTheBackgroundAndKeepsTheRest() {
        let w = 8, h = 4
        let fg = YUVBuffer(width: w, height: h), bg = YUVBuffer(width: w, height: h), out = YUVBuffer(width: w, height: h)
        let green = YUVColor(rgb: RGB(r: 0, g: 255, b: 0)), red = YUVColor(rgb: RGB(r: 255, g: 0, b: 0))
        PlaneKernels.fill(fg.image, green)
        PlaneKernels.fill(fg.image, red, in: Rect(x: 4, y: 0, width: 4, height: 4))
        PlaneKernels.fill(bg.image, YUVColor(y: 200, u: 100, v: 150))
        ChromaKey().apply(foreground: fg.image, background: bg.image, into: out.image)
        XCTAssertEqual(out.image.y[0, 0], 200); XCTAssertEqual(out.image.u[0, 0], 100); XCTAssertEqual(out.image.v[1, 1], 150)
        XCTAssertEqual(out.image.y[5, 3], red.y); XCTAssertEqual(out.image.u[3, 1], red.u); XCTAssertEqual(out.image.v[2, 0], red.v)
    }

    func testSoftEdgeBlendsInProportionToAlpha() {
        // Pick a chroma whose alpha is strictly between 0 and 1 and check the blend value.
        let key = ChromaKey()
        guard
            let (u, v) = (0..<256).lazy.flatMap({ u in (0..<256).lazy.map { v in (UInt8(u), UInt8(v)) } })
                .first(where: { key.alpha(u: $0.0, v: $0.1) > 0.3 && key.alpha(u: $0.0, v: $0.1) < 0.7 })
        else {
            return XCTFail("no soft edge in the table")
        }
        let fg = YUVBuffer(width: 2, height: 2), bg = YUVBuffer(width: 2, height: 2), out = YUVBuffer(width: 2, height: 2)
        PlaneKernels.fill(fg.image, YUVColor(y: 100, u: u, v: v))
        PlaneKernels.fill(bg.image, YUVColor(y: 200, u: 128, v: 128))
        key.apply(foreground: fg.image, background: bg.image, into: out.image)
        let a = key.alpha(u: u, v: v)
        XCTAssertEqual(Double(out.image.y[1, 1]), 100 * (1 - a) + 200 * a, accuracy: 1)
    }

    func testKeyingInPlaceOverTheBackgroundGivesTheSameResult() {
        let fg = YUVBuffer(width: 6, height: 6), bg = YUVBuffer(width: 6, height: 6), out = YUVBuffer(width: 6, height: 6)
        PlaneKernels.fill(fg.image, YUVColor(rgb: RGB(r: 0, g: 255, b: 0)))
        PlaneKernels.fill(fg.image, YUVColor(y: 90, u: 120, v: 140), in: Rect(x: 2, y: 2, width: 2, height: 2))
        PlaneKernels.fill(bg.image, YUVColor(y: 30, u: 60, v: 90))
        ChromaKey().apply(foreground: fg.image, background: bg.image, into: out.image)
        ChromaKey().apply(foreground: fg.image, background: bg.image, into: bg.image)
        for y in 0..<6 { for x in 0..<6 { XCTAssertEqual(bg.image.y[x, y], out.image.y[x, y]) } }
    }
}

final class PlaneKernelTests: XCTestCase {
    func testFixedPointWeightsSumTo256AndKeepProportions() {
        XCTAssertEqual(PlaneKernels.fixedPointWeights([1, 1]), [128, 128])
        XCTAssertEqual(PlaneKernels.fixedPointWeights([1, 1, 1]).reduce(0, +), 256)
        XCTAssertEqual(PlaneKernels.fixedPointWeights([3, 1]), [192, 64])
        XCTAssertEqual(PlaneKernels.fixedPointWeights([1, 0]), [256, 0])
    }

    func testMixIsTheWeightedAverage() {
        let a = YUVBuffer(width: 4, height: 2), b = YUVBuffer(width: 4, height: 2), c = YUVBuffer(width: 4, height: 2)
        let out = YUVBuffer(width: 4, height: 2)
        PlaneKernels.fill(a.image, YUVColor(y: 0, u: 0, v: 255))
        PlaneKernels.fill(b.image, YUVColor(y: 200, u: 100, v: 255))
        PlaneKernels.fill(c.image, YUVColor(y: 100, u: 50, v: 0))
        PlaneKernels.mix([a.image, b.image], weights: PlaneKernels.fixedPointWeights([1, 1]), into: out.image)
        XCTAssertEqual(out.image.y[3, 1], 100); XCTAssertEqual(out.image.u[0, 0], 50); XCTAssertEqual(out.image.v[1, 0], 255)
        PlaneKernels.mix([a.image, b.image, c.image], weights: PlaneKernels.fixedPointWeights([1, 2, 1]), into: out.image)
        XCTAssertEqual(out.image.y[0, 0], 125)  // (0 + 400 + 100) / 4
        XCTAssertEqual(out.image.v[0, 0], 191)  // (255 + 510 + 0) / 4 = 191.25
    }

    func testCopyIntoACropTouchesOnlyThatRectangle() {
        let src = YUVBuffer(width: 4, height: 4), dst = YUVBuffer(width: 8, height: 8)
        PlaneKernels.fill(src.image, YUVColor(y: 235, u: 10, v: 20))
        PlaneKernels.fill(dst.image, .black)
        PlaneKernels.copy(src.image, into: dst.image.cropped(to: Rect(x: 4, y: 4, width: 4, height: 4)))
        XCTAssertEqual(dst.image.y[4, 4], 235); XCTAssertEqual(dst.image.y[7, 7], 235)
        XCTAssertEqual(dst.image.y[3, 4], 16); XCTAssertEqual(dst.image.y[4, 3], 16)
        XCTAssertEqual(dst.image.u[2, 2], 10); XCTAssertEqual(dst.image.u[1, 2], 128)
    }
}

final class LayoutTests: XCTestCase {
    func testFitKeepsAspectCentresAndUsesEvenEdges() {
        let place = Rect(x: 0, y: 0, width: 1920, height: 1080)
        XCTAssertEqual(Layout.fit(Size(width: 640, height: 480), into: place), Rect(x: 240, y: 0, width: 1440, height: 1080))
        XCTAssertEqual(Layout.fit(Size(width: 1920, height: 1080), into: place), place)
        let odd = Layout.fit(Size(width: 321, height: 241), into: Rect(x: 160, y: 120, width: 160, height: 120))
        XCTAssertEqual(odd.width % 2, 0); XCTAssertEqual(odd.height % 2, 0); XCTAssertEqual(odd.x % 2, 0); XCTAssertEqual(odd.y % 2, 0)
        XCTAssertEqual(odd, Rect(x: 160, y: 120, width: 160, height: 120))
    }

    func testQuadPlacesInputsInReadingOrder() {
        let l = Layout(blend: .quad, canvas: Size(width: 320, height: 240), inputs: Array(repeating: Size(width: 320, height: 240), count: 3))
        XCTAssertEqual(
            l.places,
            [
                Rect(x: 0, y: 0, width: 160, height: 120), Rect(x: 160, y: 0, width: 160, height: 120),
                Rect(x: 0, y: 120, width: 160, height: 120)
            ])
        XCTAssertEqual(l.pictures, l.places)
    }

    func testQuadCellsStayEvenOnAnAwkwardCanvas() {
        let l = Layout(blend: .quad, canvas: Size(width: 322, height: 242), inputs: Array(repeating: Size(width: 16, height: 9), count: 4))
        for r in l.places { XCTAssertEqual(r.x % 2, 0); XCTAssertEqual(r.y % 2, 0); XCTAssertEqual(r.width % 2, 0) }
        XCTAssertEqual(l.places.map(\.width).reduce(0, +), 2 * 322)
    }
}

final class AudioMixerTests: XCTestCase {
    func testSumsWithGainsAndPassesQuietSignalsUnchanged() {
        let a: [Float] = [0.1, -0.2, 0.3], b: [Float] = [0.2, 0.2, -0.1]
        var out = [Float](repeating: 9, count: 3)
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                AudioMixer(gains: [1, 0.5]).mix([pa.baseAddress, pb.baseAddress, nil], count: 3, into: &out)
            }
        }
        XCTAssertEqual(out[0], 0.2, accuracy: 1e-6); XCTAssertEqual(out[1], -0.1, accuracy: 1e-6); XCTAssertEqual(out[2], 0.25, accuracy: 1e-6)
    }

    func testLoudSumsBendBelowFullScaleWithoutWrapping() {
        let m = AudioMixer(gains: [1])
        XCTAssertLessThan(m.limit(1.2), 1); XCTAssertGreaterThan(m.limit(1.2), 0.95)
        XCTAssertLessThanOrEqual(m.limit(50), 1)
        XCTAssertEqual(m.limit(-3.5), -m.limit(3.5))
        // Monotonic: a louder sum is never quieter.
        var last: Float = 0
        for i in 0...400 { let v = m.limit(Float(i) / 100); XCTAssertGreaterThanOrEqual(v, last); last = v }
    }
}

final class RotateTests: XCTestCase {
    /// A 4x2 picture whose luma counts 1...8 row by row.
    func numbered() -> YUVBuffer {
        let b = YUVBuffer(width: 4, height: 2)
        for y in 0..<2 { for x in 0..<4 { b.image.y[x, y] = UInt8(1 + y * 4 + x) } }
        b.image.u[0, 0] = 10; b.image.u[1, 0] = 20
        return b
    }
    func rows(_ p: Plane) -> [[UInt8]] { (0..<p.height).map { y in (0..<p.width).map { p[$0, y] } } }

    func testClockwiseQuarterTurn() {
        let src = numbered(), out = YUVBuffer(width: 2, height: 4)
        withExtendedLifetime(src) { PlaneKernels.rotate(src.image, clockwise: 90, into: out.image) }
        XCTAssertEqual(rows(out.image.y), [[5, 1], [6, 2], [7, 3], [8, 4]])
        XCTAssertEqual(rows(out.image.u), [[10], [20]])
    }

    func testHalfTurnAndThreeQuarterTurn() {
        let src = numbered(), half = YUVBuffer(width: 4, height: 2)
        withExtendedLifetime(src) { PlaneKernels.rotate(src.image, clockwise: 180, into: half.image) }
        XCTAssertEqual(rows(half.image.y), [[8, 7, 6, 5], [4, 3, 2, 1]])
        let three = YUVBuffer(width: 2, height: 4)
        withExtendedLifetime(src) { PlaneKernels.rotate(src.image, clockwise: 270, into: three.image) }
        XCTAssertEqual(rows(three.image.y), [[4, 8], [3, 7], [2, 6], [1, 5]])
    }
}
