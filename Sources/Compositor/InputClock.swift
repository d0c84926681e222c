/// Where one input lies in time under time sync: where its time 0 falls on the first input's
/// clock, how fast its clock runs against the first's, and the part of it that is used.
///
/// An input's own time is seconds from its first shown frame (pts minus that frame's pts; an
/// edit list applied), the time `FrameSync` measures every input in. The first input's clock is
/// the reference: `offset` and `driftPpm` of the first input are 0 (`CompositeOptions.check`).
///
///     reference time r  <->  input time t:   t = (r - offset) * (1 + driftPpm * 1e-6)
///
/// So an input whose clock runs fast (positive ppm) stamps one reference second as a little
/// more than one second of its own: its frames are chosen, and its audio resampled, on the
/// corrected clock. `lockstep align` measures offsets and drifts in these terms.
public struct InputClock: Equatable, Sendable, CustomStringConvertible {
    /// Seconds: where this input's time 0 (its first frame) lies on the first input's clock.
    /// Negative: the input started before the first input.
    public var offset: Rational
    /// Parts per million by which this input's clock runs fast against the first input's.
    public var driftPpm: Double
    /// The part of the input used, in seconds of its own time.
    public var trim: Trim

    public init(offset: Rational = Rational(0, 1), driftPpm: Double = 0, trim: Trim = .whole) {
        self.offset = offset; self.driftPpm = driftPpm; self.trim = trim
    }

    /// The first input's clock, and every input's when nothing is said: time 0 together, no drift.
    public static let identity = InputClock()

    /// The part of an input used, in seconds of its own time: from `start` (0: its first frame)
    /// to `end` (nil: its last frame's end).
    public struct Trim: Equatable, Sendable {
        public var start: Rational
        public var end: Rational?
        public init(start: Rational = Rational(0, 1), end: Rational? = nil) { self.start = start; self.end = end }
        public static let whole = Trim()
    }

    public var isIdentity: Bool { self == .identity }

    /// The drift in parts per billion, the resolution the clock works at (0.001 ppm).
    public var driftPpb: Int64 { Int64((driftPpm * 1000).rounded()) }

    /// The input's own time at reference time r. Exact without drift (the time sync compares in
    /// exact arithmetic); with drift rounded to the nanosecond, far below any time base's
    /// half unit, which `FrameSync` allows for anyway.
    public func inputTime(atReference r: Rational) -> Rational {
        let x = r.subtracting(offset) ?? Rational(Self.nanoseconds(r) - Self.nanoseconds(offset), 1_000_000_000)
        let ppb = driftPpb
        if ppb == 0 { return x }
        // x * (1e9 + ppb) / 1e9 seconds = x.num * (1e9 + ppb) / x.den ns.
        let n = Int128(x.num) * Int128(1_000_000_000 + ppb), d = Int128(x.den)
        let ns = n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d)
        return Rational(Int64(clamping: ns), 1_000_000_000)
    }

    /// The reference time of the input's own time t (the inverse of `inputTime`).
    public func referenceTime(ofInput t: Rational) -> Rational {
        var x = t
        let ppb = driftPpb
        if ppb != 0 {
            // t / (1 + ppb * 1e-9) seconds = t.num * 1e18 / (t.den * (1e9 + ppb)) ns.
            let n = Int128(t.num) * 1_000_000_000_000_000_000, d = Int128(t.den) * Int128(1_000_000_000 + ppb)
            x = Rational(Int64(clamping: n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d)), 1_000_000_000)
        }
        return x.adding(offset) ?? Rational(Self.nanoseconds(x) + Self.nanoseconds(offset), 1_000_000_000)
    }

    /// Where the used part of the input begins on the reference clock.
    public var referenceStart: Rational { referenceTime(ofInput: trim.start) }

    /// A time in whole nanoseconds, rounded (for sums that do not fit exactly in 64 bits).
    static func nanoseconds(_ r: Rational) -> Int64 {
        let n = Int128(r.num) * 1_000_000_000, d = Int128(r.den)
        return Int64(clamping: n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d))
    }

    public var description: String {
        var parts = ["offset \(Self.text(offset)) s"]
        if driftPpm != 0 { parts.append("drift \(driftPpm) ppm") }
        if trim != .whole { parts.append("trim \(Self.text(trim.start))-\(trim.end.map(Self.text) ?? "end")") }
        return parts.joined(separator: ", ")
    }

    /// Seconds as a person reads them: "0", "2.5", "-0.041667".
    public static func text(_ r: Rational) -> String {
        if r.den == 1 { return "\(r.num)" }
        let n = Int128(r.num) * 1_000_000, d = Int128(r.den)
        let micro = n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d)
        let whole = micro.magnitude / 1_000_000, fraction = micro.magnitude % 1_000_000
        var digits = String(fraction)
        digits = String(repeating: "0", count: 6 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return (micro < 0 ? "-" : "") + "\(whole)" + (digits.isEmpty ? "" : "." + digits)
    }
}

/// How much of the inputs' time the output covers, and what an input shows where it has no
/// frame of its own.
public struct SyncPlacement: Equatable, Sendable {
    /// Each input's clock (time sync), in input order.
    public var clocks: [InputClock]
    /// `common`: from the latest start to the earliest end, the time every input saw (no input
    /// is ever missing from a tick). `longest`: from the earliest start to the latest end; an
    /// input that has not started yet or has ended is absent (the job draws it black, its audio
    /// silent).
    public var coverage: Coverage
    /// An input that has ended shows its last frame until the output ends (which is then when
    /// the last input ends) instead of ending the output.
    public var holdLast: Bool

    public enum Coverage: String, Sendable, CaseIterable { case common, longest }

    public init(clocks: [InputClock], coverage: Coverage = .common, holdLast: Bool = false) {
        self.clocks = clocks; self.coverage = coverage; self.holdLast = holdLast
    }

    /// Every input from its first frame, as time sync has always placed them.
    public static func together(_ inputs: Int) -> SyncPlacement { SyncPlacement(clocks: Array(repeating: .identity, count: inputs)) }

    /// The reference time of output time 0: the latest start of the used parts (`common`) or the
    /// earliest (`longest`).
    public var start: Rational {
        let starts = clocks.map(\.referenceStart)
        return (coverage == .common ? starts.max() : starts.min()) ?? Rational(0, 1)
    }
}
