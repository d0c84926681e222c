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
    init(_ v: SIMD3<Double>) { self.init(v.x, v.y, v.z) }
    var simd: SIMD3<Double> { SIMD3(x, y, z) }
}

/// The exact integral of the piecewise-linear gyro signal (trapezoids are exact for linear
/// pieces), IMU axes, a bias removed: what a frame interval's picture shift is compared with
/// (the rotation over the whole interval, not a point sample of the rate), and the mean rate
/// over an interval of the motion stream. The one place the rate is integrated.
struct GyroIntegral: Sendable {
    let times: [Int64]
    let rates: [Vec3]
    let cum: [Vec3]

    /// On the IMU clock, `bias` (rad/s per axis) removed.
    init(_ readings: [IMUReading], bias: [Double]) {
        let b = Vec3(bias[0], bias[1], bias[2])
        self.init(times: readings.map(\.t), rates: readings.map { Vec3($0.gyro) - b })
    }

    /// Rates at these times (any clock, ns, not decreasing).
    init(times: [Int64], rates: [Vec3]) {
        self.times = times
        self.rates = rates
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
