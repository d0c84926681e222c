import CVectors

/// Runs a `ColorConversion` on a 4:2:0 picture, eight chroma samples (two rows of sixteen luma
/// pixels) at a time on `Vector8`; what every input that is not already the working signal goes
/// through (`Media.Conformer`).
///
/// Each 2x2 block shares one chroma sample, so the chain runs once per block, at the block's
/// mean luma: that gives the block's chroma and the luma its mean converts to. Each pixel then
/// gets that luma plus its own difference along the grey curve G (the chain at neutral chroma,
/// a table with one entry per input code): out = conv(mean) + G(pixel) - G(mean). Grey, and
/// any flat block, is exact; luma detail follows the grey curve, which is where a zscale-style
/// per-pixel conversion differs (measured against `zscale`: docs/colour.md, "Measured").
/// The chain's curves are tables (`UniformTable`, `LogTable`) made here once per input; a frame
/// only reads them, allocates nothing, and costs about a quarter of a per-pixel chain.
/// On processors with AVX2 the chain through light runs in C with hardware gathers
/// (`cvec_chain_avx2`, ColorChain.h): the same floats, bit for bit, in about half the time.
public final class ColorConvertKernel {
    public let conversion: ColorConversion
    /// Whether this processor runs the AVX2 chain.
    public static let processorHasAVX2 = cvec_has_avx2() != 0
    let sourceDepth: Int, targetDepth: Int
    // Source samples to normalised Y'CbCr: (s - offset) * scale.
    let yOffset: Float, yScale: Float, cOffset: Float, cScale: Float
    // Normalised target Y'CbCr to target samples: v * scale + offset.
    let outYScale: Float, outYOffset: Float, outCScale: Float, outCOffset: Float
    /// The largest target sample value.
    let outMax: Float
    // The source matrix (R'G'B' from Y'CbCr) and the target's (Y'CbCr from R'G'B').
    let crToR: Float, cbToG: Float, crToG: Float, cbToB: Float
    let kr: Float, kg: Float, kb: Float, toCb: Float, toCr: Float
    /// The affine map of `.identity` and `.affine`: target normalised (y, cb, cr) = three rows
    /// of three times (y, cb, cr); and the gamut matrix (row major). Lanes 9-15 unused.
    let affine: SIMD16<Float>
    let gamut: SIMD16<Float>
    let toLinear: UniformTable?
    /// The tone curve's factor, in arithmetic (a table lookup costs more than the curve).
    let tone: ToneVectors?
    let toSignal: LogTable?
    /// G: target luma samples (not rounded) of every source luma code at neutral chroma, with
    /// the step to the next code.
    let grey: UnsafeMutablePointer<SIMD2<Float>>
    let greyCount: Int
    /// Pixels this close to their block's mean (in codes) take G's slope (`luma`): 4 8-bit levels.
    let flat: Float
    /// Room for a row's last group, padded to sixteen columns (`run`).
    private let edge: UnsafeMutableRawPointer
    /// The AVX2 chain's constants and tables (nil: the chain runs on `Vector8`).
    private let avx2: UnsafeMutablePointer<cvec_chain>?
    /// Up to `batch` groups' chain inputs and outputs (`Slot`), between the passes of `run`.
    private let slots: UnsafeMutableRawPointer
    public static let batch = 8
    /// Whether the chain through light runs in AVX2 (`.curves` conversions on such processors).
    public var usesAVX2: Bool { avx2 != nil }

    /// `conversion`'s source bit depth must be 8 to 12 (deeper pictures go through 12-bit first).
    /// `allowAVX2` false keeps the chain on `Vector8` (for tests that compare the two).
    public init(_ conversion: ColorConversion, allowAVX2: Bool = true) {
        precondition((8...12).contains(conversion.source.bitDepth) && (8...16).contains(conversion.target.bitDepth))
        self.conversion = conversion
        let s = conversion.source, t = conversion.target
        sourceDepth = s.bitDepth; targetDepth = t.bitDepth
        let sf = Double(1 << (s.bitDepth - 8)), tf = Double(1 << (t.bitDepth - 8))
        switch s.range {
        case .limited:
            yOffset = Float(16 * sf); yScale = Float(1 / (219 * sf)); cOffset = Float(128 * sf); cScale = Float(1 / (224 * sf))
        case .full:
            let top = Double((1 << s.bitDepth) - 1)
            yOffset = 0; yScale = Float(1 / top); cOffset = Float(1 << (s.bitDepth - 1)); cScale = Float(1 / top)
        }
        switch t.range {
        case .limited:
            outYScale = Float(219 * tf); outYOffset = Float(16 * tf); outCScale = Float(224 * tf); outCOffset = Float(128 * tf)
        case .full:
            let top = Double((1 << t.bitDepth) - 1)
            outYScale = Float(top); outYOffset = 0; outCScale = Float(top); outCOffset = Float(1 << (t.bitDepth - 1))
        }
        outMax = Float((1 << t.bitDepth) - 1)
        let m = s.matrix
        crToR = Float(m.crToR); cbToG = Float(m.cbToG); crToG = Float(m.crToG); cbToB = Float(m.cbToB)
        kr = Float(t.matrix.kr); kg = Float(t.matrix.kg); kb = Float(t.matrix.kb)
        toCb = Float(1 / t.matrix.cbToB); toCr = Float(1 / t.matrix.crToR)
        // The affine map: each column is the conversion of a unit (y, cb, cr).
        var a = SIMD16<Float>()
        for (j, unit) in [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)].enumerated() {
            let (r, g, b) = m.rgb(unit.0, unit.1, unit.2)
            let o = t.matrix.yuv(r, g, b)
            a[j] = Float(o.0); a[3 + j] = Float(o.1); a[6 + j] = Float(o.2)
        }
        affine = a
        var gm = SIMD16<Float>()
        for k in 0..<9 { gm[k] = Float(conversion.gamut.m[k]) }
        gamut = gm
        if conversion.kind == .curves {
            // 0...2: every R'G'B' a legal limited-range code can make (1.09 + 1.47 x 0.57).
            toLinear = UniformTable(top: 2, count: 4096) { conversion.linear($0) }
            tone = conversion.toneMaps ? ToneVectors(conversion) : nil
            toSignal = LogTable(lowExponent: -40, highExponent: 12) { conversion.signal($0) }
        } else {
            toLinear = nil; tone = nil; toSignal = nil
        }
        greyCount = 1 << s.bitDepth
        flat = Float(4 << (s.bitDepth - 8))
        grey = .allocate(capacity: greyCount)
        let mid = Double(1 << (s.bitDepth - 1))
        func g(_ code: Int) -> Double {
            let (y, cb, cr) = ColorConversion.normalise(Double(code), mid, mid, s)
            let o = conversion.convert(y, cb, cr)
            return ColorConversion.quantise(o.0, o.1, o.2, t).0
        }
        var previous = g(0)
        for code in 0..<greyCount {
            let next = g(code + 1)
            (grey + code).initialize(to: SIMD2(Float(previous), Float(next - previous)))
            previous = next
        }
        edge = .allocate(byteCount: 256, alignment: 16)
        slots = .allocate(byteCount: Slot.size * Self.batch, alignment: 32)
        avx2 = allowAVX2 && Self.processorHasAVX2 && conversion.kind == .curves ? .allocate(capacity: 1) : nil
        if let avx2, let toLinear, let toSignal { avx2.initialize(to: Self.chain(self, toLinear, tone, toSignal)) }
    }

    deinit {
        grey.deallocate(); edge.deallocate(); slots.deallocate(); avx2?.deallocate()
        toLinear?.deallocate(); toSignal?.deallocate()
    }

    /// The C chain's view of this kernel's constants and tables (which outlive it: both are the kernel's).
    private static func chain(_ k: ColorConvertKernel, _ linear: UniformTable, _ tone: ToneVectors?, _ signal: LogTable) -> cvec_chain {
        func floats(_ p: UnsafeMutablePointer<SIMD2<Float>>) -> UnsafePointer<Float> {
            UnsafeRawPointer(p).assumingMemoryBound(to: Float.self)
        }
        let curve: Int32
        switch tone?.curve {
        case nil: curve = Int32(CVEC_TONE_NONE)
        case .hable: curve = Int32(CVEC_TONE_HABLE)
        case .reinhard: curve = Int32(CVEC_TONE_REINHARD)
        case .clip: curve = Int32(CVEC_TONE_CLIP)
        case .mobius: curve = Int32(CVEC_TONE_MOBIUS)
        }
        let m = k.gamut
        return cvec_chain(
            yOffset: k.yOffset, yScale: k.yScale, cOffset: k.cOffset, cScale: k.cScale,
            crToR: k.crToR, cbToG: k.cbToG, crToG: k.crToG, cbToB: k.cbToB,
            toLinear: floats(linear.entries), linearScale: linear.scale, linearCount: Float(linear.count), linearLast: linear.last,
            gamut: (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]),
            tone: curve, inverseTarget: tone?.inverseTarget ?? 0, k: tone?.k ?? 0, a: tone?.a ?? 0, b: tone?.b ?? 0, scale: tone?.scale ?? 0,
            toSignal: floats(signal.entries), signalLow: signal.lo, signalHigh: signal.hi,
            signalBase: signal.base, signalShift: LogTable.shift,
            kr: k.kr, kg: k.kg, kb: k.kb, toCb: k.toCb, toCr: k.toCr,
            outYScale: k.outYScale, outYOffset: k.outYOffset, outCScale: k.outCScale, outCOffset: k.outCOffset)
    }

    // MARK: the pictures

    /// 10/12-bit in, 8-bit out (HDR or wide-gamut inputs to the SDR working signal).
    public func apply(_ src: YUV16Image, into dst: YUVImage) {
        run(PlaneView(src.y), PlaneView(src.u), PlaneView(src.v), PlaneView(dst.y), PlaneView(dst.u), PlaneView(dst.v))
    }
    /// 10/12-bit in, 16-bit out (to the HDR working signal).
    public func apply(_ src: YUV16Image, into dst: YUV16Image) {
        run(PlaneView(src.y), PlaneView(src.u), PlaneView(src.v), PlaneView(dst.y), PlaneView(dst.u), PlaneView(dst.v))
    }
    /// 8-bit in, 8-bit out; `dst` may be `src` (BT.601 pictures to BT.709 in place).
    public func apply(_ src: YUVImage, into dst: YUVImage) {
        run(PlaneView(src.y), PlaneView(src.u), PlaneView(src.v), PlaneView(dst.y), PlaneView(dst.u), PlaneView(dst.v))
    }
    /// 8-bit in, 16-bit out (SDR plates into the HDR working signal).
    public func apply(_ src: YUVImage, into dst: YUV16Image) {
        run(PlaneView(src.y), PlaneView(src.u), PlaneView(src.v), PlaneView(dst.y), PlaneView(dst.u), PlaneView(dst.v))
    }

    /// One colour through the kernel's own arithmetic (its tables, Float): source samples to
    /// target samples, not rounded. What the tests hold the lanes to. Like `apply`, it uses the
    /// kernel's scratch: one call at a time.
    public func convert(y: Float, cb: Float, cr: Float) -> (Float, Float, Float) {
        let (oy, ou, ov) = chain([(Vector8(repeating: y), Vector8(repeating: cb), Vector8(repeating: cr))])[0]
        return (oy[0], ou[0], ov[0])
    }

    /// Up to `batch` groups' colours (source samples) through the chain as `run` runs them, in
    /// one call: target samples, not rounded. For tests that compare the AVX2 chain and the lanes.
    public func chain(_ groups: [(SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)]) -> [(SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)] {
        precondition(groups.count <= Self.batch)
        for (i, g) in groups.enumerated() { Slot(slots + i * Slot.size).setInputs(g.0, g.1, g.2) }
        chain(groups.count)
        return groups.indices.map { Slot(slots + $0 * Slot.size).outputs }
    }

    // MARK: the kernel

    /// Three passes over each row pair's groups, `batch` groups at a time: their blocks' means
    /// and chroma into `slots` (`prepare`), the chain on all of them (`chain`: a loop the
    /// processor overlaps, where one group's chain alone is a long wait on its lookups), then
    /// each group's pixels (`finish`).
    private func run<In: KernelSample, Out: KernelSample>(
        _ sy: PlaneView<In>, _ su: PlaneView<In>, _ sv: PlaneView<In>,
        _ dy: PlaneView<Out>, _ du: PlaneView<Out>, _ dv: PlaneView<Out>
    ) {
        precondition(sy.width == dy.width && sy.height == dy.height && su.width == du.width && su.height == du.height)
        let w = sy.width, h = sy.height, cw = su.width, ch = su.height
        // The last group's sixteen luma columns of two rows, eight chroma samples, padded.
        let ey0 = edge.bindMemory(to: In.self, capacity: 64), ey1 = ey0 + 16, eu = ey0 + 32, ev = ey0 + 40
        let oy0 = (edge + 128).bindMemory(to: Out.self, capacity: 64), oy1 = oy0 + 16, ou = oy0 + 32, ov = oy0 + 40
        // Groups of eight whole blocks (sixteen columns) a row holds.
        let whole = min(cw / 8, w / 16)
        for cy in 0..<ch {
            let r0 = 2 * cy, r1 = min(2 * cy + 1, h - 1)
            let y0 = sy.row(r0), y1 = sy.row(r1), u = su.row(cy), v = sv.row(cy)
            let o0 = dy.row(r0), o1 = dy.row(r1), uo = du.row(cy), vo = dv.row(cy)
            var g = 0
            while g < whole {
                let n = min(Self.batch, whole - g)
                for i in 0..<n {
                    let c = 8 * (g + i)
                    prepare(y0 + 2 * c, y1 + 2 * c, u + c, v + c, Slot(slots + i * Slot.size))
                }
                chain(n)
                for i in 0..<n {
                    let c = 8 * (g + i)
                    finish(y0 + 2 * c, y1 + 2 * c, o0 + 2 * c, o1 + 2 * c, uo + c, vo + c, Slot(slots + i * Slot.size))
                }
                g += n
            }
            let cx = 8 * whole
            guard cx < cw else { continue }
            // The row's end: copied into sixteen columns (the last repeated, so a lone last
            // column's block mean is its own), converted, the real part copied back.
            let n = w - 2 * cx, m = cw - cx
            for i in 0..<16 { ey0[i] = y0[2 * cx + min(i, n - 1)]; ey1[i] = y1[2 * cx + min(i, n - 1)] }
            for i in 0..<8 { eu[i] = u[cx + min(i, m - 1)]; ev[i] = v[cx + min(i, m - 1)] }
            prepare(ey0, ey1, eu, ev, Slot(slots))
            chain(1)
            finish(ey0, ey1, oy0, oy1, ou, ov, Slot(slots))
            for i in 0..<n { o0[2 * cx + i] = oy0[i] }
            if r1 != r0 { for i in 0..<n { o1[2 * cx + i] = oy1[i] } }
            for i in 0..<m { uo[cx + i] = ou[i]; vo[cx + i] = ov[i] }
        }
    }

    /// A group's eight blocks (sixteen columns of two luma rows, eight chroma samples): their
    /// mean luma and chroma, as the chain's inputs.
    @inline(__always) private func prepare<In: KernelSample>(
        _ y0: UnsafeMutablePointer<In>, _ y1: UnsafeMutablePointer<In>, _ u: UnsafeMutablePointer<In>, _ v: UnsafeMutablePointer<In>, _ slot: Slot
    ) {
        let a0 = In.load(y0), a1 = In.load(y0 + 8), b0 = In.load(y1), b1 = In.load(y1 + 8)
        let mean = (Self.pairSums(VectorMath.float(a0), VectorMath.float(a1)) + Self.pairSums(VectorMath.float(b0), VectorMath.float(b1))) * 0.25
        slot.setInputs(mean, VectorMath.float(In.load(u)), VectorMath.float(In.load(v)))
    }

    /// The chain on the first `count` slots.
    private func chain(_ count: Int) {
        if let avx2 {
            cvec_chain_avx2(avx2, slots.assumingMemoryBound(to: Float.self), Int32(count))
            return
        }
        for i in 0..<count {
            let slot = Slot(slots + i * Slot.size), (y, cb, cr) = slot.inputs
            slot.setOutputs(evaluate(y, cb, cr))
        }
    }

    /// A group's pixels from its chain outputs: the chroma as they are, each pixel's luma
    /// its block's converted mean plus its step along G.
    @inline(__always) private func finish<In: KernelSample, Out: KernelSample>(
        _ y0: UnsafeMutablePointer<In>, _ y1: UnsafeMutablePointer<In>,
        _ o0: UnsafeMutablePointer<Out>, _ o1: UnsafeMutablePointer<Out>, _ ou: UnsafeMutablePointer<Out>, _ ov: UnsafeMutablePointer<Out>,
        _ slot: Slot
    ) {
        // The luma is loaded again (`prepare` read it moments ago: it is still in L1), cheaper
        // than keeping four more vectors per group in the slot.
        let a0 = In.load(y0), a1 = In.load(y0 + 8), b0 = In.load(y1), b1 = In.load(y1 + 8)
        let mean = slot.inputs.0, (oy, ocb, ocr) = slot.outputs
        // G at the block's mean: between the two codes around it.
        let (f, i) = VectorMath.floor(VectorMath.min(mean, Vector8(repeating: Float(greyCount - 1))))
        let (gv, gs) = gather(grey, i)
        let (dLo, dHi) = Self.pairs(oy - (gv + (mean - f) * gs))
        let (mLo, mHi) = Self.pairs(mean), (sLo, sHi) = Self.pairs(gs), (yLo, yHi) = Self.pairs(oy)
        Out.store(self.out(luma(a0, mLo, yLo, sLo, dLo)), o0)
        Out.store(self.out(luma(a1, mHi, yHi, sHi, dHi)), o0 + 8)
        Out.store(self.out(luma(b0, mLo, yLo, sLo, dLo)), o1)
        Out.store(self.out(luma(b1, mHi, yHi, sHi, dHi)), o1 + 8)
        Out.store(self.out(ocb), ou)
        Out.store(self.out(ocr), ov)
    }

    /// Eight pixels' output luma: their block's converted mean `y` plus their step along the
    /// grey curve G. Where all eight are within `flat` codes of their block's mean (flat areas:
    /// most of a picture) the step is G's slope at the mean (`slope`) times the distance, which
    /// differs from G's own step by under a tenth of a level there and needs no lookup per pixel;
    /// otherwise G(pixel) - G(mean) (`detail`: y - G(mean)).
    @inline(__always) private func luma(_ codes: IntVector8, _ mean: Vector8, _ y: Vector8, _ slope: Vector8, _ detail: Vector8) -> Vector8 {
        let d = VectorMath.float(codes) - mean
        // Whether any lane is past `flat`: the comparison's lanes OR-ed down to one.
        let far = unsafeBitCast(VectorMath.max(d, -d) .> flat, to: IntVector8.self)
        let h = far.lowHalf | far.highHalf, q = h.lowHalf | h.highHalf
        if q[0] | q[1] == 0 { return y + slope * d }
        // Codes past the bit depth (damage) are masked into the table.
        return gather(grey, codes & IntVector8(repeating: Int32(greyCount - 1))).0 + detail
    }

    /// Target samples (not rounded) of eight source colours given as samples.
    @inline(__always) private func evaluate(_ sy: Vector8, _ scb: Vector8, _ scr: Vector8) -> (Vector8, Vector8, Vector8) {
        let y = (sy - yOffset) * yScale, pb = (scb - cOffset) * cScale, pr = (scr - cOffset) * cScale
        var ny: Vector8, nb: Vector8, nr: Vector8
        if let toLinear, let toSignal {
            let r = y + crToR * pr, g = y + cbToG * pb + crToG * pr, b = y + cbToB * pb
            let lr = toLinear(r), lg = toLinear(g), lb = toLinear(b)
            let m = gamut
            var tr = m[0] * lr + m[1] * lg + m[2] * lb
            var tg = m[3] * lr + m[4] * lg + m[5] * lb
            var tb = m[6] * lr + m[7] * lg + m[8] * lb
            if let tone {
                let k = tone.gain(VectorMath.max(VectorMath.max(tr, tg), tb))
                tr *= k; tg *= k; tb *= k
            }
            let er = toSignal(tr), eg = toSignal(tg), eb = toSignal(tb)
            ny = kr * er + kg * eg + kb * eb
            nb = (eb - ny) * toCb
            nr = (er - ny) * toCr
        } else {
            let a = affine
            ny = a[0] * y + a[1] * pb + a[2] * pr
            nb = a[3] * y + a[4] * pb + a[5] * pr
            nr = a[6] * y + a[7] * pb + a[8] * pr
        }
        return (ny * outYScale + outYOffset, nb * outCScale + outCOffset, nr * outCScale + outCOffset)
    }

    /// Rounded (halves up) and clamped to the target's codes, as Int32 lanes.
    @inline(__always) private func out(_ x: Vector8) -> IntVector8 {
        VectorMath.roundHalfUp(VectorMath.clamp(x, 0, outMax))
    }

    /// Lane i + lane i+1 for each pair: sixteen columns into eight blocks' sums.
    @inline(__always) static func pairSums(_ lo: Vector8, _ hi: Vector8) -> Vector8 {
        let s = SIMD16(lowHalf: lo, highHalf: hi)
        return s.evenHalf + s.oddHalf
    }

    /// Eight blocks' values, each repeated for the block's two columns.
    @inline(__always) static func pairs(_ v: Vector8) -> (Vector8, Vector8) {
        (Vector8(v[0], v[0], v[1], v[1], v[2], v[2], v[3], v[3]), Vector8(v[4], v[4], v[5], v[5], v[6], v[6], v[7], v[7]))
    }
}

/// One group's chain inputs (block mean luma, cb, cr: source samples) and outputs (target
/// samples, not rounded), eight floats each, in that order: `cvec_chain_avx2`'s layout.
struct Slot {
    static let size = 6 * 32
    let base: UnsafeMutableRawPointer
    init(_ base: UnsafeMutableRawPointer) { self.base = base }

    @inline(__always) func setInputs(_ y: Vector8, _ cb: Vector8, _ cr: Vector8) {
        base.storeBytes(of: y, as: Vector8.self)
        base.storeBytes(of: cb, toByteOffset: 32, as: Vector8.self)
        base.storeBytes(of: cr, toByteOffset: 64, as: Vector8.self)
    }
    @inline(__always) var inputs: (Vector8, Vector8, Vector8) {
        (base.load(as: Vector8.self), base.load(fromByteOffset: 32, as: Vector8.self), base.load(fromByteOffset: 64, as: Vector8.self))
    }
    @inline(__always) func setOutputs(_ o: (Vector8, Vector8, Vector8)) {
        base.storeBytes(of: o.0, toByteOffset: 96, as: Vector8.self)
        base.storeBytes(of: o.1, toByteOffset: 128, as: Vector8.self)
        base.storeBytes(of: o.2, toByteOffset: 160, as: Vector8.self)
    }
    @inline(__always) var outputs: (Vector8, Vector8, Vector8) {
        (base.load(fromByteOffset: 96, as: Vector8.self), base.load(fromByteOffset: 128, as: Vector8.self), base.load(fromByteOffset: 160, as: Vector8.self))
    }
}

/// A plane of either sample size, as the kernel reads and writes it.
struct PlaneView<T> {
    let base: UnsafeMutablePointer<T>
    let stride: Int, width: Int, height: Int
    @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<T> { base + y * stride }
}

extension PlaneView where T == UInt8 {
    init(_ p: Plane) { base = p.base; stride = p.stride; width = p.width; height = p.height }
}
extension PlaneView where T == UInt16 {
    init(_ p: Plane16) { base = p.base; stride = p.stride; width = p.width; height = p.height }
}

/// 8-bit and 16-bit samples: eight at a time into Int32 lanes and back.
protocol KernelSample {
    static func load(_ p: UnsafeMutablePointer<Self>) -> IntVector8
    /// Values already within the sample's range.
    static func store(_ v: IntVector8, _ p: UnsafeMutablePointer<Self>)
}

extension UInt8: KernelSample {
    @inline(__always) static func load(_ p: UnsafeMutablePointer<UInt8>) -> IntVector8 {
        VectorMath.widen(UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self))
    }
    @inline(__always) static func store(_ v: IntVector8, _ p: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(p).storeBytes(of: VectorMath.narrow8(v), as: SIMD8<UInt8>.self)
    }
}

extension UInt16: KernelSample {
    @inline(__always) static func load(_ p: UnsafeMutablePointer<UInt16>) -> IntVector8 {
        VectorMath.widen(UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt16>.self))
    }
    @inline(__always) static func store(_ v: IntVector8, _ p: UnsafeMutablePointer<UInt16>) {
        UnsafeMutableRawPointer(p).storeBytes(of: VectorMath.narrow16(v), as: SIMD8<UInt16>.self)
    }
}

/// `ColorConversion.toneGain` on eight lanes: the factor the tone curve applies to a colour
/// whose largest channel (linear light) is m, for FFmpeg's curves, as rational arithmetic.
struct ToneVectors {
    let curve: ToneCurve
    /// 1 / the target's peak (x is divided by it: the curves map the target's white to 1).
    let inverseTarget: Float
    /// hable: targetPeak / hable(P); reinhard: (P + r) / P (r: `ToneCurve.reinhardParameter`); mobius: its constants.
    let k: Float
    let a: Float, b: Float, scale: Float

    init(_ c: ColorConversion) {
        curve = c.toneCurve
        let p = c.sourcePeak * c.sdrGain / c.targetPeak
        inverseTarget = Float(1 / c.targetPeak)
        switch curve {
        case .hable: k = Float(c.targetPeak / ToneCurve.hable(p)); a = 0; b = 0; scale = 0
        case .reinhard: k = Float((p + ToneCurve.reinhardParameter) / p); a = Float(ToneCurve.reinhardParameter); b = 0; scale = 0
        case .clip: k = 1; a = 0; b = 0; scale = 0
        case .mobius:
            let j = 0.3
            let aa = -j * j * (p - 1) / (j * j - 2 * j + p), bb = (j * j - 2 * j * p + p) / max(p - 1, 1e-6)
            k = Float(j); a = Float(aa); b = Float(bb); scale = Float((bb * bb + 2 * bb * j + j * j) / (bb - aa) * c.targetPeak)
        }
    }

    @inline(__always) func gain(_ m: Vector8) -> Vector8 {
        let x = VectorMath.max(m, Vector8(repeating: 1e-6)), u = x * inverseTarget
        switch curve {
        case .hable:
            // FFmpeg's constants: a 0.15, b 0.50, c 0.10, d 0.20, e 0.02, f 0.30.
            // In typed steps: as one expression it took the type checker 7.4 s.
            let numerator: Vector8 = u * (0.15 * u + 0.05) + 0.004
            let denominator: Vector8 = u * (0.15 * u + 0.5) + 0.06
            let h: Vector8 = numerator / denominator - Float(0.02 / 0.3)
            return k * h / x
        case .reinhard:
            return k / (u + a)
        case .clip:
            return VectorMath.min(Vector8(repeating: 1), 1 / u)
        case .mobius:
            let rolled = scale * (u + a) / ((u + b) * x)
            return VectorMath.select(u .<= k, Vector8(repeating: 1), rolled)
        }
    }
}
