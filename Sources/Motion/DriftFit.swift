/// Fits the clock mapping to sync points: offset(v) = a + d * 1e-3 * v ms (d in ppm), robustly,
/// and piecewise where the points fall on separate lines (the IMU's clock jumped).
///
/// The points, sorted by time, are split into contiguous segments by dynamic programming: each
/// segment costs the truncated squares of its residuals (a point further than the tolerance c from
/// its segment's line costs c^2, as an outlier; c from the points' own scatter, 1.5 to 5 ms), and each extra segment costs 2.5
/// outliers, so a new piece needs at least three points that agree with each other and not with
/// their neighbours. The pieces then share one drift (a camera's clock runs at one rate; it is its
/// count that jumps), fitted by weighted least squares over the inliers, each piece with its own
/// intercept.
///
/// The drift is claimed only on evidence; otherwise it is 0, the offset is fitted alone and
/// `driftNote` says why. All three must hold:
/// - the inliers span at least `minimumDriftSpanS` (20 s) of video: a window's offset is good to
///   about 1 ms, and over a shorter span the drifts that matter (100 ppm and up: 2 ms over 20 s)
///   are not far enough above that to be told from the windows' own scatter. (A 10 s clip with
///   no drift, 6 scattered windows, was reported at 1835 ppm.)
/// - at least `minimumDriftPoints` (5) independent measurements (inliers / overlap);
/// - the slope is at least 3 standard errors from 0 (the standard error of a least-squares slope,
///   sigma / sqrt(Sxx), from the inliers' residual scatter, scaled by sqrt(overlap), or by
///   sqrt((1 + rho) / (1 - rho)) when the residuals' lag-1 autocorrelation rho says their errors
///   are more correlated than the overlap alone makes them).
public enum DriftFit {
    public struct Segment: Equatable, Sendable {
        /// Indices into the points given (sorted by time).
        public var points: Range<Int>
        public var offsetMs: Double
    }

    public struct Result: Equatable, Sendable {
        public var segments: [Segment]
        public var driftPpm: Double
        /// Points within tolerance of their segment's line.
        public var inliers: [Int]
        public var outliers: [Int]
        /// RMS residual of the inliers, ms.
        public var rmsMs: Double
        /// Why no drift was claimed ("drift not measurable: ..."), nil when it was.
        public var driftNote: String?
        public func offsetMs(segment s: Int, atVideo v: Double) -> Double { segments[s].offsetMs + driftPpm * 1e-3 * v }
    }

    /// `points` must be sorted by videoTimeS. `overlap`: how many windows cover each instant
    /// (calibrate's windows step by half their length: 2). Overlapping windows share their
    /// intervals, and so their errors: n of them carry n / overlap independent measurements, and
    /// the drift's standard error grows by sqrt(overlap). (Taken as independent, the scatter of
    /// synthcam2's stillhalf windows made a drift of -22 ppm look like 3.4 sigma; it is 2.4.)
    public static let minimumDriftSpanS = 20.0
    public static let minimumDriftPoints = 5.0

    public static func fit(_ points: [SyncPoint], toleranceMs: Double? = nil, overlap: Double = 1) -> Result? {
        let n = points.count
        guard n > 0 else { return nil }
        let c = toleranceMs ?? tolerance(points)
        let c2 = c * c, penalty = 2.5 * c2
        // best[j]: cheapest split of points[0..<j]; from[j]: where its last segment starts.
        var best = [Double](repeating: .infinity, count: n + 1), from = [Int](repeating: 0, count: n + 1)
        best[0] = 0
        for j in 1...n {
            for i in 0..<j {
                let cost = best[i] + lineCost(points[i..<j], c2: c2) + (i == 0 ? 0 : penalty)
                if cost < best[j] { best[j] = cost; from[j] = i }
            }
        }
        var bounds: [Range<Int>] = []
        var j = n
        while j > 0 { bounds.insert(from[j]..<j, at: 0); j = from[j] }
        // A segment with fewer than three inliers is not a piece of its own: its points are outliers
        // of a neighbour (the penalty makes that rare; this keeps the rule explicit).
        var segments: [Range<Int>] = []
        for b in bounds {
            let line = robustLine(points[b], c: c)
            let inl = b.filter { abs(points[$0].offsetMs - line.at(points[$0].videoTimeS)) <= c }
            if inl.count >= 3 || bounds.count == 1 {
                segments.append(b)
            } else if let last = segments.popLast() {
                segments.append(last.lowerBound..<b.upperBound)
            } else {
                segments.append(b)
            }
        }
        // Merge a leading short segment forward when it was kept only because it came first.
        if segments.count > 1 {
            let b = segments[0]
            let line = robustLine(points[b], c: c)
            if b.filter({ abs(points[$0].offsetMs - line.at(points[$0].videoTimeS)) <= c }).count < 3 {
                segments[1] = b.lowerBound..<segments[1].upperBound; segments.removeFirst()
            }
        }
        // Neighbours whose lines meet within twice the tolerance are one piece: a jump not well
        // above the measurement's own scatter is not a jump.
        var merged = true
        while merged && segments.count > 1 {
            merged = false
            for s in 1..<segments.count {
                let a = robustLine(points[segments[s - 1]], c: c), b = robustLine(points[segments[s]], c: c)
                let v = (points[segments[s - 1].upperBound - 1].videoTimeS + points[segments[s].lowerBound].videoTimeS) / 2
                if abs(a.at(v) - b.at(v)) < 2 * c {
                    segments[s - 1] = segments[s - 1].lowerBound..<segments[s].upperBound
                    segments.remove(at: s)
                    merged = true
                    break
                }
            }
        }
        // Inliers per segment, then one shared drift.
        var members: [[Int]] = []
        for b in segments {
            let line = robustLine(points[b], c: c)
            members.append(b.filter { abs(points[$0].offsetMs - line.at(points[$0].videoTimeS)) <= c })
        }
        var sxy = 0.0, sxx = 0.0, means: [(v: Double, o: Double)] = []
        for m in members {
            let w = m.map { weight(points[$0].score) }
            let sw = w.reduce(0, +)
            guard sw > 0 else { means.append((0, 0)); continue }
            let vm = zip(m, w).reduce(0.0) { $0 + points[$1.0].videoTimeS * $1.1 } / sw
            let om = zip(m, w).reduce(0.0) { $0 + points[$1.0].offsetMs * $1.1 } / sw
            means.append((vm, om))
            for (i, wi) in zip(m, w) {
                sxy += wi * (points[i].videoTimeS - vm) * (points[i].offsetMs - om)
                sxx += wi * (points[i].videoTimeS - vm) * (points[i].videoTimeS - vm)
            }
        }
        var slope = sxx > 1e-9 ? sxy / sxx : 0  // ms per s
        var sse = 0.0, count = 0
        var residuals: [[Double]] = []
        for (s, m) in members.enumerated() {
            residuals.append(m.map { i in points[i].offsetMs - (means[s].o + slope * (points[i].videoTimeS - means[s].v)) })
            for r in residuals[s] { sse += r * r; count += 1 }
        }
        let dof = max(1, count - members.count - 1)
        let sigma = max((sse / Double(dof)).squareRoot(), 0.02)
        let meanW = max(1e-6, members.joined().map { weight(points[$0].score) }.reduce(0, +) / Double(max(1, count)))
        // Neighbouring windows share data (they overlap by half), so their errors are correlated
        // and the slope's variance is larger than n independent points give: by `overlap` for the
        // windows' design, or by (1 + rho) / (1 - rho) (an AR(1) error's effective sample size,
        // rho at most 0.9) when the residuals' own lag-1 autocorrelation rho says more: a slow
        // wander of the windows' offsets (scene content, rolling shutter) leans like a drift.
        let rho = min(0.9, max(0, lagOneAutocorrelation(residuals)))
        let inflation = max(1, overlap, (1 + rho) / (1 - rho))
        let slopeError = sxx > 1e-9 ? sigma / (sxx / meanW).squareRoot() * inflation.squareRoot() : .infinity
        let times = members.joined().map { points[$0].videoTimeS }
        let span = (times.max() ?? 0) - (times.min() ?? 0)
        let independent = Double(count) / max(1, overlap)
        var driftNote: String?
        if span < minimumDriftSpanS {
            driftNote = String(format: "drift not measurable: the sync points span %.1f s (at least %.0f s needed)", span, minimumDriftSpanS)
        } else if independent < minimumDriftPoints {
            driftNote = String(format: "drift not measurable: %d sync points are %.1f independent measurements (at least %.0f needed)", count, independent, minimumDriftPoints)
        } else if abs(slope) < 3 * slopeError {
            driftNote = String(format: "drift not measurable: %.0f ppm is within 3 standard errors (%.0f ppm each) of 0", slope * 1000, slopeError * 1000)
        }
        if count < 3 || driftNote != nil { slope = 0 }
        var rss = 0.0
        let segs = segments.enumerated().map { s, b -> Segment in
            Segment(points: b, offsetMs: means[s].o - slope * means[s].v)
        }
        for (s, m) in members.enumerated() {
            for i in m { let r = points[i].offsetMs - (segs[s].offsetMs + slope * points[i].videoTimeS); rss += r * r }
        }
        let inliers = members.flatMap { $0 }.sorted()
        let outliers = (0..<n).filter { !inliers.contains($0) }
        return Result(
            segments: segs, driftPpm: slope * 1000, inliers: inliers, outliers: outliers,
            rmsMs: count > 0 ? (rss / Double(count)).squareRoot() : 0, driftNote: driftNote)
    }

    /// The outlier tolerance, from the points' own scatter: 3 robust sigmas (1.4826 x the median
    /// absolute residual about one robust line), at least 1.5 ms and at most 5 ms (so a jump of
    /// more than about 5 ms is always seen as one, however noisy the windows).
    ///
    /// The scatter about the line alone can collapse: when the windows fall into two interleaved
    /// groups (offsets alternating +-1.5 ms), the robust line settles on one group, the median
    /// residual is 0, the tolerance its 1.5 ms floor, and the other half of the windows become
    /// "outliers": the drift was then fitted to one group's perfect line (a 50 ppm lean in +-1.5 ms
    /// of scatter came out as a 50 ppm drift, "3 standard errors" from residuals of 0). So the
    /// scatter is also measured from consecutive windows' differences (the line's slope removed),
    /// whose median neither a jump (one difference) nor a wild window (two) moves, and which does
    /// not depend on which points the line kept; the larger of the two is used.
    static func tolerance(_ points: [SyncPoint]) -> Double {
        guard points.count >= 4 else { return 1.5 }
        let line = robustLine(points[...], c: 1.5)
        let r = points.map { abs($0.offsetMs - line.at($0.videoTimeS)) }.sorted()
        let aboutLine = 1.4826 * r[r.count / 2]
        // A difference of two errors has twice their variance: sigma = 1.4826 x median / sqrt(2).
        let steps = zip(points, points.dropFirst()).map { abs(($1.offsetMs - $0.offsetMs) - line.b * ($1.videoTimeS - $0.videoTimeS)) }.sorted()
        let fromSteps = 1.4826 * steps[steps.count / 2] / 2.0.squareRoot()
        return min(5, max(1.5, 3 * max(aboutLine, fromSteps)))
    }

    /// The lag-1 autocorrelation of residuals, each run (segment) on its own, in time order; 0
    /// when there are too few to say.
    static func lagOneAutocorrelation(_ runs: [[Double]]) -> Double {
        var num = 0.0, den = 0.0, n = 0
        for r in runs {
            den += r.reduce(0) { $0 + $1 * $1 }
            n += r.count
            for (a, b) in zip(r, r.dropFirst()) { num += a * b }
        }
        guard n >= 6, den > 1e-12 else { return 0 }
        return max(-1, min(1, num / den))
    }

    /// A window's weight: its signal-to-noise ratio r^2 / (1 - r^2) (a window at 0.999 is worth
    /// ten at 0.99: the unexplained part of its motion is what scatters its offset).
    static func weight(_ score: Double) -> Double {
        let r2 = max(0, min(score, 0.9999)) * max(0, min(score, 0.9999))
        return r2 / (1 - r2)
    }

    struct Line { var a: Double; var b: Double; func at(_ v: Double) -> Double { a + b * v } }

    /// Least squares, then refitted on the points within `c` of the line (three rounds); a
    /// median-based start keeps one wild point from dragging the first fit.
    static func robustLine(_ pts: ArraySlice<SyncPoint>, c: Double) -> Line {
        func fit(_ p: [SyncPoint]) -> Line {
            guard p.count > 1 else { return Line(a: p.first?.offsetMs ?? 0, b: 0) }
            let vm = p.reduce(0.0) { $0 + $1.videoTimeS } / Double(p.count), om = p.reduce(0.0) { $0 + $1.offsetMs } / Double(p.count)
            let sxx = p.reduce(0.0) { $0 + ($1.videoTimeS - vm) * ($1.videoTimeS - vm) }
            let b = sxx > 1e-12 ? p.reduce(0.0) { $0 + ($1.videoTimeS - vm) * ($1.offsetMs - om) } / sxx : 0
            return Line(a: om - b * vm, b: b)
        }
        let all = Array(pts)
        let sorted = all.map(\.offsetMs).sorted()
        var line = Line(a: sorted[sorted.count / 2], b: 0)
        // Start from the median with no slope; drift over a window set is small against c unless
        // it is real, and then the refits pick it up.
        var kept = all.filter { abs($0.offsetMs - line.at($0.videoTimeS)) <= 4 * c }
        if kept.count < 2 { kept = all }
        for _ in 0..<3 {
            line = fit(kept)
            let next = all.filter { abs($0.offsetMs - line.at($0.videoTimeS)) <= c }
            if next.count < 2 || next == kept { break }
            kept = next
        }
        return line
    }

    static func lineCost(_ pts: ArraySlice<SyncPoint>, c2: Double) -> Double {
        let line = robustLine(pts, c: c2.squareRoot())
        return pts.reduce(0.0) {
            let r = $1.offsetMs - line.at($1.videoTimeS); return $0 + min(r * r, c2)
        }
    }
}
