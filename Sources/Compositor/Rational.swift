/// An exact rational number (a time base, a frame rate, a time). Comparisons never go
/// through floating point: they cross-multiply in 128 bits, as `av_compare_ts` does.
public struct Rational: Hashable, Sendable, CustomStringConvertible {
    public var num: Int64
    public var den: Int64

    public init(_ num: Int64, _ den: Int64) {
        precondition(den != 0, "rational with zero denominator")
        let g = Rational.gcd(num, den)
        let sign: Int64 = den < 0 ? -1 : 1
        self.num = sign * num / g
        self.den = sign * den / g
    }

    public var inverse: Rational { Rational(den, num) }
    /// Both parts fit in 32 bits, as FFmpeg's AVRational holds them.
    public var fitsInt32: Bool { (Int64(Int32.min)...Int64(Int32.max)).contains(num) && den <= Int64(Int32.max) }
    public var seconds: Double { Double(num) / Double(den) }
    public var description: String { den == 1 ? "\(num)" : "\(num)/\(den)" }

    /// Parses "30", "30000/1001", "29.97" or "-0.5" (decimals become an exact fraction). Nil for
    /// anything it cannot represent exactly in 64 bits (it reads user options and crafted
    /// provenance, so it never traps): a zero denominator, a value that overflows, Int64.min.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            guard let r = Rational.decimal(parts[0]) else { return nil }
            self = r
        case 2:
            guard let n = Rational.integer(parts[0]), let d = Rational.integer(parts[1]), d != 0 else { return nil }
            self.init(n, d)
        default:
            return nil
        }
    }

    /// An optional sign and decimal digits, never Int64.min (whose negation overflows).
    private static func integer(_ text: Substring) -> Int64? {
        guard let v = Int64(text), v != .min else { return nil }
        return v
    }

    /// "-12.345" as -12345/1000, with every step checked for overflow.
    private static func decimal(_ text: Substring) -> Rational? {
        guard let dot = text.firstIndex(of: ".") else { return integer(text).map { Rational($0, 1) } }
        var whole = text[..<dot], fraction = text[text.index(after: dot)...]
        var negative = false
        if let sign = whole.first, sign == "-" || sign == "+" { negative = sign == "-"; whole = whole.dropFirst() }
        func digits(_ s: Substring) -> Bool { !s.isEmpty && s.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        guard digits(whole), digits(fraction) else { return nil }
        // Trailing zeros add nothing but size: "1.50000000000000000000" is 3/2.
        while fraction.count > 1 && fraction.last == "0" { fraction = fraction.dropLast() }
        guard fraction.count <= 18, let w = Int64(whole), let f = Int64(fraction) else { return nil }
        var scale: Int64 = 1
        for _ in 0..<fraction.count { scale *= 10 }  // at most 10^18: fits
        let (shifted, o1) = w.multipliedReportingOverflow(by: scale)
        let (sum, o2) = shifted.addingReportingOverflow(f)
        guard !o1, !o2 else { return nil }
        return Rational(negative ? -sum : sum, scale)
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (a.magnitude, b.magnitude)
        while y != 0 { (x, y) = (y, x % y) }
        return x == 0 ? 1 : Int64(x)
    }
}

extension Rational: Comparable {
    public static func < (a: Rational, b: Rational) -> Bool {
        Int128(a.num) * Int128(b.den) < Int128(b.num) * Int128(a.den)
    }
    public static func == (a: Rational, b: Rational) -> Bool {
        Int128(a.num) * Int128(b.den) == Int128(b.num) * Int128(a.den)
    }
}

extension Rational {
    public static func + (a: Rational, b: Rational) -> Rational { Rational.reduced(Int128(a.num) * Int128(b.den) + Int128(b.num) * Int128(a.den), Int128(a.den) * Int128(b.den)) }
    public static func - (a: Rational, b: Rational) -> Rational { a + Rational(-b.num, b.den) }
    public static func * (a: Rational, b: Rational) -> Rational { Rational.reduced(Int128(a.num) * Int128(b.num), Int128(a.den) * Int128(b.den)) }
    public static func * (a: Rational, k: Int64) -> Rational { a * Rational(k, 1) }

    private static func reduced(_ n: Int128, _ d: Int128) -> Rational {
        guard let r = exact(n, d) else { preconditionFailure("rational \(n)/\(d) does not fit in 64 bits") }
        return r
    }

    /// n/d in lowest terms, or nil where d is 0 or the result does not fit in 64 bits. For
    /// numbers read from files (provenance, timestamps), where the operators' trap is no answer.
    public static func exact(_ n: Int128, _ d: Int128) -> Rational? {
        guard d != 0 else { return nil }
        var (x, y) = (n.magnitude, d.magnitude)
        while y != 0 { (x, y) = (y, x % y) }
        let g = x == 0 ? 1 : x
        let nm = n.magnitude / g, dm = d.magnitude / g
        guard nm <= UInt128(Int64.max), dm <= UInt128(Int64.max) else { return nil }
        let negative = (n < 0) != (d < 0) && nm != 0
        return Rational(negative ? -Int64(nm) : Int64(nm), Int64(dm))
    }

    /// The checked counterparts of `+`, `-` and `*`: nil instead of a trap on overflow.
    public func adding(_ b: Rational) -> Rational? {
        Rational.exact(Int128(num) * Int128(b.den) + Int128(b.num) * Int128(den), Int128(den) * Int128(b.den))
    }
    public func subtracting(_ b: Rational) -> Rational? {
        Rational.exact(Int128(num) * Int128(b.den) - Int128(b.num) * Int128(den), Int128(den) * Int128(b.den))
    }
    public func multiplied(by b: Rational) -> Rational? {
        Rational.exact(Int128(num) * Int128(b.num), Int128(den) * Int128(b.den))
    }
    public func multiplied(by k: Int64) -> Rational? { Rational.exact(Int128(num) * Int128(k), Int128(den)) }

    /// |self| <= limit, compared exactly.
    public func magnitudeAtMost(_ limit: Rational) -> Bool { self <= limit && Rational(-num, den) <= limit }

    /// `value` in units of `from` expressed in units of `to`, rounded to nearest, ties away
    /// from zero: the arithmetic of `av_rescale_q`.
    public static func rescale(_ value: Int64, from: Rational, to: Rational) -> Int64 {
        let n = Int128(value) * Int128(from.num) * Int128(to.den)
        let d = Int128(from.den) * Int128(to.num)
        let half = d / 2
        return Int64(n >= 0 ? (n + half) / d : -((-n + half) / d))
    }
}

/// A presentation time: an integer count of a time base, exactly as the container stores it.
public struct Timestamp: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var value: Int64
    public var timeBase: Rational
    public init(_ value: Int64, _ timeBase: Rational) { self.value = value; self.timeBase = timeBase }

    public var rational: Rational { timeBase * value }
    /// Exact where the time fits in a Rational; a crafted pts in a time base above 1 (1000/1)
    /// may not, and then the nearest Double (never a trap: verify reads such files).
    public var seconds: Double { timeBase.multiplied(by: value)?.seconds ?? Double(value) * timeBase.seconds }
    public var description: String { "\(value)@\(timeBase)" }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.rational < b.rational }
    public static func == (a: Timestamp, b: Timestamp) -> Bool { a.rational == b.rational }
    public func hash(into h: inout Hasher) { let r = rational; h.combine(r.num); h.combine(r.den) }
}
