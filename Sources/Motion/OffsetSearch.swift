/// One measurement of the offset: a window of the clip, the offset that matched it best, and how
/// well (Pearson correlation between the picture's shift and the gyro's, 1 = perfect).
public struct SyncPoint: Codable, Equatable, Sendable {
    /// The window's middle, video time in seconds from the first frame.
    public var videoTimeS: Double
    /// video time = IMU time + offsetMs there.
    public var offsetMs: Double
    public var score: Double
    public init(videoTimeS: Double, offsetMs: Double, score: Double) {
        self.videoTimeS = videoTimeS; self.offsetMs = offsetMs; self.score = score
    }
}

/// A correlation curve over candidate offsets and what its peak looks like.
struct PeakAnalysis: Equatable {
    var index: Int
    var value: Double
    /// The highest separate peak: a local maximum from which the curve, on its way to the
    /// winner, falls at least half the way from it down to the curve's median (-1 when there is
    /// none). A bump on the winner's own shoulder (a smooth motion's broad peak, a few ms from
    /// the best) is no other answer; only a peak standing on its own elsewhere is (issue 41).
    var runnerUp: Double
    /// The winner's own peak: the indices about the best where the curve stays at or above half
    /// its height over the curve's median.
    var width: ClosedRange<Int>
    /// The best is the first or last valid candidate: the true peak may lie beyond.
    var atEdge: Bool

    /// The best sits next to a grid point that was not scanned (only with a grid): the caller
    /// scans around it and asks again.
    var besideUnscanned = false

    /// `values[i]` nil where too few intervals overlap the trace. With `grid`, `values[i]` belongs
    /// to point `grid[i]` (increasing) of a grid of `gridCount` points of which only some were
    /// scanned: a gap between scanned points is unknown, neither an edge nor a lower neighbour.
    init?(_ values: [Double?], grid: [Int]? = nil, gridCount: Int? = nil) {
        guard let best = values.indices.filter({ values[$0] != nil }).max(by: { values[$0]! < values[$1]! }) else { return nil }
        index = best; value = values[best]!
        func v(_ i: Int) -> Double { (i >= 0 && i < values.count) ? (values[i] ?? -2) : -2 }
        /// Whether array index `i` (next to `j`, `i = j +- 1`) holds `j`'s grid neighbour, or that
        /// neighbour lies outside the grid (both known: an edge, or a value).
        func known(_ i: Int, nextTo j: Int) -> Bool {
            guard let grid, let gridCount else { return true }
            let g = grid[j] + (i - j)
            if g < 0 || g >= gridCount { return true }
            return i >= 0 && i < values.count && grid[i] == g
        }
        atEdge = (known(best - 1, nextTo: best) && v(best - 1) == -2) || (known(best + 1, nextTo: best) && v(best + 1) == -2)
        besideUnscanned = !known(best - 1, nextTo: best) || !known(best + 1, nextTo: best)
        var lo = best
        while lo > 0, known(lo - 1, nextTo: lo), let p = values[lo - 1], p <= v(lo) { lo -= 1 }
        var hi = best
        while hi < values.count - 1, known(hi + 1, nextTo: hi), let n = values[hi + 1], n <= v(hi) { hi += 1 }
        let valid = values.compactMap { $0 }.sorted()
        let median = valid[valid.count / 2]
        let half = median + (value - median) / 2
        var wLo = best
        while wLo > 0, known(wLo - 1, nextTo: wLo), let p = values[wLo - 1], p >= half { wLo -= 1 }
        var wHi = best
        while wHi < values.count - 1, known(wHi + 1, nextTo: wHi), let n = values[wHi + 1], n >= half { wHi += 1 }
        width = wLo...wHi
        /// The lowest value between `j` and the best; -infinity across a gap (unscanned or
        /// uncovered: the two are not known to be one peak).
        func valley(_ j: Int) -> Double {
            var m = Double.infinity
            for k in min(j, best)...max(j, best) {
                guard let x = values[k] else { return -.infinity }
                if k > min(j, best), !known(k, nextTo: k - 1) { return -.infinity }
                m = min(m, x)
            }
            return m
        }
        var r = -1.0
        for j in values.indices where (j < lo || j > hi) {
            guard let x = values[j], x > r else { continue }
            // Beside a gap the value may be a slope's foot, not a peak: not counted.
            guard known(j - 1, nextTo: j), known(j + 1, nextTo: j) else { continue }
            guard x >= v(j - 1) && x >= v(j + 1) else { continue }
            if valley(j) <= median + (x - median) / 2 { r = x }
        }
        runnerUp = r
    }
}

enum OffsetSearch {
    /// Correlation of every mapping at every candidate offset (ms); nil where fewer than
    /// `minPairs` intervals overlap the trace.
    static func scan(
        _ series: SyncSeries, _ range: Range<Int>, gyro: GyroIntegral, offsetsMs: [Double],
        mappings: [SignedPermutation], minPairs: Int, drift: SyncSeries.Drift? = nil
    ) -> [[Double?]] {
        var out = [[Double?]](repeating: [Double?](repeating: nil, count: offsetsMs.count), count: mappings.count)
        for (j, o) in offsetsMs.enumerated() {
            let s = series.sums(range, offsetNs: Int64((o * 1e6).rounded()), gyro: gyro, drift: drift)
            guard Int(s.n) >= minPairs else { continue }
            for m in mappings.indices { out[m][j] = s.correlation(mappings[m]) }
        }
        return out
    }

    static func correlation(
        _ series: SyncSeries, _ range: Range<Int>, gyro: GyroIntegral, offsetMs: Double,
        mapping: SignedPermutation, minPairs: Int, drift: SyncSeries.Drift? = nil
    ) -> Double? {
        let s = series.sums(range, offsetNs: Int64((offsetMs * 1e6).rounded()), gyro: gyro, drift: drift)
        return Int(s.n) >= minPairs ? s.correlation(mapping) : nil
    }

    /// The best offset near `centreMs`: 1 ms steps over +-`halfWidthMs`, then a golden-section
    /// search down to 0.005 ms within +-1 ms of the best step (Gyroflow refines to 0.01 ms).
    static func refine(
        _ series: SyncSeries, _ range: Range<Int>, gyro: GyroIntegral, mapping: SignedPermutation,
        centreMs: Double, halfWidthMs: Double, minPairs: Int, drift: SyncSeries.Drift? = nil
    ) -> (offsetMs: Double, score: Double)? {
        func f(_ o: Double) -> Double { correlation(series, range, gyro: gyro, offsetMs: o, mapping: mapping, minPairs: minPairs, drift: drift) ?? -2 }
        var best = (o: centreMs, v: f(centreMs))
        let steps = Int(halfWidthMs.rounded(.up))
        if steps > 0 {
            for i in -steps...steps where i != 0 {
                let o = centreMs + Double(i)
                let v = f(o)
                if v > best.v { best = (o, v) }
            }
        }
        guard best.v > -2 else { return nil }
        let g = (5.0.squareRoot() - 1) / 2
        var a = best.o - 1, b = best.o + 1
        var c = b - g * (b - a), d = a + g * (b - a)
        var fc = f(c), fd = f(d)
        while b - a > 0.005 {
            if fc > fd { b = d; d = c; fd = fc; c = b - g * (b - a); fc = f(c) } else { a = c; c = d; fc = fd; d = a + g * (b - a); fd = f(d) }
        }
        let o = (a + b) / 2, v = f(o)
        return v >= best.v ? (o, v) : (best.o, best.v)
    }
}
