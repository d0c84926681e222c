import Foundation

/// What `calibrate` could tell of the rolling shutter from the picture against the gyro.
public enum ReadoutEstimate: Equatable, Sendable {
    /// The readout (first row to last, ms; rows read top to bottom) and its standard error.
    case estimated(ms: Double, uncertaintyMs: Double)
    /// Why there is no number to trust (a phrase: "the picture is too flat: ...").
    case notEstimated(String)

    /// The readout to write into a profile: nil unless estimated. A value within its error of 0
    /// or below is written as 0: a global shutter, or one too fast to measure.
    public var readoutMs: Double? {
        guard case .estimated(let ms, let se) = self else { return nil }
        return ms < ReadoutSearch.globalBelowMs(se) ? 0 : ms
    }

    /// calibrate's line: "readout 16.4 +- 0.8 ms (...)" or "readout: not estimated (why)".
    public var reportLine: String {
        switch self {
        case .estimated(let ms, let se):
            if ms < ReadoutSearch.globalBelowMs(se) {
                return String(
                    format: "readout %.2f +- %.2f ms: no rolling shutter measurable (a global shutter, or a readout under %.1f ms); the profile keeps 0",
                    ms, se, ReadoutSearch.globalBelowMs(se))
            }
            return String(format: "readout %.2f +- %.2f ms (rows read top to bottom: each row of the picture lags the one above it against the gyro)", ms, se)
        case .notEstimated(let why): return "readout: not estimated (\(why))"
        }
    }
}

/// The rolling shutter's readout from the picture's regions against the gyro: a row y of a
/// rolling-shutter picture is exposed at t + readout * (y / height) (y from the picture's centre;
/// the clock's offset holds the centre row), so the regions of the block flow lower in the picture
/// move as the gyro did a little later. Per region, the lag that best explains its motion by the
/// gyro's rotation over the frame interval moved by that lag is found (a least-squares fit of the
/// region's shift on the three rotation angles, coefficients free per stretch of the clip so that
/// the lens and the region's place need no model); then a plane through the lags of all regions,
/// lag = c + readout * y / height + across * x / width, weighted by how sharply each lag is
/// known, each region at the mean row it was matched on (`BlockFlow.rowOffset`: a region whose
/// top is sky moved as its lower rows did; timed by their centres, measure-readout's cameras came
/// out 5.5-6% low). The clip is cut into windows and the readout measured again with each left out (the
/// jackknife): the spread is its standard error, a number of the data rather than of a model.
///
/// What it refuses: too few regions matched (a flat picture), a readout whose error is too large
/// to use (too little fast motion), one that runs bottom to top or across the columns (a
/// rotated picture, or motion that is not the camera's turn). Pure: the motion, the trace and
/// the clock come in.
public enum ReadoutSearch {
    /// The lags searched, ms either side of the clock's offset (a readout up to a frame of a
    /// 15 fps camera moves its top and bottom regions by a third of it each way).
    static let searchMs = 30.0
    static let stepMs = 0.5
    /// Windows of the clip (at least this many, about `windowS` long, at most `maximumWindows`:
    /// the jackknife fits the plane once per window, so a long clip gets longer windows).
    static let minimumWindows = 4
    static let maximumWindows = 24
    static let windowS = 3.0
    /// Intervals in a window below which it is left out (too few to fit its coefficients).
    static let minimumWindowIntervals = 12
    /// A readout is used when its standard error is at most this (ms) plus `relativeError` of it.
    static let usableErrorMs = 1.5
    static let relativeError = 0.1

    /// Below this (ms, twice the standard error, at least 1 ms) a readout is no readout: the
    /// synthetic global-shutter camera of scripts/tools/measure-readout came out 0.00 +- 0.00, its
    /// 16 and 28 ms cameras within 1%, so a millisecond is well inside what the method tells.
    static func globalBelowMs(_ se: Double) -> Double { max(1, 2 * se) }

    /// `intervals`: the frame intervals of `flow` (video clock, ns); `mapping`, `clock` and
    /// `bias`: calibrate's answer; `height` and `width`: the displayed picture's.
    public static func estimate(
        flow: BlockFlow?, intervals: [(from: Int64, to: Int64)], readings: [IMUReading], bias: [Double], clock: ClockMapping,
        mapping: AxisMapping, width: Int, height: Int
    ) -> ReadoutEstimate {
        guard let flow, flow.intervals == intervals.count, flow.blocks >= 6, width > 0, height > 0 else {
            return .notEstimated("the picture's regions were not measured: the picture is too small to tell its rows apart")
        }
        let rowsOfBlocks = Set(flow.centreY).count
        guard rowsOfBlocks >= 2 else { return .notEstimated("the picture is too small to tell its rows apart") }
        guard readings.count >= 2 else { return .notEstimated("the trace has too few readings") }
        let windows = cut(intervals)
        guard windows.count >= minimumWindows else {
            return .notEstimated(String(format: "the clip is too short: at least %d windows of %d frame intervals are needed", minimumWindows, minimumWindowIntervals))
        }
        let table = LagTable(flow: flow, intervals: intervals, windows: windows, gyro: GyroIntegral(readings, bias: bias), clock: clock, mapping: mapping.rows)
        let usable = table.usableBlocks
        guard usable.count >= 6, Set(usable.map { flow.centreY[$0] }).count >= 2 else {
            return .notEstimated(
                String(format: "the picture is too flat: only %d of its %d regions matched from frame to frame often enough to be timed", usable.count, flow.blocks))
        }
        let all = Array(windows.indices)
        guard let whole = table.plane(windows: all, width: Double(width), height: Double(height)) else {
            return .notEstimated("too little motion: no region's lag against the gyro could be found (its fit has no minimum within 30 ms)")
        }
        var leftOut: [(rows: Double, columns: Double)] = []
        for w in windows.indices {
            guard let p = table.plane(windows: all.filter { $0 != w }, width: Double(width), height: Double(height)) else {
                return .notEstimated("too little motion: without one stretch of the clip, no region's lag against the gyro can be found")
            }
            leftOut.append((p.rows, p.columns))
        }
        let n = Double(leftOut.count)
        func jackknife(_ v: [Double]) -> Double {
            let mean = v.reduce(0, +) / n
            return ((n - 1) / n * v.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }).squareRoot()
        }
        let se = jackknife(leftOut.map(\.rows)), seColumns = jackknife(leftOut.map(\.columns))
        let r = whole.rows, across = whole.columns
        guard r.isFinite, across.isFinite, se.isFinite, seColumns.isFinite else {
            return .notEstimated("unstable: the regions' lags give no finite readout")
        }
        if abs(across) > 3 * max(seColumns, 0.5) && abs(across) > 2 && abs(across) > abs(r) / 2 {
            return .notEstimated(
                String(
                    format:
                        "the picture's columns lag one another against the gyro (%.1f +- %.1f ms across the width, %.1f +- %.1f ms down the height): a picture turned against its sensor, or motion that is not the camera's turn",
                    across, seColumns, r, se))
        }
        if se > usableErrorMs + relativeError * abs(r) {
            return .notEstimated(
                String(
                    format: "unstable: %.1f +- %.1f ms; too little fast motion, or too flat a picture, to tell the rows' times apart", r, se))
        }
        if r < -2 * se && r < -1 {
            return .notEstimated(
                String(format: "the rows lag bottom to top (%.1f +- %.1f ms): a sensor read upwards or a picture stored upside down; give --rolling-shutter or a lens profile", r, se))
        }
        return .estimated(ms: r, uncertaintyMs: se)
    }

    /// The intervals cut into windows of about `windowS` (at least `minimumWindows`), each with
    /// enough intervals to fit.
    static func cut(_ intervals: [(from: Int64, to: Int64)]) -> [Range<Int>] {
        guard let first = intervals.first, let last = intervals.last else { return [] }
        let span = Double(last.to - first.from) / 1e9
        let count = min(maximumWindows, max(minimumWindows, Int(span / windowS)))
        var out: [Range<Int>] = []
        var lo = 0
        for w in 0..<count {
            let end = first.from + Int64(Double(last.to - first.from) * Double(w + 1) / Double(count))
            var hi = lo
            while hi < intervals.count && (intervals[hi].to <= end || w == count - 1) { hi += 1 }
            if hi - lo >= minimumWindowIntervals { out.append(lo..<hi) }
            lo = hi
        }
        return out
    }
}

/// Per region, per window, per candidate lag: the sums of a least-squares fit of the region's
/// shift (dx and dy apart) on the camera's three rotation angles over the interval moved by the
/// lag, so that any set of windows' misfit is a sum.
struct LagTable {
    let flow: BlockFlow
    let lags: [Double]
    /// misfit[block][window][lag]; nan where the window has too few of the block's intervals.
    var misfit: [[[Double]]]
    /// Intervals used per block and window.
    var used: [[Int]]
    /// Per block and window: the sum of the row offsets (`BlockFlow.rowOffset`) of the
    /// intervals kept, and their count. A region is timed at the row it was matched on.
    var rowSums: [[(sum: Double, count: Int)]]

    init(flow: BlockFlow, intervals: [(from: Int64, to: Int64)], windows: [Range<Int>], gyro: GyroIntegral, clock: ClockMapping, mapping m: [[Double]]) {
        self.flow = flow
        let steps = Int((ReadoutSearch.searchMs / ReadoutSearch.stepMs).rounded())
        lags = (-steps...steps).map { Double($0) * ReadoutSearch.stepMs }
        let n = flow.blocks
        misfit = Array(repeating: Array(repeating: Array(repeating: .nan, count: lags.count), count: windows.count), count: n)
        used = Array(repeating: Array(repeating: 0, count: windows.count), count: n)
        // The outliers (a region that matched something else: a passer-by, a repeated texture)
        // are found once, against the clock's own lag, and left out at every lag.
        let keep = LagTable.inliers(flow: flow, intervals: intervals, windows: windows, gyro: gyro, clock: clock, mapping: m)
        // (A flow whose offsets were never filled in, its arrays set by hand: every block at its centre.)
        let offsets = flow.rowOffset.count == flow.dx.count ? flow.rowOffset : [Float](repeating: 0, count: flow.dx.count)
        rowSums = (0..<n).map { i in
            windows.map { range in
                var sum = 0.0, count = 0
                for k in range where keep[k * n + i] { sum += Double(offsets[k * n + i]); count += 1 }
                return (sum, count)
            }
        }
        var angles = [Vec3?](repeating: nil, count: intervals.count)
        for (j, lag) in lags.enumerated() {
            let lagNs = Int64((lag * 1e6).rounded())
            var hint = 0
            for k in intervals.indices {
                let a = clock.imuNs(fromVideo: intervals[k].from + lagNs), b = clock.imuNs(fromVideo: intervals[k].to + lagNs)
                if b > a, let ia = gyro.at(a, hint: &hint), let ib = gyro.at(b, hint: &hint) {
                    angles[k] = LagTable.camera(ib - ia, m)
                } else {
                    angles[k] = nil
                }
            }
            for i in 0..<n {
                for (w, range) in windows.enumerated() {
                    var s = FitSums()
                    for k in range where keep[k * n + i] {
                        guard let g = angles[k] else { continue }
                        s.add(g, dx: Double(flow.dx[k * n + i]), dy: Double(flow.dy[k * n + i]))
                    }
                    if j == 0 { used[i][w] = s.count }
                    if s.count >= ReadoutSearch.minimumWindowIntervals { misfit[i][w][j] = s.misfit() }
                }
            }
        }
    }

    static func camera(_ v: Vec3, _ m: [[Double]]) -> Vec3 {
        Vec3(m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z, m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z)
    }

    /// Whether each (interval, block) counts: matched (peak at least `PictureRotation.minimumPeak`)
    /// and within 4 robust sigmas of its window's fit at lag 0.
    static func inliers(flow: BlockFlow, intervals: [(from: Int64, to: Int64)], windows: [Range<Int>], gyro: GyroIntegral, clock: ClockMapping, mapping m: [[Double]]) -> [Bool] {
        let n = flow.blocks
        var keep = [Bool](repeating: false, count: intervals.count * n)
        var hint = 0
        let angles: [Vec3?] = intervals.map { iv in
            let a = clock.imuNs(fromVideo: iv.from), b = clock.imuNs(fromVideo: iv.to)
            guard b > a, let ia = gyro.at(a, hint: &hint), let ib = gyro.at(b, hint: &hint) else { return nil }
            return camera(ib - ia, m)
        }
        for i in 0..<n {
            for range in windows {
                var s = FitSums()
                for k in range where flow.weight[k * n + i] >= PictureRotation.minimumPeak {
                    if let g = angles[k] { s.add(g, dx: Double(flow.dx[k * n + i]), dy: Double(flow.dy[k * n + i])) }
                }
                guard s.count >= ReadoutSearch.minimumWindowIntervals, let c = s.coefficients() else { continue }
                var residuals: [(k: Int, r: Double)] = []
                for k in range where flow.weight[k * n + i] >= PictureRotation.minimumPeak {
                    guard let g = angles[k] else { continue }
                    let ex = Double(flow.dx[k * n + i]) - (c.x[0] * g.x + c.x[1] * g.y + c.x[2] * g.z)
                    let ey = Double(flow.dy[k * n + i]) - (c.y[0] * g.x + c.y[1] * g.y + c.y[2] * g.z)
                    residuals.append((k, (ex * ex + ey * ey).squareRoot()))
                }
                let sorted = residuals.map(\.r).sorted()
                let limit = 4 * max(0.05, sorted[sorted.count / 2] / 0.6745)
                for r in residuals where r.r <= limit { keep[r.k * n + i] = true }
            }
        }
        return keep
    }

    /// Blocks with a fit in at least half the windows.
    var usableBlocks: [Int] {
        (0..<flow.blocks).filter { i in misfit[i].filter { !$0[0].isNaN }.count * 2 >= misfit[i].count }
    }

    /// The plane lag = c + rows * y / height + columns * x / width (ms) through the blocks'
    /// lags over `windows`, each block at the mean row its intervals there were matched on;
    /// nil when fewer than 6 blocks have a lag or they span one row.
    func plane(windows: [Int], width: Double, height: Double) -> (rows: Double, columns: Double)? {
        var xs: [Double] = [], ys: [Double] = [], lag: [Double] = [], weight: [Double] = []
        var gridRows = Set<Double>()
        for i in 0..<flow.blocks {
            var curve = [Double](repeating: 0, count: lags.count)
            var count = 0
            var rowSum = 0.0, rowCount = 0
            for w in windows where !misfit[i][w][0].isNaN {
                count += used[i][w]
                rowSum += rowSums[i][w].sum; rowCount += rowSums[i][w].count
                for j in lags.indices { curve[j] += misfit[i][w][j] }
            }
            guard count > 0, let l = LagTable.minimum(curve, lags: lags, samples: count) else { continue }
            let row = flow.centreY[i] + (rowCount > 0 ? rowSum / Double(rowCount) : 0)
            xs.append(flow.centreX[i] / width); ys.append(row / height); lag.append(l.lag); weight.append(1 / l.variance)
            gridRows.insert(flow.centreY[i])
        }
        guard lag.count >= 6, gridRows.count >= 2 else { return nil }
        // Weighted least squares of lag on (1, y, x).
        var a = [[Double]](repeating: [0, 0, 0], count: 3), b = [0.0, 0.0, 0.0]
        for j in lag.indices {
            let r = [1, ys[j], xs[j]]
            for p in 0..<3 {
                b[p] += weight[j] * r[p] * lag[j]
                for q in 0..<3 { a[p][q] += weight[j] * r[p] * r[q] }
            }
        }
        guard let s = PictureRotation.solve3(a, b) else { return nil }
        return (s[1], s[2])
    }

    /// The lag of a misfit curve's lowest point (a parabola through it and its neighbours) and
    /// its variance (the residual variance over the curvature); nil at the search's edge.
    static func minimum(_ curve: [Double], lags: [Double], samples: Int) -> (lag: Double, variance: Double)? {
        guard let j = curve.indices.min(by: { curve[$0] < curve[$1] }), j > 0, j < curve.count - 1 else { return nil }
        let h = lags[1] - lags[0]
        let (l, c, r) = (curve[j - 1], curve[j], curve[j + 1])
        let curvature = (l - 2 * c + r) / (h * h)
        guard curvature > 0 else { return nil }
        let step = (l - r) / (2 * (l - 2 * c + r)) * h
        // misfit(lag) ~ min + (curvature / 2) (lag - best)^2; var(best) = sigma^2 / (curvature / 2).
        let sigma2 = max(c, 1e-12) / Double(max(1, 2 * samples - 6))
        return (lags[j] + step, sigma2 / (curvature / 2))
    }
}

/// The normal equations of dx = a . g and dy = b . g over intervals (g the camera's rotation).
/// Scalars, not arrays: it is added to once per region, interval and lag, in debug builds too.
struct FitSums {
    var g00 = 0.0, g01 = 0.0, g02 = 0.0, g11 = 0.0, g12 = 0.0, g22 = 0.0
    var x0 = 0.0, x1 = 0.0, x2 = 0.0, y0 = 0.0, y1 = 0.0, y2 = 0.0
    var xx = 0.0, yy = 0.0
    var count = 0

    mutating func add(_ g: Vec3, dx: Double, dy: Double) {
        g00 += g.x * g.x; g01 += g.x * g.y; g02 += g.x * g.z
        g11 += g.y * g.y; g12 += g.y * g.z; g22 += g.z * g.z
        x0 += g.x * dx; x1 += g.y * dx; x2 += g.z * dx
        y0 += g.x * dy; y1 += g.y * dy; y2 += g.z * dy
        xx += dx * dx; yy += dy * dy
        count += 1
    }

    func coefficients() -> (x: [Double], y: [Double])? {
        let m = [[g00, g01, g02], [g01, g11, g12], [g02, g12, g22]]
        guard let a = PictureRotation.solve3(m, [x0, x1, x2]), let b = PictureRotation.solve3(m, [y0, y1, y2]) else { return nil }
        return (a, b)
    }

    /// The least-squares misfit (sum of squared residuals of dx and dy); the whole energy when
    /// the rotations span no solvable system.
    func misfit() -> Double {
        guard let c = coefficients() else { return xx + yy }
        let fx = c.x[0] * x0 + c.x[1] * x1 + c.x[2] * x2
        let fy = c.y[0] * y0 + c.y[1] * y1 + c.y[2] * y2
        return max(0, xx - fx) + max(0, yy - fy)
    }
}
