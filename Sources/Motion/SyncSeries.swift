/// The picture's frame-to-frame shifts as intervals on the video clock, ready to be matched
/// against the gyro at many candidate offsets.
struct SyncSeries: Sendable {
    struct Drift { var ppm: Double; var centreNs: Int64 }

    var from: [Int64] = [], to: [Int64] = []
    var dx: [Double] = [], dy: [Double] = []
    /// The roll as a shift: radians times `rollWeight` (pixels per radian), so that it weighs
    /// in the match like the pan and tilt; all 0 when `rollWeight` is 0 (roll not used).
    var dz: [Double] = []
    var rollWeight = 0.0

    /// `rollWeight`: pixels per radian of roll in the match; 0 leaves the roll out (a series
    /// without roll measurements matches on the pan and tilt alone, as before roll was measured).
    init(_ shifts: [VideoShift], rollWeight: Double = 0) {
        // Roll counts only where every interval has it: a partial roll would weigh unevenly.
        let weight = shifts.allSatisfy { $0.roll != nil } ? rollWeight : 0
        self.rollWeight = weight
        for s in shifts where s.to > s.from {
            from.append(s.from); to.append(s.to); dx.append(s.dx); dy.append(s.dy); dz.append((s.roll ?? 0) * weight)
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
        out.rollWeight = rollWeight
        var k = 0
        while k < count {
            var j = k, sx = dx[k], sy = dy[k], sz = dz[k]
            while j + 1 < count && j + 1 - k < g && from[j + 1] == to[j] { j += 1; sx += dx[j]; sy += dy[j]; sz += dz[j] }
            out.from.append(from[k]); out.to.append(to[j]); out.dx.append(sx); out.dy.append(sy); out.dz.append(sz)
            k = j + 1
        }
        return out
    }

    /// Cross sums over the intervals in `range` with the IMU clock = video clock - offset.
    /// With `drift`, the offset changes along the window: offsetNs at `centreNs`, plus
    /// ppm * 1e-6 * (t - centreNs) (a window measured under drift is otherwise pulled towards
    /// where its motion is strongest).
    func sums(_ range: Range<Int>, offsetNs: Int64, gyro: GyroIntegral, drift: Drift? = nil) -> CrossSums {
        var s = CrossSums(useRoll: rollWeight > 0)
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
            s.add(ib - ia, dx: dx[k], dy: dy[k], dz: dz[k])
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
        return (range.reduce(0.0) { $0 + dx[$1] * dx[$1] + dy[$1] * dy[$1] + dz[$1] * dz[$1] } / Double(range.count)).squareRoot()
    }
}
