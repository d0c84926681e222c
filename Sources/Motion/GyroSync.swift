import Foundation
import Spectral

/// Everything `calibrate` learns from the picture's motion and a gyro trace, with no video I/O:
/// the axis orientation (searched unless given), the clock mapping (sync points across the clip,
/// a robust line through them, pieces where the IMU's clock jumped), the focal length (pixels per
/// radian), the gyro bias (from every still stretch) and a confidence.
///
/// Steps: (1) a coarse search of every candidate orientation at every candidate offset on a
/// series merged to at most ~400 intervals (on a long range, only at the offsets near the peaks
/// of `MagnitudeSearch`'s mapping-free first pass); the winner's peak must not sit at the edge
/// of the range; (2) refined on the full series to 0.005 ms; (3) the offset measured again in windows
/// across the clip (each searched +-`windowSearchMs` around the global answer; windows with too
/// little motion, a weak match or a peak at the edge of their range are rejected); (4) DriftFit;
/// (5) where pieces meet, the jump is placed at the frame where the two lines' predictions
/// trade places; (6) focal length by least squares of picture shift on rotation angle, bias by
/// StillIntervals, confidence.
public enum GyroSync {
    public struct Options: Sendable {
        /// The mapping to use; nil: search the 24 proper orientations.
        public var mapping: AxisMapping?
        /// The mapping the trace states (a gcsv `orientation` line, a camera file's axes): a
        /// prior the picture must confirm. The 24 are searched all the same; another one is
        /// used instead only when it fits decisively better (`overrides(stated:best:)`).
        /// Ignored when `mapping` is set.
        public var statedMapping: AxisMapping?
        /// Pixels per radian of roll in the match (the shifts' `roll`); 0: roll left out.
        public var rollWeightPx: Double = 0
        /// The motion of regions across the picture: with it (and no focal length given) the
        /// lens, a focal length and a distortion term, is searched against the gyro's rotation.
        public var blocks: BlockFlow?
        public var bias: [Double]
        /// Search offsets in [-searchMs, +searchMs]; nil: every offset at which the trace covers
        /// at least half the clip (derived from both extents).
        public var searchMs: Double?
        public var focalLengthPx: Double?
        /// Above this many (offset, interval) pairs the coarse search does not scan every offset:
        /// a first pass free of the mapping (`MagnitudeSearch`) picks the few places worth it.
        /// A 6 s clip against a 500 s trace is 10.8 million; the default range of a trace a
        /// second longer than the clip at each end, under 0.3 million.
        public var exhaustiveSearchLimit: Int
        /// The FFT of that first pass: FFTW's in calibrate, the pure one by default.
        public var fft: ComplexFFTMaker = RadixTwoFFT.make
        public init(
            mapping: AxisMapping? = nil, bias: [Double] = [0, 0, 0], searchMs: Double? = nil, focalLengthPx: Double? = nil,
            exhaustiveSearchLimit: Int = 1_000_000
        ) {
            self.mapping = mapping; self.bias = bias; self.searchMs = searchMs; self.focalLengthPx = focalLengthPx
            self.exhaustiveSearchLimit = exhaustiveSearchLimit
        }
    }

    public struct Jump: Equatable, Sendable {
        public var videoTimeS: Double
        /// Offset after minus offset before, ms.
        public var stepMs: Double
    }

    public struct Result: Sendable {
        public var mapping: AxisMapping
        /// With a stated mapping: its score in the coarse search (nil when it had none), and
        /// whether the picture overrode it.
        public var stated: (orientation: String, score: Double?, overridden: Bool)?
        /// The best score of the orientation search's runner-up (nil when the mapping was given):
        /// the coarse search's peak, the same measure as `searchScore`.
        public var runnerUp: (orientation: String, score: Double)?
        /// Where the runner-up orientation peaks in the coarse search (ms) and whether that lies
        /// within the winner's own peak (its width at half height): then the offset does not hang
        /// on which of the two is right.
        public var runnerUpAt: (offsetMs: Double, withinPeak: Bool)?
        /// The winner's peak in the coarse search (step 1): the measure the orientations were
        /// ranked by, so the one to print next to the runner-up's (`correlation` is another
        /// measure, on the full series under the fitted clock, and may be lower or higher).
        public var searchScore: Double
        public var clock: ClockMapping
        public var syncPoints: [SyncPoint]
        /// Windows measured but not used: too little motion, weak, at their range's edge, or off the fitted lines.
        public var rejected: [(videoTimeS: Double, reason: String)]
        public var jumps: [Jump]
        /// Correlation over the whole clip under the final clock mapping.
        public var correlation: Double
        /// Why the drift was not claimed (it is then 0 and the offset fitted alone); nil when it
        /// was, or when there were too few sync points to try (calibrate says so separately).
        public var driftNote: String?
        /// The next best peak of the global search (another offset or another orientation).
        public var runnerUpPeak: Double
        public var focalLengthPx: Double
        /// The lens found from the blocks (nil: none searched; `focalLengthPx` is then the
        /// least-squares slope of the global shift on the rotation).
        public var lens: LensSearch.Result?
        public var still: StillIntervals.Result?
        public var confidence: Double
        public var searchedMs: ClosedRange<Double>
        /// The whole clip's own best offset and its score (step 2: every interval at once,
        /// weighted by how much it moves), before the windows: the answer where the two
        /// clocks are one and cannot drift or jump (a picture against its camera's records).
        public var wholeClip: (offsetMs: Double, score: Double) = (0, 0)
    }

    public static let minimumMotionPx = 0.2
    public static let minimumWindowScore = 0.5
    public static let windowSearchMs = 600.0
    /// The widest default search range (ms): a day of trace around the video.
    public static let maximumSearchMs = 86_400_000.0

    public static func run(shifts: [VideoShift], readings: [IMUReading], options: Options) throws -> Result {
        let series = SyncSeries(shifts, rollWeight: options.rollWeightPx)
        let rms = series.rms(0..<series.count)
        guard rms >= minimumMotionPx else {
            throw CalibrationError(
                String(
                    format:
                        "the video barely moves (%.2f px per frame; at least %.1f needed): there is no motion to sync the gyro against. Film a few seconds of panning, or set timeOffsetMs in a profile by hand.",
                    rms, minimumMotionPx),
                cause: .tooLittleMotion)
        }
        guard readings.count >= 2 else { throw CalibrationError("the trace has fewer than two readings") }
        // The commands refuse such a trace on reading it (`TraceSource`); readings a library
        // caller hands in go by the same rule: one NaN made every offset's score NaN, and the
        // search blamed the offset range.
        if let problem = IMUReading.firstProblem(in: readings) { throw CalibrationError("the trace is not a motion sensor's: \(problem)") }
        let gyro = GyroIntegral(readings, bias: options.bias)
        let candidates = Candidates(options)
        // (1) Coarse search.
        let range = try searchRange(series, gyro: gyro, options: options)
        let coarse = try coarseSearch(series, gyro: gyro, range: range, candidates: candidates, options: options)
        let winner = coarse.winner
        // (2) Refine on the full series.
        guard
            let global = OffsetSearch.refine(
                series, 0..<series.count, gyro: gyro, mapping: winner, centreMs: coarse.offsets[coarse.peak.index],
                halfWidthMs: 2 * coarse.step, minPairs: max(3, series.count / 2))
        else {
            throw CalibrationError("the trace does not overlap the video near the best offset")
        }
        // (3) Windows.
        var windows = measureWindows(series, gyro: gyro, mapping: winner, around: global.offsetMs, within: range)
        // No window survived: the whole-clip peak alone is not a measurement we can check (its
        // windows all disagree with it or could not be measured), so there is no offset to report.
        if windows.points.isEmpty { throw CalibrationError(noSyncPoint(windows.rejected), cause: .noSyncPoint, diagnosis: coarse.diagnosis) }
        // (4) and (5): the clock mapping.
        let fitted = fitClock(series, gyro: gyro, mapping: winner, windows: &windows, globalOffsetMs: global.offsetMs)
        // Windows were measured but no line runs through any three of them (each "off the fitted
        // clock"): the fit's intercept would be a value from no measurement.
        if fitted.used.isEmpty { throw CalibrationError(noSyncPoint(windows.rejected), cause: .noSyncPoint, diagnosis: coarse.diagnosis) }
        // (6) Focal length, bias, the final correlation, confidence.
        let clock = fitted.clock
        let f = options.focalLengthPx ?? focalLength(series, gyro: gyro, clock: clock, mapping: winner) ?? 0
        var still: StillIntervals.Result?
        if f > 0 { still = StillIntervals.find(shifts: shifts, readings: readings, clock: clock, focalLengthPx: f) }
        var focal = f
        let finalGyro = still.map { GyroIntegral(readings, bias: $0.bias) } ?? gyro
        if options.focalLengthPx == nil, still != nil {
            focal = focalLength(series, gyro: finalGyro, clock: clock, mapping: winner) ?? f
        }
        var lens: LensSearch.Result?
        if options.focalLengthPx == nil, let blocks = options.blocks, blocks.intervals == shifts.count {
            lens = LensSearch.search(blocks, rotations: cameraRotations(shifts, gyro: finalGyro, clock: clock, mapping: winner))
            if let l = lens { focal = l.lens.focalLengthPx }
        }
        let correlation = finalCorrelation(series, gyro: gyro, clock: clock, mapping: winner)
        let second = coarse.secondPeak
        let margin = second < 1 ? max(0, min(1, (coarse.peak.value - second) / (1 - second))) : 0
        let confidence = max(0, min(1, max(0, correlation) * margin.squareRoot() * fitted.agreement))
        return Result(
            mapping: candidates.fixedMatrix ?? winner.mapping, stated: coarse.stated, runnerUp: coarse.runnerUp, runnerUpAt: coarse.runnerUpAt, searchScore: coarse.peak.value, clock: clock,
            syncPoints: fitted.used, rejected: windows.rejected, jumps: fitted.jumps, correlation: correlation,
            driftNote: fitted.used.count >= 3 ? fitted.driftNote : nil, runnerUpPeak: second, focalLengthPx: focal, lens: lens,
            still: still, confidence: confidence, searchedMs: range, wholeClip: (global.offsetMs, global.score))
    }

    /// Whether the best orientation's score beats a stated one's decisively: it is a usable
    /// match (0.5 or more), it leaves at most half the stated one's misfit (1 - score), and it
    /// is at least 0.05 higher. A stated orientation with no score at all (it overlaps nowhere)
    /// is beaten by any usable match. Close calls keep the stated one: a z-row sign that the
    /// roll alone tells apart moves the score by little.
    public static func overrides(stated: Double?, best: Double) -> Bool {
        guard best >= 0.5 else { return false }
        guard let s = stated else { return true }
        return best - s >= 0.05 && (1 - best) * 2 <= (1 - s)
    }

    /// Half the width of the scan around each candidate of the first pass, ms: the first pass's
    /// grid is a frame interval or more, and the magnitude's peak may sit a few cells from the
    /// orientation search's.
    static let candidateWindowMs = 400.0
    /// How many candidates of the first pass are scanned over the 24 orientations.
    static let candidateCount = 12

    /// The grid indices of `offsets` within +-`candidateWindowMs` of the first pass's candidates.
    static func nearCandidates(
        _ series: SyncSeries, gyro: GyroIntegral, offsets: [Double], step: Double, range: ClosedRange<Double>,
        candidates: [SignedPermutation], fft: @escaping ComplexFFTMaker = RadixTwoFFT.make
    ) throws -> [Int] {
        let axes = Array(Set(candidates.map { $0.axes[2] })).sorted()
        let meanInterval = Double(series.to[series.count - 1] - series.from[0]) / Double(series.count) / 1e6
        let found = MagnitudeSearch.candidates(
            series, gyro: gyro, rangeMs: range, opticalAxes: axes, gridMs: max(10, meanInterval),
            count: candidateCount, separationMs: 2 * candidateWindowMs, fft: fft)
        guard !found.isEmpty else {
            throw CalibrationError("no stretch of the trace moves like the video at any offset in the search range (\(format(range))): is it the right trace?")
        }
        var set = Set<Int>()
        let half = Int((candidateWindowMs / step).rounded(.up))
        for c in found {
            let k = Int(((c.offsetMs - range.lowerBound) / step).rounded())
            let lo = max(0, k - half), hi = min(offsets.count - 1, k + half)
            if lo <= hi { set.formUnion(lo...hi) }
        }
        return set.sorted()
    }

    /// The sentence for a clip where every window was rejected, counting each reason.
    static func noSyncPoint(_ rejected: [(videoTimeS: Double, reason: String)]) -> String {
        let kinds: [(prefix: String, one: String, many: String)] = [
            // A window looks within windowSearchMs of the whole clip's answer: a peak at that
            // edge disagrees with the clip, it says nothing of the search range.
            ("peak at the edge", "peaked 600 ms or more away from the whole clip's answer", "peaked 600 ms or more away from the whole clip's answer"),
            ("weak match", "matched weakly", "matched weakly"),
            ("not covered", "was not covered by the trace", "were not covered by the trace"),
            ("too little motion", "had too little motion", "had too little motion"),
            ("", "gave an offset on no line with the others", "gave offsets on no common line")
        ]
        var parts: [String] = []
        for k in kinds {
            let n =
                k.prefix.isEmpty
                ? rejected.filter { $0.reason.hasSuffix("off the fitted clock") }.count
                : rejected.filter { $0.reason.hasPrefix(k.prefix) }.count
            if n > 0 { parts.append("\(n) \(n == 1 ? k.one : k.many)") }
        }
        return "no window gave a usable sync point" + (parts.isEmpty ? " (the clip is too short for one window)" : ": " + parts.joined(separator: ", "))
    }

    static func format(_ r: ClosedRange<Double>) -> String { String(format: "%.0f to %+.0f ms", r.lowerBound, r.upperBound) }

    /// The signed permutation closest to a matrix (largest entry of each row).
    static func nearest(_ m: AxisMapping) -> SignedPermutation {
        let rows = m.rows
        var axes: [Int] = [], signs: [Double] = []
        for r in rows {
            let a = r.indices.max { abs(r[$0]) < abs(r[$1]) }!
            axes.append(a); signs.append(r[a] < 0 ? -1 : 1)
        }
        if Set(axes).count < 3 { return SignedPermutation(axes: [0, 1, 2], signs: [1, 1, 1]) }
        return SignedPermutation(axes: axes, signs: signs)
    }

    /// The camera's rotation (x, y, z; radians) over each interval of `shifts` under a clock and
    /// mapping, nil where the trace does not cover it.
    static func cameraRotations(_ shifts: [VideoShift], gyro: GyroIntegral, clock: ClockMapping, mapping p: SignedPermutation) -> [SIMD3<Double>?] {
        var hint = 0
        return shifts.map { s in
            let a = clock.imuNs(fromVideo: s.from), b = clock.imuNs(fromVideo: s.to)
            guard b > a, let ia = gyro.at(a, hint: &hint), let ib = gyro.at(b, hint: &hint) else { return nil }
            let i = ib - ia
            return SIMD3(p.signs[0] * i[p.axes[0]], p.signs[1] * i[p.axes[1]], p.signs[2] * i[p.axes[2]])
        }
    }

    /// Camera x and y rotation over each interval under a clock and mapping.
    static func cameraAngles(_ series: SyncSeries, gyro: GyroIntegral, clock: ClockMapping, mapping p: SignedPermutation) -> [(x: Double, y: Double)?] {
        series.integrals(clock, gyro: gyro).map { i in i.map { (p.signs[0] * $0[p.axes[0]], p.signs[1] * $0[p.axes[1]]) } }
    }

    /// Pixels per radian: least squares of (dx, dy) on (-angle y, angle x), through the origin.
    static func focalLength(_ series: SyncSeries, gyro: GyroIntegral, clock: ClockMapping, mapping: SignedPermutation) -> Double? {
        var num = 0.0, den = 0.0
        for (k, a) in cameraAngles(series, gyro: gyro, clock: clock, mapping: mapping).enumerated() {
            guard let a else { continue }
            num += series.dx[k] * -a.y + series.dy[k] * a.x
            den += a.x * a.x + a.y * a.y
        }
        guard den > 0, num > 0 else { return nil }
        return num / den
    }

    /// Each piece's intercept refined against its frames at once, only those inside
    /// `trusted[i]` (video seconds): the stretch its own sync windows vouch for. A jump's time is
    /// an estimate between two windows' centres, and frames past the true jump follow the other
    /// clock: on make-synthetic-camera-2's jump50 the jump was placed 0.2 s late, and those six
    /// frames, 50 ms off, pulled the piece before it from 143.2 to 141.4 ms (truth 143).
    static func refinePieces(_ series: SyncSeries, gyro: GyroIntegral, mapping: SignedPermutation, clock: ClockMapping, trusted: [ClosedRange<Double>]) -> ClockMapping {
        var pieces = clock.pieces
        for i in pieces.indices {
            let start = max(i == 0 ? -Double.infinity : pieces[i].fromVideoS, trusted[i].lowerBound)
            let end = min(i + 1 < pieces.count ? pieces[i + 1].fromVideoS : .infinity, trusted[i].upperBound)
            // Whole frame intervals inside the piece only.
            let idx = (0..<series.count).filter { Double(series.from[$0]) / 1e9 >= start && Double(series.to[$0]) / 1e9 <= end }
            guard idx.count >= 30 else { continue }
            func score(_ delta: Double) -> Double {
                var p = pieces[i]
                p.offsetMs += delta
                let one = ClockMapping.constant(offsetMs: p.offsetMs, driftPpm: p.driftPpm)
                var s = CrossSums(useRoll: series.rollWeight > 0)
                var hint = 0
                for k in idx {
                    let a = one.imuNs(fromVideo: series.from[k]), b = one.imuNs(fromVideo: series.to[k])
                    guard let ia = gyro.at(a, hint: &hint), let ib = gyro.at(b, hint: &hint) else { continue }
                    s.add(ib - ia, dx: series.dx[k], dy: series.dy[k], dz: series.dz[k])
                }
                return Int(s.n) * 4 >= idx.count * 3 ? s.correlation(mapping) : -2
            }
            let g = (5.0.squareRoot() - 1) / 2
            var a = -1.5, b = 1.5
            var c = b - g * (b - a), d = a + g * (b - a)
            var fc = score(c), fd = score(d)
            while b - a > 0.005 {
                if fc > fd { b = d; d = c; fd = fc; c = b - g * (b - a); fc = score(c) } else { a = c; c = d; fc = fd; d = a + g * (b - a); fd = score(d) }
            }
            let delta = (a + b) / 2
            // Keep the refinement only when it is an interior maximum that beats the fit.
            if abs(delta) < 1.45, score(delta) > score(0) { pieces[i].offsetMs += delta }
        }
        return ClockMapping(pieces: pieces)
    }

    /// The whole clip's correlation of the picture's motion (`shifts`) with the trace's under
    /// a given clock and signed-permutation mapping (nil when the mapping is no signed permutation).
    public static func correlation(
        shifts: [VideoShift], readings: [IMUReading], clock: ClockMapping, mapping: AxisMapping,
        rollWeightPx: Double = 0, bias: [Double] = [0, 0, 0]
    ) -> Double? {
        guard readings.count >= 2, let p = SignedPermutation(mapping) else { return nil }
        return finalCorrelation(SyncSeries(shifts, rollWeight: rollWeightPx), gyro: GyroIntegral(readings, bias: bias), clock: clock, mapping: p)
    }

    static func finalCorrelation(_ series: SyncSeries, gyro: GyroIntegral, clock: ClockMapping, mapping: SignedPermutation) -> Double {
        var s = CrossSums(useRoll: series.rollWeight > 0)
        for (k, i) in series.integrals(clock, gyro: gyro).enumerated() {
            if let i { s.add(i, dx: series.dx[k], dy: series.dy[k], dz: series.dz[k]) }
        }
        return s.correlation(mapping)
    }

    /// The video time where the clock switches from `before` to `after`: the split of the
    /// intervals in [from, to] that minimises the squared prediction error (scale fitted per side).
    static func jumpTime(
        _ series: SyncSeries, gyro: GyroIntegral, mapping: SignedPermutation, before: ClockMapping, after: ClockMapping,
        from: Double, to: Double
    ) -> Double {
        let idx = series.indices(from: from, to: to)
        guard idx.count > 1 else { return (from + to) / 2 }
        let f = focalLength(series, gyro: gyro, clock: before, mapping: mapping) ?? focalLength(series, gyro: gyro, clock: after, mapping: mapping) ?? 1
        func errors(_ clock: ClockMapping) -> [Double] {
            let angles = cameraAngles(series, gyro: gyro, clock: clock, mapping: mapping)
            return idx.map { k in
                guard let a = angles[k] else { return 1e9 }
                let ex = series.dx[k] + f * a.y, ey = series.dy[k] - f * a.x
                return ex * ex + ey * ey
            }
        }
        let ea = errors(before), eb = errors(after)
        // cost(s) = sum of ea before s + sum of eb from s on.
        var best = (cost: Double.infinity, s: 0)
        var left = 0.0, right = eb.reduce(0, +)
        for s in 0...ea.count {
            if left + right < best.cost { best = (left + right, s) }
            if s < ea.count { left += ea[s]; right -= eb[s] }
        }
        if best.s == idx.count { return Double(series.to[idx.upperBound - 1]) / 1e9 }
        return Double(series.from[idx.lowerBound + best.s]) / 1e9
    }
}
