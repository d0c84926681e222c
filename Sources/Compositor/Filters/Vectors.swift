/// Eight pixels of one component as Float: the unit the filter kernels compute in.
///
/// Why this file: the build targets baseline x86-64 (SSE2), where Swift's generic SIMD
/// `rounded()`, `pointwiseMin`, `squareRoot()` and float-to-integer conversions each end in a
/// call per lane (seen in `swiftc -O -emit-assembly`). The few operations the kernels need are
/// spelled here so LLVM emits straight vector code (minps, cmpps, cvtdq2ps, packuswb, mulps),
/// and they round exactly as the scalar code they replace did (`x.rounded()`, halves up).
import CVectors

typealias Vector8 = SIMD8<Float>
typealias IntVector8 = SIMD8<Int32>

enum VectorMath {
    /// 1.5 * 2^23: added to |x| < 2^22, the sum's low mantissa bits are x rounded to even.
    static let magic: Float = 12_582_912
    static let magicBits: Int32 = 0x4B40_0000
    static let index = Vector8(0, 1, 2, 3, 4, 5, 6, 7)

    /// Conversions (exact; CVectors.h says why they are in C).
    @inline(__always) static func float(_ x: IntVector8) -> Vector8 { cvec_float(x) }
    @inline(__always) static func widen(_ x: SIMD8<UInt8>) -> IntVector8 { cvec_widen8(x) }
    @inline(__always) static func widen(_ x: SIMD8<UInt16>) -> IntVector8 { cvec_widen16(x) }
    @inline(__always) static func narrow8(_ x: IntVector8) -> SIMD8<UInt8> { cvec_narrow8(x) }
    @inline(__always) static func narrow16(_ x: IntVector8) -> SIMD8<UInt16> { cvec_narrow16(x) }

    @inline(__always) static func min(_ a: Vector8, _ b: Vector8) -> Vector8 {
        var r = Vector8()
        for i in 0..<8 { r[i] = a[i] < b[i] ? a[i] : b[i] }
        return r
    }

    @inline(__always) static func max(_ a: Vector8, _ b: Vector8) -> Vector8 {
        var r = Vector8()
        for i in 0..<8 { r[i] = a[i] > b[i] ? a[i] : b[i] }
        return r
    }

    @inline(__always) static func clamp(_ a: Vector8, _ lo: Float, _ hi: Float) -> Vector8 {
        min(max(a, Vector8(repeating: lo)), Vector8(repeating: hi))
    }

    /// 0 where `m` holds, else `a`. (`replacing(with: 0, where:)` takes a branch per lane.)
    @inline(__always) static func zero(_ a: Vector8, where m: SIMDMask<IntVector8>) -> Vector8 {
        unsafeBitCast(unsafeBitCast(a, to: IntVector8.self) & ~unsafeBitCast(m, to: IntVector8.self), to: Vector8.self)
    }

    /// `a` where `m` holds, else `b`.
    @inline(__always) static func select(_ m: SIMDMask<IntVector8>, _ a: Vector8, _ b: Vector8) -> Vector8 {
        b.replacing(with: a, where: m)
    }

    /// x rounded to the nearest integer, ties to even (|x| < 2^22), as Float and as Int32.
    @inline(__always) static func roundEven(_ x: Vector8) -> (Vector8, IntVector8) {
        let big = x + magic
        return (big - magic, unsafeBitCast(big, to: IntVector8.self) &- magicBits)
    }

    /// x rounded to the nearest integer, halves away from zero for x >= 0 (`Float.rounded()`).
    @inline(__always) static func roundHalfUp(_ x: Vector8) -> IntVector8 {
        let (t, i) = roundEven(x)
        // A half that went down to even goes up instead; x - t is exact here.
        return i &- unsafeBitCast((x - t) .== 0.5, to: IntVector8.self)
    }

    /// floor(x) for |x| < 2^22, as Float and as Int32.
    @inline(__always) static func floor(_ x: Vector8) -> (Vector8, IntVector8) {
        let (t, i) = roundEven(x)
        let up = unsafeBitCast(t .> x, to: IntVector8.self)  // -1 where rounding went up
        return (t + float(up), i &+ up)
    }

    /// `UInt8(max(0, min(255, x.rounded())))` in every lane.
    @inline(__always) static func bytes(_ x: Vector8) -> SIMD8<UInt8> {
        narrow8(roundHalfUp(clamp(x, 0, 255)))
    }

    /// `count` bytes from `p` (the lanes past it 0), as Float.
    @inline(__always) static func load(_ p: UnsafePointer<UInt8>, _ count: Int) -> Vector8 {
        var v = SIMD8<UInt8>()
        if count >= 8 {
            v = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self)
        } else {
            for i in 0..<count { v[i] = p[i] }
        }
        return float(widen(v))
    }

    @inline(__always) static func load(_ p: UnsafeMutablePointer<UInt8>, _ count: Int) -> Vector8 {
        load(UnsafePointer(p), count)
    }

    /// The first `count` lanes of `v` to `p`.
    @inline(__always) static func store(_ v: SIMD8<UInt8>, _ p: UnsafeMutablePointer<UInt8>, _ count: Int) {
        if count >= 8 {
            UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<UInt8>.self)
        } else {
            for i in 0..<count { p[i] = v[i] }
        }
    }

    /// sqrt(x) for x >= 0: the reciprocal square root from the exponent trick, three Newton
    /// steps (a few ulp), times x. Float.squareRoot() calls libm's sqrtf per lane here.
    @inline(__always) static func sqrt(_ x: Vector8) -> Vector8 {
        var y = unsafeBitCast(IntVector8(repeating: 0x5F37_5A86) &- (unsafeBitCast(x, to: IntVector8.self) &>> 1), to: Vector8.self)
        let h = x * 0.5
        for _ in 0..<3 { y = y * (1.5 - h * y * y) }
        return x * y
    }

    /// sqrt(q) for whole numbers 0 <= q < 2^22: `sqrt`, with perfect squares made exact (a
    /// root one ulp low would round a tie such as 16 + 1.5 * 12 / 4 = 20.5 the wrong way).
    @inline(__always) static func sqrtOfWhole(_ q: Vector8) -> Vector8 {
        let m = sqrt(q)
        let (t, _) = roundEven(m)
        return select(t * t .== q, t, m)
    }
}
