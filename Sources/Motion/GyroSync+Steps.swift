import Foundation

/// `GyroSync.run`'s steps, each with what it hands on to the next (the numbers are the steps
/// of GyroSync's comment).
extension GyroSync {
    /// The orientations to score: the one given, or the 24 proper ones.
    struct Candidates {
        var list: [SignedPermutation]
        /// A given mapping that is no signed permutation (a general matrix): it is scored through
        /// the nearest one only for the search; the answer keeps the matrix.
        var fixedMatrix: AxisMapping?
        /// Where the stated orientation is in `list`.
        var statedIndex: Int?

        init(_ options: Options) {
            if let m = options.mapping {
                if let p = SignedPermutation(m) {
                    list = [p]
                } else {
                    fixedMatrix = m
                    list = [GyroSync.nearest(m)]
                }
            } else {
                list = SignedPermutation.proper
            }
            // A stated orientation is one of the 24 to confirm, not a choice made; an improper one
            // (a reflection: Gyroflow's default "xzY" is one in these axes) is scored beside them.
            if options.mapping == nil, let m = options.statedMapping, let p = SignedPermutation(m) {
                if !list.contains(p) { list.append(p) }
                statedIndex = list.firstIndex(of: p)
            }
        }
    }

    /// (1) The offsets searched (ms, video = IMU + offset): given, or every offset at which the
    /// trace covers half of the video.
    static func searchRange(_ series: SyncSeries, gyro: GyroIntegral, options: Options) throws -> ClosedRange<Double> {
        if let s = options.searchMs { return -s...s }
        let v0 = Double(series.from[0]) / 1e9, v1 = Double(series.to[series.count - 1]) / 1e9
        let t0 = Double(gyro.first) / 1e9, t1 = Double(gyro.last) / 1e9
        let half = (v1 - v0) / 2
        let lo = (v0 - t1 + half) * 1000, hi = (v1 - t0 - half) * 1000
        guard lo < hi else { throw CalibrationError(String(format: "the trace (%.1f s) is too short to cover half of the video (%.1f s)", t1 - t0, v1 - v0)) }
        // The range follows the trace's extent, which its timestamps alone set (a glitched
        // one years away is a valid timestamp): every offset of the grid, and the first
        // pass's FFT cells, are held in memory, so a range of years ran out of it.
        guard hi - lo <= maximumSearchMs else {
            throw CalibrationError(
                String(
                    format: "the trace spans %.0f s, and calibrate searches offsets over at most %.0f s (a day): cut the trace to the session around the video, or give --search-ms", t1 - t0,
                    maximumSearchMs / 1000))
        }
        return lo.rounded(.down)...hi.rounded(.up)
    }

    /// What the coarse search found: every candidate's peak over the offsets searched, and the
    /// orientation used.
    struct CoarseSearch {
        var candidates: [SignedPermutation]
        /// The offsets scanned (ms), in order.
        var offsets: [Double]
        /// The grid's step (ms).
        var step: Double
        var peaks: [PeakAnalysis?]
        var winnerIndex: Int
        var stated: (orientation: String, score: Double?, overridden: Bool)?
        var runnerUp: (String, Double)?
        /// What a refusal says: the best orientation's peak and where it is.
        var diagnosis: Diagnosis

        var winner: SignedPermutation { candidates[winnerIndex] }
        var peak: PeakAnalysis { peaks[winnerIndex]! }

        /// The next best peak that is another answer for the offset: the winner's own separate
        /// peaks, and other orientations' peaks at offsets outside the winner's own peak (its
        /// width at half its height, and at least 3 grid steps or 15 ms). Orientations that peak
        /// within it (rows the motion cannot tell apart) do not make the offset less sure.
        /// The winner's own peak, ms: its width at half its height over the curve's median.
        var ownPeakMs: ClosedRange<Double> { offsets[peak.width.lowerBound]...offsets[peak.width.upperBound] }

        /// Where the orientation search's runner-up peaks (the coarse grid's offset, ms), and
        /// whether that lies within the winner's own peak (then the offset does not hang on which
        /// of the two is right).
        var runnerUpAt: (offsetMs: Double, withinPeak: Bool)? {
            guard let r = runnerUp, let i = candidates.firstIndex(where: { $0.orientation == r.0 }), let p = peaks[i] else { return nil }
            let at = offsets[p.index]
            return (at, ownPeakMs.contains(at) || abs(at - offsets[peak.index]) <= max(3 * step, 15))
        }

        var secondPeak: Double {
            let lobeMs = max(3 * step, 15)
            let own = ownPeakMs
            let others = peaks.indices.filter {
                guard $0 != winnerIndex, let p = peaks[$0] else { return false }
                let at = offsets[p.index]
                return abs(at - offsets[peak.index]) > lobeMs && !own.contains(at)
            }.map { peaks[$0]!.value }
            return max(peak.runnerUp, others.max() ?? -1)
        }
    }

    /// (1) Every candidate orientation at every candidate offset on the series merged to at most
    /// ~400 intervals (on a long range, only at the offsets near the peaks of the mapping-free
    /// first pass); a peak that climbs out of what was scanned is followed. Refuses a winner
    /// whose peak sits at the edge of the range.
    static func coarseSearch(_ series: SyncSeries, gyro: GyroIntegral, range: ClosedRange<Double>, candidates given: Candidates, options: Options) throws -> CoarseSearch {
        let candidates = given.list
        let v0 = Double(series.from[0]) / 1e9, v1 = Double(series.to[series.count - 1]) / 1e9
        let group = max(1, series.count / 400)
        let coarse = series.merged(by: group)
        let meanInterval = (v1 - v0) / Double(series.count) * 1000
        let step = max(1, meanInterval * Double(group) / 4)
        var offsets = stride(from: range.lowerBound, through: range.upperBound, by: step).map { $0 }
        if let last = offsets.last, last < range.upperBound - 1e-9 { offsets.append(range.upperBound) }  // the edge itself
        // Every offset of the grid, or (a long range: a short clip beside a whole session's log)
        // only those near the peaks of the mapping-free first pass.
        let scanned =
            offsets.count * coarse.count > options.exhaustiveSearchLimit
            ? try nearCandidates(coarse, gyro: gyro, offsets: offsets, step: step, range: range, candidates: candidates, fft: options.fft)
            : Array(offsets.indices)
        var searched: [Double] = []
        var table: [[Double?]] = []
        var peaks: [PeakAnalysis?] = []
        var winnerIndex = 0
        var grid = scanned
        for pass in 1... {
            searched = grid.map { offsets[$0] }
            table = OffsetSearch.scan(
                coarse, 0..<coarse.count, gyro: gyro, offsetsMs: searched, mappings: candidates,
                minPairs: max(3, coarse.count / 2))
            let whole = grid.count == offsets.count
            peaks = table.map { whole ? PeakAnalysis($0) : PeakAnalysis($0, grid: grid, gridCount: offsets.count) }
            guard let w = peaks.indices.filter({ peaks[$0] != nil }).max(by: { peaks[$0]!.value < peaks[$1]!.value }) else {
                throw CalibrationError("the trace does not overlap the video at any offset in the search range (\(format(range))); widen it with --search-ms")
            }
            winnerIndex = w
            // The peak climbs out of its window: scan on around it (each pass adds a window; a
            // slope still climbing after 8 is left as it is).
            guard let p = peaks[w], p.besideUnscanned, pass < 8 else { break }
            let centre = grid[p.index], half = Int((candidateWindowMs / step).rounded(.up))
            grid = Array(Set(grid).union(max(0, centre - half)...min(offsets.count - 1, centre + half))).sorted()
        }
        offsets = searched
        // The stated orientation stands unless another fits decisively better.
        var stated: (orientation: String, score: Double?, overridden: Bool)?
        if let si = given.statedIndex {
            let statedScore = peaks[si]?.value
            let overridden = si != winnerIndex && overrides(stated: statedScore, best: peaks[winnerIndex]!.value)
            stated = (candidates[si].orientation, statedScore, overridden)
            if !overridden, peaks[si] != nil { winnerIndex = si }
        }
        let peak = peaks[winnerIndex]!
        let winner = candidates[winnerIndex]
        var runnerUp: (String, Double)?
        if candidates.count > 1 {
            let others = peaks.indices.filter { $0 != winnerIndex && peaks[$0] != nil }
            if let r = others.max(by: { peaks[$0]!.value < peaks[$1]!.value }) { runnerUp = (candidates[r].orientation, peaks[r]!.value) }
        }
        // The diagnosis a refusal needs: the best orientation's peak and where it is.
        let best = peaks.indices.filter { peaks[$0] != nil }.max { peaks[$0]!.value < peaks[$1]!.value }!
        let diagnosis = Diagnosis(
            orientation: candidates[best].orientation, score: peaks[best]!.value, offsetMs: offsets[peaks[best]!.index],
            used: winner.orientation, usedScore: peak.value, stated: stated.map { ($0.orientation, $0.score) })
        if peak.atEdge {
            // Only the best orientation's peak at the edge says the offset lies beyond the range;
            // a stated orientation that does not fit peaks anywhere, the edge included.
            // A weak best at the edge is no sign of an offset beyond it: nothing in the range
            // moves like the picture.
            if (best == winnerIndex || peaks[best]!.atEdge) && peak.value < minimumWindowScore && options.searchMs == nil {
                // The default range is every offset at which the trace covers half the video:
                // widening it cannot help (karma against an unrelated flight log was told to).
                throw CalibrationError(
                    String(
                        format:
                            "no orientation makes the gyro turn like the picture at any offset where the trace covers the video (%@): the best, %@, scored %.3f; is it the right trace?",
                        format(range), winner.orientation, peak.value), cause: .noSyncPoint, diagnosis: diagnosis)
            }
            if (best == winnerIndex || peaks[best]!.atEdge) && peak.value < minimumWindowScore {
                throw CalibrationError(
                    String(
                        format:
                            "no orientation makes the gyro turn like the picture anywhere in the search range (%@): the best, %@, scored %.3f, at the range's edge (%.0f ms); if the offset may lie beyond it, widen it with --search-ms",
                        format(range), winner.orientation, peak.value, offsets[peak.index]), cause: .noSyncPoint, diagnosis: diagnosis)
            }
            if best == winnerIndex || peaks[best]!.atEdge {
                throw CalibrationError(
                    String(
                        format: "the best match (%.0f ms) lies at the edge of the search range (%@): the offset is outside the search range; widen it with --search-ms",
                        offsets[peak.index], format(range)), cause: .offsetOutsideRange, diagnosis: diagnosis)
            }
            throw CalibrationError(
                String(
                    format: "the stated axes %@ do not fit the picture: their best match (%.3f) lies at the edge of the search range, and %@ scores %.3f at %.0f ms inside it",
                    winner.orientation, peak.value, diagnosis.orientation, diagnosis.score, diagnosis.offsetMs),
                cause: .axes, diagnosis: diagnosis)
        }
        return CoarseSearch(
            candidates: candidates, offsets: offsets, step: step, peaks: peaks, winnerIndex: winnerIndex, stated: stated, runnerUp: runnerUp,
            diagnosis: diagnosis)
    }

    /// The offset measured again in windows across the clip.
    struct Windows {
        /// The window's length (s).
        var length: Double
        var points: [SyncPoint] = []
        /// Each point's intervals of the series.
        var intervals: [Range<Int>] = []
        var rejected: [(videoTimeS: Double, reason: String)] = []
    }

    /// (3) Each window searched +-`windowSearchMs` around the whole clip's answer; windows with
    /// too little motion, a weak match or a peak at the edge of their reach are rejected.
    static func measureWindows(_ series: SyncSeries, gyro: GyroIntegral, mapping winner: SignedPermutation, around globalMs: Double, within range: ClosedRange<Double>) -> Windows {
        let v0 = Double(series.from[0]) / 1e9, v1 = Double(series.to[series.count - 1]) / 1e9
        let duration = v1 - v0
        let window = min(duration, min(4, max(2, duration / 6)))
        var found = Windows(length: window)
        var start = v0
        let lo = max(range.lowerBound, globalMs - windowSearchMs), hi = min(range.upperBound, globalMs + windowSearchMs)
        var starts: [Double] = []
        while start + window <= v1 + 1e-9 { starts.append(start); start += window / 2 }
        // The last window ends at the last frame, so the clip's end is measured too.
        if let last = starts.last, v1 - window - last > window / 4 { starts.append(v1 - window) }
        for start in starts {
            let idx = series.indices(from: start, to: start + window + 1e-6)
            let centre = start + window / 2
            guard idx.count >= 8 else { continue }
            guard series.rms(idx) >= minimumMotionPx else { found.rejected.append((centre, "too little motion")); continue }
            // 4 ms steps: a window's correlation lobe is tens of ms wide at least; refine() then
            // walks 1 ms steps over +-4 ms and a golden section below that.
            let wOffsets = stride(from: lo, through: hi, by: 4.0).map { $0 }
            let curve = OffsetSearch.scan(series, idx, gyro: gyro, offsetsMs: wOffsets, mappings: [winner], minPairs: max(6, idx.count * 3 / 4))[0]
            guard let p = PeakAnalysis(curve) else { found.rejected.append((centre, "not covered by the trace")); continue }
            if p.atEdge {
                found.rejected.append((centre, String(format: "peak at the edge of its reach, %.0f ms (600 ms from the whole clip's answer)", wOffsets[p.index])))
                continue
            }
            guard
                let r = OffsetSearch.refine(
                    series, idx, gyro: gyro, mapping: winner, centreMs: wOffsets[p.index], halfWidthMs: 4,
                    minPairs: max(6, idx.count * 3 / 4))
            else { found.rejected.append((centre, "not covered by the trace")); continue }
            if r.score < minimumWindowScore { found.rejected.append((centre, String(format: "weak match (%.2f)", r.score))); continue }
            found.points.append(SyncPoint(videoTimeS: centre, offsetMs: r.offsetMs, score: r.score))
            found.intervals.append(idx)
        }
        return found
    }

    /// The clock mapping through the windows' points.
    struct FittedClock {
        var clock: ClockMapping
        /// The points on the fitted clock (none: no line runs through any three of them).
        var used: [SyncPoint] = []
        var jumps: [Jump] = []
        /// The share of windows on the fitted clock, times how far that could be checked.
        var agreement = 0.0
        var driftNote: String?
    }

    /// (4) DriftFit through the points; under drift every window is measured once more with the
    /// drift applied inside it (the offset changes along a 4 s window by 4 ms at 1000 ppm), then
    /// refitted. (5) Where pieces meet, the jump is placed at the frame where the two lines'
    /// predictions trade places. Points off the fitted clock join `windows.rejected`.
    static func fitClock(_ series: SyncSeries, gyro: GyroIntegral, mapping winner: SignedPermutation, windows: inout Windows, globalOffsetMs: Double) -> FittedClock {
        var points = windows.points
        var fitted = DriftFit.fit(points, overlap: 2)
        if let first = fitted, first.driftPpm != 0 {
            for i in points.indices {
                let centreNs = Int64((points[i].videoTimeS * 1e9).rounded())
                if let r = OffsetSearch.refine(
                    series, windows.intervals[i], gyro: gyro, mapping: winner, centreMs: points[i].offsetMs, halfWidthMs: 6,
                    minPairs: max(6, windows.intervals[i].count * 3 / 4),
                    drift: SyncSeries.Drift(ppm: first.driftPpm, centreNs: centreNs))
                {
                    points[i].offsetMs = r.offsetMs; points[i].score = r.score
                }
            }
            fitted = DriftFit.fit(points, overlap: 2)
        }
        windows.points = points
        var result = FittedClock(clock: ClockMapping.constant(offsetMs: globalOffsetMs), driftNote: fitted?.driftNote)
        guard let fit = fitted else { return result }
        result.used = fit.inliers.map { points[$0] }
        for i in fit.outliers {
            windows.rejected.append((points[i].videoTimeS, String(format: "%.2f ms, off the fitted clock", points[i].offsetMs)))
        }
        // The share of windows on the fitted clock, times how far that could be checked: one
        // window cannot disagree with anything (a clip with a single burst of motion: its
        // offset rests on the global peak alone, drift and jumps unchecked): 0.6; two: 0.8;
        // three or more: 1. (It was used / 3, which put a right answer from one strong window,
        // karma.mp4's, at 0.33, next to the scale's "wrong".)
        let used = Double(fit.inliers.count)
        result.agreement = used / Double(points.count) * (used >= 1 ? min(1, 0.6 + 0.2 * (used - 1)) : 0)
        var pieces = [ClockMapping.Piece(fromVideoS: 0, offsetMs: fit.segments[0].offsetMs, driftPpm: fit.driftPpm)]
        // What each piece's own windows vouch for: up to the centre of its last window on the
        // line, from the centre of its first (a window mostly past a jump gives the other side's
        // offset, or none on either line).
        var trusted: [ClosedRange<Double>] = []
        var lower = -Double.infinity
        for s in 1..<fit.segments.count {
            // (5) Where the jump is: between the last inlier of the piece before and the first of this one.
            let before = fit.segments[s - 1], after = fit.segments[s]
            let lastBefore = fit.inliers.filter { before.points.contains($0) }.last.map { points[$0].videoTimeS } ?? points[before.points.upperBound - 1].videoTimeS
            let firstAfter = fit.inliers.filter { after.points.contains($0) }.first.map { points[$0].videoTimeS } ?? points[after.points.lowerBound].videoTimeS
            let a = ClockMapping.constant(offsetMs: before.offsetMs, driftPpm: fit.driftPpm)
            let b = ClockMapping.constant(offsetMs: after.offsetMs, driftPpm: fit.driftPpm)
            let t = jumpTime(
                series, gyro: gyro, mapping: winner, before: a, after: b,
                from: lastBefore - windows.length / 2, to: firstAfter + windows.length / 2)
            pieces.append(ClockMapping.Piece(fromVideoS: t, offsetMs: after.offsetMs, driftPpm: fit.driftPpm))
            result.jumps.append(Jump(videoTimeS: t, stepMs: b.offsetMs(atVideo: t) - a.offsetMs(atVideo: t)))
            trusted.append(lower...max(lower, lastBefore))
            lower = firstAfter
        }
        trusted.append(lower...Double.infinity)
        // Each piece's intercept refined against all of its frames at once (the drift and the
        // jump times held): the windows overlap and are short; the whole piece is one measurement.
        // Not the frames between a jump's two windows: the jump's time there is an estimate.
        result.clock = refinePieces(series, gyro: gyro, mapping: winner, clock: ClockMapping(pieces: pieces), trusted: trusted)
        return result
    }
}
