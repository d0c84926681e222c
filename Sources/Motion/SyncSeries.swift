/// The picture's frame-to-frame shifts as intervals on the video clock, ready to be matched
/// against the gyro at many candidate offsets.
struct SyncSeries: Sendable {
    struct Drift { var ppm: Double; var centreNs: Int64 }

    var from: [Int64] = [], to: [Int64] = []
    var dx: [Double] = [], dy: [Double] = []

    init(_ shifts: [VideoShift]) {
        for s in shifts where s.to > s.from {
            from.append(s.from); to.append(s.to); dx.append(s.dx); dy.append(s.dy)
        }
    }
    private init() {}

    var count: Int { from.count }
    func mid(_ k: Int) -> Double { Double(from[k] / 2 + to[k] / 2) / 1e9 }

    /// Consecutive intervals merged `g` at a time (where they touch): the shifts add up and so
    /// do the gyro's integrals, so a coarse search can run on a shorter series.
    func merged(by g: Int) -> SyncSeries {
        guard g > 1 else { return self }
        var out = SyncSeries()
        var k = 0
        while k < count {
            var j = k, sx = dx[k], sy = dy[k]
            while j + 1 < count && j + 1 - k < g && from[j + 1] == to[j] { j += 1; sx += dx[j]; sy += dy[j] }
            out.from.append(from[k]); out.to.append(to[j]); out.dx.append(sx); out.dy.append(sy)
            k = j + 1
        }
        return out
    }

    /// Cross sums over the intervals in `range` with the IMU clock = video clock - offset.
    /// With `drift`, the offset changes along the window: offsetNs at `centreNs`, plus
    /// ppm * 1e-6 * (t - centreNs) (a window measured under drift is otherwise pulled towards
    /// where its motion is strongest).
    func sums(_ range: Range<Int>, offsetNs: Int64, gyro: GyroIntegral, drift: Drift? = nil) -> CrossSums {
        var s = CrossSums()
        var hint = 0
        var first = true
        for k in range {
            var a = from[k] &- offsetNs, b = to[k] &- offsetNs
            if let d = drift {
                a &-= Int64((d.ppm * 1e-6 * Double(from[k] - d.centreNs)).rounded())
                b &-= Int64((d.ppm * 1e-6 * Double(to[k] - d.centreNs)).rounded())
            }
            if first {
                // Start the sweep where the trace starts.
                guard b >= gyro.first else { continue }
                first = false
            }
            guard let ia = gyro.at(a, hint: &hint), let ib = gyro.at(b, hint: &hint) else {
                if a > gyro.last { break }
                continue
            }
            s.add(ib - ia, dx: dx[k], dy: dy[k])
        }
        return s
    }

    /// Each interval's gyro integral under a clock mapping (nil where the trace does not cover it).
    func integrals(_ clock: ClockMapping, gyro: GyroIntegral) -> [Vec3?] {
        var hint = 0
        return (0..<count).map { k in
            let a = clock.imuNs(fromVideo: from[k]), b = clock.imuNs(fromVideo: to[k])
            guard b > a, let ia = gyro.at(a, hint: &hint), let ib = gyro.at(b, hint: &hint) else { return nil }
            return ib - ia
        }
    }

    /// The intervals whose middle lies in [a, b) seconds.
    func indices(from a: Double, to b: Double) -> Range<Int> {
        var lo = 0
        while lo < count && mid(lo) < a { lo += 1 }
        var hi = lo
        while hi < count && mid(hi) < b { hi += 1 }
        return lo..<hi
    }

    /// RMS picture shift per interval, px.
    func rms(_ range: Range<Int>) -> Double {
        guard !range.isEmpty else { return 0 }
        return (range.reduce(0.0) { $0 + dx[$1] * dx[$1] + dy[$1] * dy[$1] } / Double(range.count)).squareRoot()
    }
}
