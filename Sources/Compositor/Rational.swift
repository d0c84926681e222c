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
    public var seconds: Double { Double(num) / Double(den) }
    public var description: String { den == 1 ? "\(num)" : "\(num)/\(den)" }

    /// Parses "30", "30000/1001" or "29.97" (decimals become an exact fraction).
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2, let n = Int64(parts[0]), let d = Int64(parts[1]), d != 0 {
            self.init(n, d)
        } else if parts.count == 1, let n = Int64(text) {
            self.init(n, 1)
        } else if parts.count == 1, let dot = text.firstIndex(of: "."),
                  let whole = Int64(text[..<dot]), text.index(after: dot) < text.endIndex,
                  let frac = Int64(text[text.index(after: dot)...]), whole >= 0, frac >= 0 {
            let digits = text.distance(from: text.index(after: dot), to: text.endIndex)
            guard digits <= 9 else { return nil }
            var scale: Int64 = 1
            for _ in 0..<digits { scale *= 10 }
            self.init(whole * scale + frac, scale)
        } else {
            return nil
        }
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
        var (x, y) = (n.magnitude, d.magnitude)
        while y != 0 { (x, y) = (y, x % y) }
        let g = Int128(x == 0 ? 1 : x)
        return Rational(Int64(n / g), Int64(d / g))
    }

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
    public var seconds: Double { rational.seconds }
    public var description: String { "\(value)@\(timeBase)" }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.rational < b.rational }
    public static func == (a: Timestamp, b: Timestamp) -> Bool { a.rational == b.rational }
    public func hash(into h: inout Hasher) { let r = rational; h.combine(r.num); h.combine(r.den) }
}
