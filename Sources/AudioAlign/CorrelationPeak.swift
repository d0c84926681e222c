import Motion

/// The highest value of a correlation over a range of lags, to a fraction of a sample, and how
/// far it stands out: `z`, its height over the rms of the whole range (a correlation of
/// unrelated sound peaks at about sqrt(2 ln N) over N lags: 4 to 5 here), and `rivalZ`, the
/// highest value at least `exclusion` lags away (a second place the probe might belong).
public struct CorrelationPeak: Equatable, Sendable {
    /// Index into the values, with the sub-sample part.
    public var index: Double
    public var z: Double
    public var rivalZ: Double
    /// Where that next best place is (an index into the values, whole samples).
    public var rivalIndex: Int
    /// z / rivalZ: 1 when two places are as likely, large for one clear place.
    public var distinctness: Double { rivalZ > 0 ? z / rivalZ : .infinity }
    /// The peak is at an end of the range searched: the match may lie beyond it.
    public var atEdge: Bool

    /// nil for an empty range, or one whose values are all zero (silence).
    public static func find(in values: [Float], range: Range<Int>, exclusion: Int) -> CorrelationPeak? {
        let r = range.clamped(to: 0..<values.count)
        guard !r.isEmpty else { return nil }
        return values.withUnsafeBufferPointer { v in
            var best = r.lowerBound
            var sum = 0.0
            for i in r {
                let x = v[i]
                sum += Double(x) * Double(x)
                if x > v[best] { best = i }
            }
            let rms = (sum / Double(r.count)).squareRoot()
            guard rms > 0, v[best] > 0 else { return nil }
            var rival: Float = 0, rivalIndex = best
            for i in r where abs(i - best) >= exclusion && v[i] > rival { rival = v[i]; rivalIndex = i }
            var index = Double(best)
            if best > r.lowerBound && best < r.upperBound - 1 {
                index += PhaseCorrelationPeak.offset(Double(v[best - 1]), Double(v[best]), Double(v[best + 1]))
            }
            return CorrelationPeak(
                index: index, z: Double(v[best]) / rms, rivalZ: Double(rival) / rms, rivalIndex: rivalIndex,
                atEdge: best == r.lowerBound || best == r.upperBound - 1)
        }
    }
}
