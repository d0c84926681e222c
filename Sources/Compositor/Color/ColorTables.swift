/// Piecewise-linear tables of the conversion's curves, read on eight lanes. Each entry is
/// (value at the segment's start, change over the segment or slope), so a lookup is one 8-byte
/// read per lane and a multiply-add. Made once per input; a frame only reads them.
///
/// Plain values over memory their owner (`ColorConvertKernel`) frees in its `deinit`: a class
/// here cost a retain and a release per eight pixels in the kernel's loop (seen in `perf`).

/// f on [0, top] in `count` equal segments. For curves that are smooth over the whole range
/// (signal to light: x^2.4, HLG's square and exponential, PQ).
struct UniformTable {
    let entries: UnsafeMutablePointer<SIMD2<Float>>
    let count: Int
    let scale: Float, last: Float

    init(top: Double, count: Int, _ f: (Double) -> Double) {
        self.count = count
        entries = .allocate(capacity: count)
        for k in 0..<count {
            let a = f(top * Double(k) / Double(count)), b = f(top * Double(k + 1) / Double(count))
            (entries + k).initialize(to: SIMD2(Float(a), Float(b - a)))
        }
        scale = Float(Double(count) / top)
        last = Float(count - 1)
    }
    /// Called once, by the owner.
    func deallocate() { entries.deallocate() }

    @inline(__always) func callAsFunction(_ x: Vector8) -> Vector8 {
        let t = VectorMath.clamp(x * scale, 0, Float(count))
        let (f, i) = VectorMath.floor(VectorMath.min(t, Vector8(repeating: last)))
        let (v, d) = gather(entries, i)
        return v + (t - f) * d
    }

    func callAsFunction(_ x: Float) -> Float {
        let t = min(max(x * scale, 0), Float(count)), i = Int(min(t, last).rounded(.down))
        return entries[i].x + (t - Float(i)) * entries[i].y
    }
}

/// f on [2^lowExponent, 2^highExponent], 32 segments an octave: the index is the float's
/// exponent and top five mantissa bits. For curves steep near 0 or spanning many octaves
/// (light to signal: x^(1/2.4), HLG's and PQ's inverses; the tone curve's gain). Below the
/// range, f at its bottom (about 0 for the signals); above, f at its top.
struct LogTable {
    static let shift: Int32 = 18
    let entries: UnsafeMutablePointer<SIMD2<Float>>
    let lo: Float, hi: Float
    let base: Int32

    init(lowExponent: Int, highExponent: Int, _ f: (Double) -> Double) {
        lo = Float(sign: .plus, exponent: lowExponent, significand: 1)
        hi = Float(sign: .plus, exponent: highExponent, significand: 1).nextDown
        base = Int32(bitPattern: lo.bitPattern) >> Self.shift
        let count = Int((Int32(bitPattern: hi.bitPattern) >> Self.shift) - base) + 1
        entries = .allocate(capacity: count)
        for k in 0..<count {
            let x0 = Double(Float(bitPattern: UInt32(Int32(k) + base) << UInt32(Self.shift)))
            let x1 = Double(Float(bitPattern: UInt32(Int32(k) + base + 1) << UInt32(Self.shift)))
            let a = f(x0), b = f(x1)
            (entries + k).initialize(to: SIMD2(Float(a), Float((b - a) / (x1 - x0))))
        }
    }
    /// Called once, by the owner.
    func deallocate() { entries.deallocate() }

    @inline(__always) func callAsFunction(_ x: Vector8) -> Vector8 {
        let c = VectorMath.clamp(x, lo, hi)
        let bits = unsafeBitCast(c, to: IntVector8.self) &>> Self.shift
        let x0 = unsafeBitCast(bits &<< Self.shift, to: Vector8.self)
        let (v, s) = gather(entries, bits &- base)
        return v + (c - x0) * s
    }

    func callAsFunction(_ x: Float) -> Float {
        let c = min(max(x, lo), hi)
        let bits = Int32(bitPattern: c.bitPattern) >> Self.shift
        let e = entries[Int(bits - base)]
        return e.x + (c - Float(bitPattern: UInt32(bits << Self.shift))) * e.y
    }
}

/// The (value, slope) entries at eight indices, as two lane vectors. Each lane's read has a
/// constant lane number (a loop writing lane i stalls store forwarding: `PowTable`).
@inline(__always) func gather(_ t: UnsafeMutablePointer<SIMD2<Float>>, _ i: IntVector8) -> (Vector8, Vector8) {
    let e0 = t[Int(i[0])], e1 = t[Int(i[1])], e2 = t[Int(i[2])], e3 = t[Int(i[3])]
    let e4 = t[Int(i[4])], e5 = t[Int(i[5])], e6 = t[Int(i[6])], e7 = t[Int(i[7])]
    return (Vector8(e0.x, e1.x, e2.x, e3.x, e4.x, e5.x, e6.x, e7.x), Vector8(e0.y, e1.y, e2.y, e3.y, e4.y, e5.y, e6.y, e7.y))
}
