import RealModule

/// A colour function of R', G' and B' (0...1 each), the presets that need RGB: rosy, sepia,
/// gamma, posterize, a 3D LUT.
public protocol RGBTransform {
    func apply(_ c: SIMD3<Float>) -> SIMD3<Float>
    /// The same on eight pixels at once, one component per vector: what the kernel runs. The
    /// default calls `apply(_:)` per pixel; the presets give straight vector code.
    func apply(_ r: inout SIMD8<Float>, _ g: inout SIMD8<Float>, _ b: inout SIMD8<Float>)
}

extension RGBTransform {
    public func apply(_ r: inout SIMD8<Float>, _ g: inout SIMD8<Float>, _ b: inout SIMD8<Float>) {
        for i in 0..<8 {
            let c = apply(SIMD3(r[i], g[i], b[i]))
            r[i] = c.x; g[i] = c.y; b[i] = c.z
        }
    }
}

/// Runs an `RGBTransform` on a yuv420p picture without a full-size RGB copy: each 2x2 block
/// shares one chroma sample, so its four pixels are converted to RGB (BT.709 video range, the
/// SDR working signal, as `YUVColor(rgb:)`), transformed, clipped to the gamut and converted back; the block's new
/// chroma is the mean of its four. Eight blocks (two rows of sixteen pixels) at a time, in
/// vectors (`Vector8`): nothing is allocated and nothing leaves the registers but the result.
public struct RGBPointKernel<T: RGBTransform>: FilterKernel {
    let transform: T
    public init(_ transform: T) { self.transform = transform }

    /// The chroma offsets of eight blocks, each repeated for the block's two columns.
    @inline(__always) static func pairs(_ v: Vector8) -> (Vector8, Vector8) {
        var lo = Vector8(), hi = Vector8()
        for i in 0..<4 { lo[2 * i] = v[i]; lo[2 * i + 1] = v[i]; hi[2 * i] = v[i + 4]; hi[2 * i + 1] = v[i + 4] }
        return (lo, hi)
    }

    // BT.709: Y' = 0.2126 R' + 0.7152 G' + 0.0722 B'; Cb = (B' - Y') / 1.8556, Cr = (R' - Y') / 1.5748.
    static var kr: Float { 0.2126 }
    static var kg: Float { 0.7152 }
    static var kb: Float { 0.0722 }
    static var cbToB: Float { 1.8556 }
    static var crToR: Float { 1.5748 }
    static var cbToG: Float { -0.187324 }  // -2 kb (1 - kb) / kg
    static var crToG: Float { -0.468124 }  // -2 kr (1 - kr) / kg

    /// Eight pixels of one row: luma written, their (B' - Y') / 1.8556 and (R' - Y') / 1.5748 returned.
    @inline(__always) func pixels(
        _ yi: UnsafePointer<UInt8>, _ yo: UnsafeMutablePointer<UInt8>, _ count: Int,
        _ offR: Vector8, _ offG: Vector8, _ offB: Vector8
    ) -> (Vector8, Vector8) {
        let yn = (VectorMath.load(yi, count) - 16) / 219
        var r = yn + offR, g = yn + offG, b = yn + offB
        transform.apply(&r, &g, &b)
        r = VectorMath.clamp(r, 0, 1); g = VectorMath.clamp(g, 0, 1); b = VectorMath.clamp(b, 0, 1)
        let l = Self.kr * r + Self.kg * g + Self.kb * b
        VectorMath.store(VectorMath.bytes(16 + 219 * l), yo, count)
        return ((b - l) / Self.cbToB, (r - l) / Self.crToR)
    }

    /// Lane i + lane i+1 for each pair: eight pixels' values into four blocks' sums.
    @inline(__always) static func pairSums(_ lo: Vector8, _ hi: Vector8) -> Vector8 {
        let s = SIMD16(lowHalf: lo, highHalf: hi)
        return s.evenHalf + s.oddHalf
    }

    public mutating func apply(_ input: YUVImage, into output: YUVImage) {
        let w = input.width, h = input.height
        for by in 0..<input.u.height {
            let ui = input.u.row(by), vi = input.v.row(by), uo = output.u.row(by), vo = output.v.row(by)
            let rows = min(2, h - 2 * by)
            var bx = 0
            while bx < input.u.width {
                let blocks = min(8, input.u.width - bx), columns = min(16, w - 2 * bx)
                let pb = (VectorMath.load(ui + bx, blocks) - 128) / 224, pr = (VectorMath.load(vi + bx, blocks) - 128) / 224
                let (rLo, rHi) = Self.pairs(Self.crToR * pr), (gLo, gHi) = Self.pairs(Self.cbToG * pb + Self.crToG * pr)
                let (bLo, bHi) = Self.pairs(Self.cbToB * pb)
                var sumPb = Vector8(), sumPr = Vector8()
                for dy in 0..<rows {
                    let yi = input.y.row(2 * by + dy) + 2 * bx, yo = output.y.row(2 * by + dy) + 2 * bx
                    var (pbLo, prLo) = pixels(yi, yo, min(8, columns), rLo, gLo, bLo)
                    var (pbHi, prHi) = columns > 8 ? pixels(yi + 8, yo + 8, columns - 8, rHi, gHi, bHi) : (Vector8(), Vector8())
                    if columns < 16 {
                        // Pixels past the right edge are not part of any block's mean.
                        let inside = VectorMath.index .< Float(columns), insideHi = VectorMath.index .< Float(columns - 8)
                        pbLo = VectorMath.zero(pbLo, where: .!inside); prLo = VectorMath.zero(prLo, where: .!inside)
                        pbHi = VectorMath.zero(pbHi, where: .!insideHi); prHi = VectorMath.zero(prHi, where: .!insideHi)
                    }
                    sumPb += Self.pairSums(pbLo, pbHi); sumPr += Self.pairSums(prLo, prHi)
                }
                // The mean over the block's pixels: 2 x rows, or 1 x rows for a last column alone.
                var n = Vector8(repeating: Float(2 * rows))
                if columns < 16 { n = VectorMath.min(n, VectorMath.max(Vector8(repeating: 1), (Float(columns) - 2 * VectorMath.index) * Float(rows))) }
                VectorMath.store(VectorMath.bytes(128 + 224 * sumPb / n), uo + bx, blocks)
                VectorMath.store(VectorMath.bytes(128 + 224 * sumPr / n), vo + bx, blocks)
                bx += 8
            }
        }
    }
}

/// AVCamFilter's Rosy: green gone, red and blue kept.
public struct RosyTransform: RGBTransform {
    public init() {}
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> { SIMD3(c.x, 0, c.z) }
    public func apply(_ r: inout SIMD8<Float>, _ g: inout SIMD8<Float>, _ b: inout SIMD8<Float>) { g = .zero }
}

/// GPUImage's sepia colour matrix, mixed with the picture by `intensity`.
public struct SepiaTransform: RGBTransform {
    let intensity: Float
    public init(intensity: Double) { self.intensity = Float(intensity) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> {
        let s = SIMD3<Float>(
            0.3588 * c.x + 0.7044 * c.y + 0.1368 * c.z,
            0.2990 * c.x + 0.5870 * c.y + 0.1140 * c.z,
            0.2392 * c.x + 0.4696 * c.y + 0.0912 * c.z)
        return c + (s - c) * intensity
    }
    public func apply(_ r: inout SIMD8<Float>, _ g: inout SIMD8<Float>, _ b: inout SIMD8<Float>) {
        let sr = 0.3588 * r + 0.7044 * g + 0.1368 * b
        let sg = 0.2990 * r + 0.5870 * g + 0.1140 * b
        let sb = 0.2392 * r + 0.4696 * g + 0.0912 * b
        r += (sr - r) * intensity; g += (sg - g) * intensity; b += (sb - b) * intensity
    }
}

/// c^gamma per channel (GPUImage's gamma), negative values (out of gamut) kept at 0.
public struct GammaTransform: RGBTransform {
    let gamma: Float
    let table: PowTable
    public init(gamma: Double) { self.gamma = Float(gamma); table = PowTable(Float(gamma)) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3(Float.pow(max(0, c.x), gamma), Float.pow(max(0, c.y), gamma), Float.pow(max(0, c.z), gamma))
    }
    /// Above 1 the power is above 1 too (gamma > 0) and the kernel clips it to 1: looked up
    /// on c clipped to 0...1.
    @inline(__always) public func apply(_ r: inout SIMD8<Float>, _ g: inout SIMD8<Float>, _ b: inout SIMD8<Float>) {
        r = table(r); g = table(g); b = table(b)
    }
}

/// x^p for 0 <= x <= 1 from a table, made with the transform (never per frame). Why a table:
/// the vector pow (a log and an exp polynomial per lane) cost 43 ms per 1080p frame for the
/// three channels; eight lookups and a multiply-add cost a fifth of that. The index is the
/// float's top bits (exponent and 8 mantissa bits), so every octave down to the smallest
/// normal has 256 segments, linear inside one: relative error below 2e-4 for gamma 10, 1e-6
/// for gamma 2.2 (0.0003 of an 8-bit level; measured against powf over 0...1). 32513 entries
/// of (value, slope), 260 KB, of which a picture touches the top few octaves.
final class PowTable {
    static let shift: Int32 = 15
    let entries: UnsafeMutablePointer<SIMD2<Float>>

    init(_ p: Float) {
        let count = Int(Float(1).bitPattern >> UInt32(Self.shift)) + 1
        entries = .allocate(capacity: count)
        for k in 0..<count {
            let x0 = Double(Float(bitPattern: UInt32(k) << UInt32(Self.shift)))
            let x1 = Double(Float(bitPattern: UInt32(k + 1) << UInt32(Self.shift)))
            // Segment 0 holds 0 and the subnormals: 0 there, as the vector pow gave.
            let v0 = k == 0 ? 0 : Double.pow(x0, Double(p)), v1 = Double.pow(x1, Double(p))
            (entries + k).initialize(to: SIMD2(Float(v0), k == 0 || k == count - 1 ? 0 : Float((v1 - v0) / (x1 - x0))))
        }
    }
    deinit { entries.deallocate() }

    @inline(__always) func callAsFunction(_ x: Vector8) -> Vector8 {
        let c = VectorMath.clamp(x, 0, 1)
        let index = unsafeBitCast(c, to: IntVector8.self) &>> Self.shift
        let x0 = unsafeBitCast(index &<< Self.shift, to: Vector8.self)
        // Each lane's entry with a constant lane number: a loop writing lane i of a vector
        // stores the vector, writes the lane and reloads it (a store-forwarding stall a lane).
        let t = entries
        @inline(__always) func e(_ i: Int) -> SIMD2<Float> { t[Int(index[i])] }
        let e0 = e(0), e1 = e(1), e2 = e(2), e3 = e(3), e4 = e(4), e5 = e(5), e6 = e(6), e7 = e(7)
        let v = Vector8(e0.x, e1.x, e2.x, e3.x, e4.x, e5.x, e6.x, e7.x), k = Vector8(e0.y, e1.y, e2.y, e3.y, e4.y, e5.y, e6.y, e7.y)
        return v + (c - x0) * k
    }
}

/// floor(c * levels + 0.5) / levels per channel (GPUImage's posterize).
public struct PosterizeTransform: RGBTransform {
    let levels: Float
    public init(levels: Int) { self.levels = Float(levels) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> {
        (simd_clamp01(c) * levels + 0.5).rounded(.down) / levels
    }
    public func apply(_ r: inout SIMD8<Float>, _ g: inout SIMD8<Float>, _ b: inout SIMD8<Float>) {
        r = VectorMath.floor(VectorMath.clamp(r, 0, 1) * levels + 0.5).0 / levels
        g = VectorMath.floor(VectorMath.clamp(g, 0, 1) * levels + 0.5).0 / levels
        b = VectorMath.floor(VectorMath.clamp(b, 0, 1) * levels + 0.5).0 / levels
    }
}

@inline(__always) func simd_clamp01(_ c: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(max(0, min(1, c.x)), max(0, min(1, c.y)), max(0, min(1, c.z)))
}

/// c + amount (GPUImage's brightness).
public struct BrightnessTransform: RGBTransform {
    let amount: Float
    public init(amount: Double) { self.amount = Float(amount) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> { c + amount }
    public func apply(_ r: inout SIMD8<Float>, _ g: inout SIMD8<Float>, _ b: inout SIMD8<Float>) { r += amount; g += amount; b += amount }
}

/// (c - 0.5) * amount + 0.5 (GPUImage's contrast).
public struct ContrastTransform: RGBTransform {
    let amount: Float
    public init(amount: Double) { self.amount = Float(amount) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> { (c - 0.5) * amount + 0.5 }
    public func apply(_ r: inout SIMD8<Float>, _ g: inout SIMD8<Float>, _ b: inout SIMD8<Float>) {
        r = (r - 0.5) * amount + 0.5; g = (g - 0.5) * amount + 0.5; b = (b - 0.5) * amount + 0.5
    }
}

/// mix(luma, c, amount), luma by BT.709's weights (the working signal's, and GPUImage's saturation's).
public struct SaturationTransform: RGBTransform {
    let amount: Float
    public init(amount: Double) { self.amount = Float(amount) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> {
        let l = 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z
        return l + (c - l) * amount
    }
    public func apply(_ r: inout SIMD8<Float>, _ g: inout SIMD8<Float>, _ b: inout SIMD8<Float>) {
        let l = 0.2126 * r + 0.7152 * g + 0.0722 * b
        r = l + (r - l) * amount; g = l + (g - l) * amount; b = l + (b - l) * amount
    }
}

/// c * 2^ev (GPUImage's exposure).
public struct ExposureTransform: RGBTransform {
    let k: Float
    public init(ev: Double) { k = Float.exp2(Float(ev)) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> { c * k }
    public func apply(_ r: inout SIMD8<Float>, _ g: inout SIMD8<Float>, _ b: inout SIMD8<Float>) { r *= k; g *= k; b *= k }
}
