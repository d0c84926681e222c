/// Rate, jitter and gaps of a trace's timestamps, measured in two streaming passes (the median
/// interval first, then the gaps against it), so a trace of any length is never held whole.
public struct TraceStatistics: Equatable, Sendable {
    /// A step between two samples longer than `gapFactor` times the median interval.
    public struct Gap: Equatable, Sendable {
        /// The timestamp of the sample before the gap.
        public var start: Int64
        public var length: Int64
        public init(start: Int64, length: Int64) { self.start = start; self.length = length }
    }

    public static let gapFactor: Int64 = 2
    /// How many gaps are kept in `gaps`; `gapCount` counts them all.
    public static let gapsKept = 100

    public var count = 0
    public var first: Int64?
    public var last: Int64?
    /// Median step between samples, to the microsecond.
    public var medianInterval: Int64?
    /// Standard deviation of the steps that are not gaps, in nanoseconds.
    public var jitter: Double?
    public var gaps: [Gap] = []
    public var gapCount = 0

    public var duration: Int64 { first.flatMap { f in last.map { $0 - f } } ?? 0 }
    /// Samples per second over the whole trace, gaps included.
    public var rate: Double? { count > 1 && duration > 0 ? Double(count - 1) / (Double(duration) / 1e9) : nil }

    /// `stream` is called twice and must hand every timestamp, in order, to its argument each time.
    public static func measure(_ stream: (_ visit: (Int64) -> Void) throws -> Void) rethrows -> TraceStatistics {
        var s = TraceStatistics()
        // Pass 1: count, ends, and a histogram of steps in whole microseconds (bounded by the
        // number of distinct steps, not samples) for the median.
        var histogram: [Int64: Int] = [:]
        var previous: Int64?
        try stream { t in
            if s.first == nil { s.first = t }
            s.last = t
            s.count += 1
            if let p = previous { histogram[((t - p) + 500) / 1000, default: 0] += 1 }
            previous = t
        }
        guard s.count > 1 else { return s }
        var seen = 0
        let half = (s.count - 1 + 1) / 2
        for (step, n) in histogram.sorted(by: { $0.key < $1.key }) {
            seen += n
            if seen >= half { s.medianInterval = step * 1000; break }
        }
        // Pass 2: gaps, and Welford's running variance of the other steps.
        let limit = gapFactor * max(s.medianInterval!, 1)
        var n = 0.0, mean = 0.0, m2 = 0.0
        previous = nil
        try stream { t in
            defer { previous = t }
            guard let p = previous else { return }
            let step = t - p
            if step > limit {
                s.gapCount += 1
                if s.gaps.count < gapsKept { s.gaps.append(Gap(start: p, length: step)) }
                return
            }
            n += 1
            let d = Double(step) - mean
            mean += d / n
            m2 += d * (Double(step) - mean)
        }
        s.jitter = n > 0 ? (m2 / n).squareRoot() : nil
        return s
    }

    /// For timestamps already in memory.
    public init(timestamps: [Int64]) { self = Self.measure { visit in timestamps.forEach(visit) } }

    public init() {}
}
