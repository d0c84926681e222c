/// Three doubles with the arithmetic the sync needs. Not SIMD3: the generic SIMD operators are
/// slow unoptimised, and the test suite runs debug builds.
struct Vec3: Equatable, Sendable {
    var x: Double, y: Double, z: Double
    init(_ x: Double, _ y: Double, _ z: Double) { self.x = x; self.y = y; self.z = z }
    static let zero = Vec3(0, 0, 0)
    subscript(i: Int) -> Double { i == 0 ? x : (i == 1 ? y : z) }
    static func + (a: Vec3, b: Vec3) -> Vec3 { Vec3(a.x + b.x, a.y + b.y, a.z + b.z) }
    static func - (a: Vec3, b: Vec3) -> Vec3 { Vec3(a.x - b.x, a.y - b.y, a.z - b.z) }
    static func * (a: Vec3, s: Double) -> Vec3 { Vec3(a.x * s, a.y * s, a.z * s) }
    static func * (a: Vec3, b: Vec3) -> Vec3 { Vec3(a.x * b.x, a.y * b.y, a.z * b.z) }
    static func / (a: Vec3, s: Double) -> Vec3 { Vec3(a.x / s, a.y / s, a.z / s) }
    static func += (a: inout Vec3, b: Vec3) { a = a + b }
    var norm: Double { (x * x + y * y + z * z).squareRoot() }
}

/// The exact integral of the piecewise-linear gyro signal, IMU axes, a bias removed: what a
/// frame interval's picture shift is compared with (the rotation over the whole interval, not a
/// point sample of the rate).
struct GyroIntegral: Sendable {
    let times: [Int64]
    let rates: [Vec3]
    let cum: [Vec3]

    init(_ readings: [IMUReading], bias: [Double]) {
        times = readings.map(\.t)
        let b = Vec3(bias[0], bias[1], bias[2])
        rates = readings.map { Vec3($0.gyro.x, $0.gyro.y, $0.gyro.z) - b }
        var c = [Vec3](repeating: .zero, count: times.count)
        for i in 1..<max(1, times.count) {
            c[i] = c[i - 1] + (rates[i - 1] + rates[i]) * (Double(times[i] - times[i - 1]) / 2e9)
        }
        cum = c
    }

    var first: Int64 { times[0] }
    var last: Int64 { times[times.count - 1] }

    /// The integral from the first reading to t; nil outside the trace. `hint` is the index of the
    /// reading at or before the last t asked for: sweeps in time order cost O(1) per call.
    func at(_ t: Int64, hint: inout Int) -> Vec3? {
        guard t >= times[0], t <= times[times.count - 1] else { return nil }
        var i = min(max(hint, 0), times.count - 2)
        if times[i] > t || times[i + 1] < t {
            // Walk a few steps, else bisect.
            var steps = 0
            while steps < 8 && i + 2 < times.count && times[i + 1] < t { i += 1; steps += 1 }
            while steps < 8 && i > 0 && times[i] > t { i -= 1; steps += 1 }
            if times[i] > t || times[i + 1] < t {
                var lo = 0, hi = times.count - 1
                while hi - lo > 1 { let m = (lo + hi) / 2; if times[m] <= t { lo = m } else { hi = m } }
                i = min(lo, times.count - 2)
            }
        }
        hint = i
        let h = Double(times[i + 1] - times[i]) / 1e9, s = Double(t - times[i]) / 1e9
        guard h > 0 else { return cum[i] }
        return cum[i] + rates[i] * s + (rates[i + 1] - rates[i]) * (s * s / (2 * h))
    }

    /// The mean rate over [a, b] (IMU clock), nil outside the trace.
    func meanRate(_ a: Int64, _ b: Int64) -> Vec3? {
        var hint = 0
        guard b > a, let ia = at(a, hint: &hint), let ib = at(b, hint: &hint) else { return nil }
        return (ib - ia) / (Double(b - a) / 1e9)
    }
}

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
