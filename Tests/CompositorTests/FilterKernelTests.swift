import Compositor
import Foundation
import XCTest

/// Presets on tiny planes against values worked out by hand (or by an independent formula in
/// the test), no I/O.
final class FilterKernelTests: XCTestCase {
    /// A picture whose luma rows and chroma rows are given.
    func picture(_ y: [[UInt8]], u: [[UInt8]], v: [[UInt8]]) -> YUVBuffer {
        let b = YUVBuffer(width: y[0].count, height: y.count)
        let img = b.image
        for (r, row) in y.enumerated() { for (x, p) in row.enumerated() { img.y[x, r] = p } }
        for (r, row) in u.enumerated() { for (x, p) in row.enumerated() { img.u[x, r] = p; img.v[x, r] = v[r][x] } }
        return b
    }

    func render(_ chain: String, _ input: YUVBuffer, lut: CubeLUT? = nil) throws -> YUVImage {
        let r = try FilterFactory.chain(FilterChainSpec(parsing: chain), loadLUT: { _ in lut! })
        r.prepare(format: FilterFormat(width: input.width, height: input.height), retainedBufferHint: 1)
        return r.render(input.image)
    }

    func lumaRows(_ img: YUVImage) -> [[UInt8]] { (0..<img.height).map { r in (0..<img.width).map { img.y[$0, r] } } }
    func chroma(_ img: YUVImage) -> [UInt8] {
        (0..<img.u.height).flatMap { r in (0..<img.u.width).flatMap { [img.u[$0, r], img.v[$0, r]] } }
    }

    func testInvertMirrorsEveryComponent() throws {
        let out = try render("invert", picture([[16, 235], [100, 0]], u: [[100]], v: [[200]]))
        XCTAssertEqual(lumaRows(out), [[239, 20], [155, 255]])
        XCTAssertEqual(chroma(out), [155, 55])
    }

    func testMonoKeepsLumaAndNeutralisesChroma() throws {
        let out = try render("mono", picture([[16, 235], [100, 0]], u: [[100]], v: [[200]]))
        XCTAssertEqual(lumaRows(out), [[16, 235], [100, 0]])
        XCTAssertEqual(chroma(out), [128, 128])
    }

    func testBrightnessContrastSaturationExposure() throws {
        // Greys, worked out in RGB (0...1, clipped to the gamut): luma y = (Y - 16) / 219.
        let grey = picture([[100, 16], [235, 126]], u: [[128]], v: [[128]])
        // +0.1: 100 -> 16 + 219 * (84/219 + 0.1) = 121.9; 235 stays white (clipped in RGB).
        var out = try render("brightness:amount=0.1", grey)
        XCTAssertEqual(lumaRows(out), [[122, 38], [235, 148]]); XCTAssertEqual(chroma(out), [128, 128])
        // Contrast 1.5 about mid grey: 100 -> 1.5 * 84 - 54.75 + 16 = 87.25; black and white clip.
        out = try render("contrast:amount=1.5", grey)
        XCTAssertEqual(lumaRows(out), [[87, 16], [235, 126]]); XCTAssertEqual(chroma(out), [128, 128])
        // Exposure +1: 100 -> 16 + 2 * 84 = 184; 126 -> 16 + 220 clips to white.
        out = try render("exposure:ev=1", grey)
        XCTAssertEqual(lumaRows(out), [[184, 16], [235, 235]]); XCTAssertEqual(chroma(out), [128, 128])
        // Saturation 0 of a colour inside the gamut: its own luma, neutral chroma.
        out = try render("saturation:amount=0", picture([[100, 100], [100, 100]], u: [[138]], v: [[108]]))
        XCTAssertEqual(lumaRows(out), [[100, 100], [100, 100]]); XCTAssertEqual(chroma(out), [128, 128])
    }

    func testHueTurnsTheChromaVector() throws {
        let out = try render("hue:degrees=90", picture([[50, 60], [70, 80]], u: [[138]], v: [[128]]))
        XCTAssertEqual(lumaRows(out), [[50, 60], [70, 80]])
        XCTAssertEqual(chroma(out), [128, 138])  // (10, 0) turned a quarter: (0, 10)
    }

    func testPixellateAveragesBlocks() throws {
        let out = try render("pixellate:size=2", picture([[0, 2, 10, 20], [4, 6, 30, 40]], u: [[10, 20]], v: [[30, 40]]))
        XCTAssertEqual(lumaRows(out), [[3, 3, 25, 25], [3, 3, 25, 25]])  // 12/4, 100/4
        XCTAssertEqual(chroma(out), [10, 30, 20, 40])  // chroma blocks of 1
    }

    func testEdgesIsSobelMagnitude() throws {
        let out = try render("edges", picture([[16, 16, 116, 116], [16, 16, 116, 116]], u: [[90, 90]], v: [[90, 90]]))
        // gx at x = 1 and 2: (100 + 200 + 100) * ... = 4 * 100 = 400; 16 + 400 / 4 = 116.
        XCTAssertEqual(lumaRows(out), [[16, 116, 116, 16], [16, 116, 116, 16]])
        XCTAssertEqual(chroma(out), [128, 128, 128, 128])
    }

    func testRosyTurnsGreenBlack() throws {
        let g = YUVColor(rgb: RGB(r: 0, g: 255, b: 0)), m = YUVColor(rgb: RGB(r: 255, g: 0, b: 255))
        var out = try render("rosy", picture([[g.y, g.y], [g.y, g.y]], u: [[g.u]], v: [[g.v]]))
        for row in lumaRows(out) { for p in row { XCTAssertEqual(Int(p), 16, accuracy: 1) } }
        for c in chroma(out) { XCTAssertEqual(Int(c), 128, accuracy: 1) }
        // Magenta has no green: unchanged.
        out = try render("rosy", picture([[m.y, m.y], [m.y, m.y]], u: [[m.u]], v: [[m.v]]))
        for row in lumaRows(out) { for p in row { XCTAssertEqual(Int(p), Int(m.y), accuracy: 1) } }
        XCTAssertEqual(Int(chroma(out)[0]), Int(m.u), accuracy: 1); XCTAssertEqual(Int(chroma(out)[1]), Int(m.v), accuracy: 1)
    }

    func testPosterizeRoundsToLevels() throws {
        // Greys: 60 is 0.2 -> floor(0.4 + 0.5) / 2 = 0 (black); 200 is 0.84 -> 2 / 2 = 1 (white).
        let out = try render("posterize:levels=2", picture([[60, 200], [60, 200]], u: [[128]], v: [[128]]))
        XCTAssertEqual(lumaRows(out), [[16, 235], [16, 235]])
    }

    func testSepiaOfWhiteIsGPUImagesMatrixRowSums() throws {
        let out = try render("sepia", picture([[235, 235], [235, 235]], u: [[128]], v: [[128]]))
        // White through the matrix: (1.2, 1.0, 0.8), clipped to the gamut: (1, 1, 0.8).
        let expected = YUVColor(rgb: RGB(r: 255, g: 255, b: 204))
        XCTAssertEqual(Int(out.y[0, 0]), Int(expected.y), accuracy: 1)
        XCTAssertEqual(Int(chroma(out)[0]), Int(expected.u), accuracy: 1)
        XCTAssertEqual(Int(chroma(out)[1]), Int(expected.v), accuracy: 1)
    }

    func testBlurOfAnImpulseIsTheGaussianOuterProduct() throws {
        var rows = Array(repeating: Array(repeating: UInt8(0), count: 15), count: 15)
        rows[7][7] = 255
        let out = try render(
            "blur:radius=1",
            picture(
                rows, u: Array(repeating: Array(repeating: 128, count: 8), count: 8),
                v: Array(repeating: Array(repeating: 128, count: 8), count: 8)))
        let w = (-3...3).map { exp(-Double($0 * $0) / 2) }, s = w.reduce(0, +)
        let w0 = w[3] / s, w1 = w[4] / s, w2 = w[5] / s
        XCTAssertEqual(Int(out.y[7, 7]), Int((255 * w0 * w0).rounded()))
        XCTAssertEqual(Int(out.y[8, 7]), Int((255 * w0 * w1).rounded()))
        XCTAssertEqual(Int(out.y[9, 8]), Int((255 * w2 * w1).rounded()))
        XCTAssertEqual(out.y[0, 0], 0)
        XCTAssertEqual(out.u[3, 3], 128)  // a flat plane stays flat
    }

    func testSharpenLeavesFlatAreasAndSteepensEdges() throws {
        let out = try render(
            "sharpen:amount=1:radius=1",
            picture(
                [[50, 50, 150, 150]] + Array(repeating: [50, 50, 150, 150], count: 3),
                u: [[128, 128], [128, 128]], v: [[128, 128], [128, 128]]))
        XCTAssertLessThan(out.y[1, 1], 50)
        XCTAssertGreaterThan(out.y[2, 1], 150)
    }

    func testVignetteKeepsTheCentreAndDarkensCorners() throws {
        let rows = Array(repeating: Array(repeating: UInt8(200), count: 20), count: 20)
        let out = try render(
            "vignette:start=0.2:end=0.9",
            picture(
                rows, u: Array(repeating: Array(repeating: 180, count: 10), count: 10),
                v: Array(repeating: Array(repeating: 180, count: 10), count: 10)))
        XCTAssertEqual(out.y[10, 10], 200)
        XCTAssertEqual(out.y[0, 0], 16)  // corner pixel centre: d = 0.93 of the half diagonal, past end
        XCTAssertEqual(out.u[0, 0], 128)
        XCTAssertEqual(out.u[5, 5], 180)
    }

    func testLUTSwappingRedAndBlueIsExactBothWays() throws {
        // A size-2 table of a linear map is exact under trilinear and tetrahedral interpolation.
        var t: [SIMD3<Float>] = []
        for b in 0..<2 { for g in 0..<2 { for r in 0..<2 { t.append(SIMD3(Float(b), Float(g), Float(r))) } } }
        let lut = CubeLUT(size: 2, table: t)
        let c = YUVColor(rgb: RGB(r: 200, g: 50, b: 30)), swapped = YUVColor(rgb: RGB(r: 30, g: 50, b: 200))
        for interp in ["trilinear", "tetrahedral"] {
            let out = try render("lut:file=x.cube:interp=\(interp)", picture([[c.y, c.y], [c.y, c.y]], u: [[c.u]], v: [[c.v]]), lut: lut)
            XCTAssertEqual(Int(out.y[1, 1]), Int(swapped.y), accuracy: 1, interp)
            XCTAssertEqual(Int(chroma(out)[0]), Int(swapped.u), accuracy: 1, interp)
            XCTAssertEqual(Int(chroma(out)[1]), Int(swapped.v), accuracy: 1, interp)
        }
        // Tetrahedral and trilinear agree on a non-linear table's grid points and differ between.
        var q: [SIMD3<Float>] = []
        for b in 0..<3 { for g in 0..<3 { for r in 0..<3 { let v = SIMD3(Float(r), Float(g), Float(b)) / 2; q.append(v * v) } } }
        let square = CubeLUT(size: 3, table: q)
        XCTAssertEqual(square.lookup(SIMD3(0.5, 0.5, 1), .trilinear), SIMD3(0.25, 0.25, 1))
        XCTAssertEqual(square.lookup(SIMD3(0.5, 0.5, 1), .tetrahedral), SIMD3(0.25, 0.25, 1))
        // Between grid points, trilinear on x^2 along one axis: 0.25 -> (0 + 0.25) / 2.
        XCTAssertEqual(square.lookup(SIMD3(0.25, 0, 0), .trilinear).x, 0.125, accuracy: 1e-6)
        XCTAssertEqual(square.lookup(SIMD3(0.25, 0, 0), .tetrahedral).x, 0.125, accuracy: 1e-6)
    }

    func testRendererCyclesItsPoolAndChainRunsLeftToRight() throws {
        let chain = try FilterFactory.chain(FilterChainSpec(parsing: "invert,mono"), loadLUT: { _ in fatalError() })
        chain.prepare(format: FilterFormat(width: 2, height: 2), retainedBufferHint: 2)
        let p = picture([[10, 20], [30, 40]], u: [[100]], v: [[150]])
        let a = chain.render(p.image), b = chain.render(p.image), c = chain.render(p.image)
        XCTAssertNotEqual(a.y.base, b.y.base)
        XCTAssertEqual(a.y.base, c.y.base)
        XCTAssertEqual(lumaRows(a), [[245, 235], [225, 215]])
        XCTAssertEqual(chroma(a), [128, 128])
        chain.reset()
        XCTAssertEqual(chain.render(p.image).y.base, a.y.base)  // reset starts the pool over
        XCTAssertEqual(lumaRows(p.image), [[10, 20], [30, 40]])  // the input untouched
    }
}
