import Compositor
import XCTest

/// The colour chain's pieces against the standards' published numbers, and the lane kernel
/// against the chain computed per colour in Double.
final class ColorConversionTests: XCTestCase {
    func testTransferCurvesAtTheStandardsPoints() {
        // BT.2100 HLG: E' = 0.5 at scene light 1/12; E' = 1 at 1 (1000 nits on the reference display).
        XCTAssertEqual(TransferCurves.toLinear(0.5, .hlg), 10 * pow(1.0 / 12, 1.2), accuracy: 1e-9)
        XCTAssertEqual(TransferCurves.toLinear(1, .hlg), 10, accuracy: 1e-6)
        // ST 2084: 100 nits is E' 0.508078, 1000 nits 0.751827, 10000 nits 1 (BT.2100 table).
        XCTAssertEqual(TransferCurves.toSignal(1, .pq), 0.508078, accuracy: 2e-6)
        XCTAssertEqual(TransferCurves.toSignal(10, .pq), 0.751827, accuracy: 2e-6)
        XCTAssertEqual(TransferCurves.toLinear(1, .pq), 100, accuracy: 1e-6)
        // BT.1886 with an ideal black: light = E'^2.4.
        XCTAssertEqual(TransferCurves.toLinear(0.5, .sdr), pow(0.5, 2.4), accuracy: 1e-12)
        for t in [ColorTransfer.sdr, .hlg, .pq] {
            for e in stride(from: 0.0, through: 1.0, by: 0.05) {
                XCTAssertEqual(TransferCurves.toSignal(TransferCurves.toLinear(e, t), t), e, accuracy: 1e-9, "\(t) at \(e)")
            }
        }
    }

    func testGamutMatrixIsBT2087s() {
        // ITU-R BT.2087-0, 2.2: linear BT.2020 RGB to BT.709 RGB.
        let published = [1.6605, -0.5876, -0.0728, -0.1246, 1.1329, -0.0083, -0.0182, -0.1006, 1.1187]
        let m = Matrix3.gamut(from: .bt2020, to: .bt709).m
        for i in 0..<9 { XCTAssertEqual(m[i], published[i], accuracy: 6e-5, "entry \(i)") }
        XCTAssertEqual(Matrix3.gamut(from: .bt709, to: .bt709), .identity)
    }

    func testToneCurvesMapThePeakToWhite() {
        for curve in ToneCurve.allCases {
            XCTAssertEqual(curve.map(10, peak: 10), 1, accuracy: 1e-9, "\(curve)")
            XCTAssertLessThan(curve.map(0.5, peak: 10), curve.map(0.8, peak: 10), "\(curve) rises")
        }
        // FFmpeg's hable at its constants: hable(2)/hable(10) (vf_tonemap.c's formula, by hand).
        func hable(_ x: Double) -> Double { (x * (0.15 * x + 0.05) + 0.004) / (x * (0.15 * x + 0.5) + 0.06) - 0.02 / 0.3 }
        XCTAssertEqual(ToneCurve.hable.map(2, peak: 10), hable(2) / hable(10), accuracy: 1e-12)
        // mobius is exact up to its knee, 0.3.
        XCTAssertEqual(ToneCurve.mobius.map(0.25, peak: 10), 0.25)
        // reinhard at FFmpeg's default: x / (x + 1) * (peak + 1) / peak (its param is unset, so
        // 1; the documented 0.5 is the contrast c, which init turns into (1 - c) / c = 1 too).
        XCTAssertEqual(ToneCurve.reinhard.map(2, peak: 10), 2.0 / 3.0 * 11.0 / 10.0, accuracy: 1e-12)
    }

    func testWhatIsConvertedAndHow() {
        let sdr = WorkingSignal.sdr.description
        XCTAssertEqual(ColorConversion(from: sdr, to: sdr).kind, .identity)
        var sd = sdr
        sd.matrix = .bt601; sd.primaries = .smpte170m
        XCTAssertEqual(ColorConversion(from: sd, to: sdr).kind, .affine, "BT.601 SD: matrix only")
        sd.range = .full
        XCTAssertEqual(ColorConversion(from: sd, to: sdr).kind, .affine)
        XCTAssertEqual(ColorConversion(from: WorkingSignal.hlg.description, to: sdr).kind, .curves)
        var wide = sdr
        wide.primaries = .bt2020
        XCTAssertEqual(ColorConversion(from: wide, to: sdr).kind, .curves, "SDR BT.2020: gamut")
        XCTAssertTrue(ColorConversion(from: WorkingSignal.pq.description, to: sdr).toneMaps)
        XCTAssertFalse(ColorConversion(from: WorkingSignal.hlg.description, to: WorkingSignal.pq.description).toneMaps)
        // The peak: MaxCLL, else the mastering display's, else 1000 nits.
        XCTAssertEqual(ColorConversion(from: WorkingSignal.pq.description, to: sdr, metadata: HDRMetadata(maxLuminance: 4000, maxCLL: 1500)).sourcePeak, 15)
        XCTAssertEqual(ColorConversion(from: WorkingSignal.pq.description, to: sdr, metadata: HDRMetadata(maxLuminance: 4000)).sourcePeak, 40)
        XCTAssertEqual(ColorConversion(from: WorkingSignal.pq.description, to: sdr).sourcePeak, 10)
    }

    func testBT601ColoursBecomeTheirBT709Encoding() {
        // Y'CbCr of an R'G'B' colour in BT.601 goes to the same colour's BT.709 Y'CbCr.
        var sd = WorkingSignal.sdr.description
        sd.matrix = .bt601
        let kernel = ColorConvertKernel(ColorConversion(from: sd, to: WorkingSignal.sdr.description))
        for c in [RGB(r: 255, g: 0, b: 0), RGB(r: 0, g: 200, b: 40), RGB(r: 30, g: 60, b: 220), RGB(r: 128, g: 128, b: 128)] {
            let a = YUVColor(rgb: c, matrix: .bt601), b = YUVColor(rgb: c, matrix: .bt709)
            let buffer = YUVBuffer(width: 18, height: 3)
            PlaneKernels.fill(buffer.image, a)
            kernel.apply(buffer.image, into: buffer.image)
            for (x, y) in [(0, 0), (17, 2), (9, 1)] { XCTAssertEqual(Int(buffer.image.y[x, y]), Int(b.y), accuracy: 1, "\(c) Y") }
            XCTAssertEqual(Int(buffer.image.u[8, 1]), Int(b.u), accuracy: 1, "\(c) U")
            XCTAssertEqual(Int(buffer.image.v[8, 1]), Int(b.v), accuracy: 1, "\(c) V")
        }
    }

    /// Random 10-bit HLG pictures of odd sizes (partial groups at the right edge, a last single
    /// row): the lanes against the chain in Double per block (at the block's mean, plus each
    /// pixel's step along the grey curve: the kernel's definition), within half a level.
    func testTheLanesFollowTheChainOnOddSizes() {
        let conversion = ColorConversion(from: WorkingSignal.hlg.description, to: WorkingSignal.sdr.description)
        let kernel = ColorConvertKernel(conversion)
        var seed: UInt32 = 99
        func next(_ n: UInt32) -> UInt16 { seed = seed &* 1_664_525 &+ 1_013_904_223; return UInt16((seed >> 8) % n) }
        // Noise over the whole range (every pixel looked up), and smooth ramps with a little
        // grain (pixels near their block's mean: G's slope used).
        for (w, h, smooth) in [(37, 23, false), (16, 2, false), (2, 1, false), (33, 5, false), (64, 8, true), (37, 23, true)] {
            let src = YUV16Buffer(width: w, height: h), dst = YUVBuffer(width: w, height: h)
            let s = src.image
            for y in 0..<h { for x in 0..<w { s.y[x, y] = smooth ? UInt16(100 + 12 * x + 7 * y) + next(5) : 64 + next(876) } }
            for y in 0..<s.u.height { for x in 0..<s.u.width { s.u[x, y] = 64 + next(896); s.v[x, y] = 64 + next(896) } }
            kernel.apply(s, into: dst.image)
            let sdr = WorkingSignal.sdr.description, hlg = WorkingSignal.hlg.description
            func chain(_ y: Double, _ u: Double, _ v: Double) -> (Double, Double, Double) {
                let n = ColorConversion.normalise(y, u, v, hlg)
                let o = conversion.convert(n.0, n.1, n.2)
                return ColorConversion.quantise(o.0, o.1, o.2, sdr)
            }
            var worst = 0.0
            for cy in 0..<s.u.height {
                for cx in 0..<s.u.width {
                    let xs = [2 * cx, min(2 * cx + 1, w - 1)], ys = [2 * cy, min(2 * cy + 1, h - 1)]
                    var sum = 0.0
                    for y in ys { for x in xs { sum += Double(s.y[x, y]) } }
                    let mean = sum / 4, u = Double(s.u[cx, cy]), v = Double(s.v[cx, cy])
                    let block = chain(mean, u, v)
                    // Codes are clamped to 0...255 (random chroma makes colours outside R'G'B').
                    func code(_ x: Double) -> Double { min(max(x, 0), 255) }
                    worst = max(worst, abs(Double(dst.image.u[cx, cy]) - code(block.1)), abs(Double(dst.image.v[cx, cy]) - code(block.2)))
                    for y in Set(ys) {
                        for x in Set(xs) {
                            let detail = chain(Double(s.y[x, y]), 512, 512).0 - chain(mean, 512, 512).0
                            worst = max(worst, abs(Double(dst.image.y[x, y]) - code(block.0 + detail)))
                        }
                    }
                }
            }
            XCTAssertLessThanOrEqual(worst, 0.6, "\(w)x\(h)\(smooth ? " smooth" : ""): worst difference \(worst) levels")
        }
    }

    /// A flat picture converts to exactly what the chain gives its colour: every tone curve,
    /// PQ and HLG, bright and dark colours, with and without a peak from metadata.
    func testAFlatPictureIsItsColoursConversion() {
        let sdr = WorkingSignal.sdr.description
        for source in [WorkingSignal.pq, .hlg] {
            for curve in ToneCurve.allCases {
                for metadata in [HDRMetadata(), HDRMetadata(maxCLL: 4000)] {
                    let conversion = ColorConversion(from: source.description, to: sdr, toneCurve: curve, metadata: metadata)
                    let kernel = ColorConvertKernel(conversion)
                    for (y, u, v) in [(600, 400, 650), (900, 520, 500), (200, 600, 450), (760, 300, 800)] as [(UInt16, UInt16, UInt16)] {
                        let src = YUV16Buffer(width: 20, height: 4), dst = YUVBuffer(width: 20, height: 4)
                        for r in 0..<4 { for x in 0..<20 { src.image.y[x, r] = y } }
                        for r in 0..<2 { for x in 0..<10 { src.image.u[x, r] = u; src.image.v[x, r] = v } }
                        kernel.apply(src.image, into: dst.image)
                        let n = ColorConversion.normalise(Double(y), Double(u), Double(v), source.description)
                        let o = conversion.convert(n.0, n.1, n.2)
                        let q = ColorConversion.quantise(o.0, o.1, o.2, sdr)
                        let want = (min(max(q.0, 0), 255), min(max(q.1, 0), 255), min(max(q.2, 0), 255))
                        let label = "\(source) \(curve) \(metadata.maxCLL ?? 0) (\(y), \(u), \(v))"
                        XCTAssertEqual(Double(dst.image.y[19, 3]), want.0, accuracy: 0.51, label)
                        XCTAssertEqual(Double(dst.image.u[9, 1]), want.1, accuracy: 0.51, label)
                        XCTAssertEqual(Double(dst.image.v[0, 0]), want.2, accuracy: 0.51, label)
                    }
                }
            }
        }
    }

    /// The AVX2 chain (C, hardware gathers) gives the lanes' floats bit for bit and their
    /// pictures byte for byte: HLG and PQ into SDR with every tone curve, with and without a
    /// stated peak, 12-bit and full-range HLG, SDR into HLG and PQ (16-bit out), wide-gamut SDR
    /// into BT.709 (8-bit, also in place); on eight groups of distinct colours at once (every
    /// slot and lane of a batch), on noise over every code (clamped and out-of-gamut colours)
    /// and smooth ramps, in rows of one batch and of several (8 + 8 + 1 groups and a row end).
    func testTheAVX2ChainGivesTheLanesBytesExactly() throws {
        try XCTSkipUnless(ColorConvertKernel.processorHasAVX2, "this processor has no AVX2: only the lanes run here")
        let sdr = WorkingSignal.sdr.description, hlg = WorkingSignal.hlg.description, pq = WorkingSignal.pq.description
        var hlg12 = hlg, hlgFull = hlg, wideSDR = sdr
        hlg12.bitDepth = 12
        hlgFull.range = .full
        wideSDR.primaries = .bt2020
        var seed: UInt32 = 7
        func next(_ n: UInt32) -> UInt32 { seed = seed &* 1_664_525 &+ 1_013_904_223; return (seed >> 8) % n }
        var cases: [ColorConversion] = [
            ColorConversion(from: sdr, to: hlg), ColorConversion(from: sdr, to: pq),
            ColorConversion(from: hlg12, to: sdr), ColorConversion(from: hlgFull, to: sdr),
            ColorConversion(from: wideSDR, to: sdr)
        ]
        for source in [hlg, pq] {
            for curve in ToneCurve.allCases {
                for metadata in [HDRMetadata(), HDRMetadata(maxCLL: 4000)] {
                    cases.append(ColorConversion(from: source, to: sdr, toneCurve: curve, metadata: metadata))
                }
            }
        }
        for conversion in cases {
            let fast = ColorConvertKernel(conversion), lanes = ColorConvertKernel(conversion, allowAVX2: false)
            let label = "\(conversion.source) to \(conversion.target), \(conversion.toneCurve)"
            XCTAssertTrue(fast.usesAVX2, label)
            XCTAssertFalse(lanes.usesAVX2, label)
            let top = UInt32(1 << conversion.source.bitDepth)
            for _ in 0..<40 {
                let groups = (0..<ColorConvertKernel.batch).map { _ in
                    (
                        SIMD8<Float>((0..<8).map { _ in Float(next(4 * top)) / 4 }), SIMD8<Float>((0..<8).map { _ in Float(next(top)) }),
                        SIMD8<Float>((0..<8).map { _ in Float(next(top)) })
                    )
                }
                let a = fast.chain(groups), b = lanes.chain(groups)
                for (i, (x, y)) in zip(a, b).enumerated() {
                    for k in 0..<8 {
                        XCTAssertEqual(
                            [x.0[k].bitPattern, x.1[k].bitPattern, x.2[k].bitPattern], [y.0[k].bitPattern, y.1[k].bitPattern, y.2[k].bitPattern],
                            "\(label): group \(i) lane \(k) (\(groups[i].0[k]), \(groups[i].1[k]), \(groups[i].2[k]))")
                    }
                }
            }
            for (w, h, smooth) in [(53, 19, false), (53, 19, true), (277, 6, false), (277, 5, true)] {
                let label = "\(label) \(w)x\(h)\(smooth ? " smooth" : "")"
                if conversion.source.bitDepth > 8 {
                    let src = YUV16Buffer(width: w, height: h), one = YUVBuffer(width: w, height: h), two = YUVBuffer(width: w, height: h)
                    let s = src.image
                    for y in 0..<h { for x in 0..<w { s.y[x, y] = UInt16(smooth ? (100 + 14 * x + 9 * y + Int(next(5))) % Int(top) : Int(next(top))) } }
                    for y in 0..<s.u.height { for x in 0..<s.u.width { s.u[x, y] = UInt16(next(top)); s.v[x, y] = UInt16(next(top)) } }
                    fast.apply(s, into: one.image); lanes.apply(s, into: two.image)
                    XCTAssertEqual(bytes(one.image), bytes(two.image), label)
                } else {
                    let src = YUVBuffer(width: w, height: h), s = src.image
                    for y in 0..<h { for x in 0..<w { s.y[x, y] = UInt8(smooth ? (20 + 3 * x + 2 * y + Int(next(3))) & 255 : Int(next(256))) } }
                    for y in 0..<s.u.height { for x in 0..<s.u.width { s.u[x, y] = UInt8(next(256)); s.v[x, y] = UInt8(next(256)) } }
                    if conversion.target.bitDepth > 8 {
                        let one = YUV16Buffer(width: w, height: h), two = YUV16Buffer(width: w, height: h)
                        fast.apply(s, into: one.image); lanes.apply(s, into: two.image)
                        XCTAssertEqual(samples(one.image), samples(two.image), label)
                    } else {
                        // 8-bit to 8-bit: also in place (Media converts such pictures where they lie).
                        let one = YUVBuffer(width: w, height: h), two = YUVBuffer(width: w, height: h)
                        let inPlace = YUVBuffer(width: w, height: h), again = YUVBuffer(width: w, height: h)
                        fast.apply(s, into: one.image); lanes.apply(s, into: two.image)
                        PlaneKernels.copy(s, into: inPlace.image); PlaneKernels.copy(s, into: again.image)
                        fast.apply(inPlace.image, into: inPlace.image); lanes.apply(again.image, into: again.image)
                        XCTAssertEqual(bytes(one.image), bytes(two.image), label)
                        XCTAssertEqual(bytes(inPlace.image), bytes(one.image), "\(label) in place (AVX2)")
                        XCTAssertEqual(bytes(again.image), bytes(one.image), "\(label) in place (lanes)")
                    }
                }
            }
        }
        // A linear conversion (BT.601 to BT.709) never goes through the C chain.
        var sd = sdr
        sd.matrix = .bt601
        XCTAssertFalse(ColorConvertKernel(ColorConversion(from: sd, to: sdr)).usesAVX2)
    }

    private func bytes(_ i: YUVImage) -> [UInt8] {
        [i.y, i.u, i.v].flatMap { p in (0..<p.height).flatMap { y in (0..<p.width).map { p[$0, y] } } }
    }
    private func samples(_ i: YUV16Image) -> [UInt16] {
        [i.y, i.u, i.v].flatMap { p in (0..<p.height).flatMap { y in (0..<p.width).map { p[$0, y] } } }
    }
}
