import RealModule

/// A complementary (Mahony-style) filter: the gyro is integrated into attitude, and the
/// accelerometer, where it reads close to 1 g, slowly pulls the estimated gravity towards what
/// it measures. Gravity is the direction the accelerometer reads at rest (specific force, in g;
/// IIO accelerometers read +1 g up), and user acceleration = measured / g0 - gravity.
public struct AttitudeFilter {
    public static let standardGravity = 9.80665
    /// How strongly the accelerometer corrects the gyro (rad/s per unit error).
    public static let gain = 1.0

    public var attitude: [Quaternion] = []
    public var gravity: [SIMD3<Double>] = []
    public var userAcceleration: [SIMD3<Double>] = []

    /// The reading nearest time t.
    public func index(at t: Int64, times: [Int64]) -> Int {
        var lo = 0, hi = times.count - 1
        while lo < hi { let m = (lo + hi) / 2; if times[m] < t { lo = m + 1 } else { hi = m } }
        if lo > 0 && abs(times[lo - 1] - t) <= abs(times[lo] - t) { return lo - 1 }
        return lo
    }

    static func run(_ readings: [IMUReading], times: [Int64], rates: [SIMD3<Double>]) -> AttitudeFilter {
        var f = AttitudeFilter()
        f.attitude.reserveCapacity(readings.count)
        let up = SIMD3<Double>(0, 0, 1)
        // Start from the first accelerometer reading's direction, if any.
        var q = Quaternion.identity
        if let a = readings.first(where: { $0.accel != nil })?.accel {
            q = quaternion(from: up, to: normalised(a))
        }
        for i in readings.indices {
            let dt = i == 0 ? 0 : Double(times[i] - times[i - 1]) / 1e9
            var w = rates[i]
            let g = q.act(on: up)  // current gravity estimate, body axes
            if let a = readings[i].accel {
                let n = a.length / standardGravity
                if n > 0.5 && n < 1.5 {
                    w += gain * normalised(a).cross(g)
                }
            }
            // Body rates turn body vectors by -w: the attitude maps reference (0,0,1) to body gravity.
            q = integrate(q, -w, dt)
            let gravity = q.act(on: up)
            f.attitude.append(q)
            f.gravity.append(gravity)
            f.userAcceleration.append(readings[i].accel.map { $0 / standardGravity - gravity } ?? .zero)
        }
        return f
    }

    static func normalised(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let n = v.length; return n > 0 ? v / n : SIMD3(0, 0, 1)
    }

    /// `q` turned by |w| dt about w, on the body side (exact for a constant rate).
    static func integrate(_ q: Quaternion, _ w: SIMD3<Double>, _ dt: Double) -> Quaternion {
        let angle = w.length * dt
        guard angle > 0 else { return q }
        return (q * Quaternion(angle: angle, axis: normalised(w))).normalized
    }

    /// The shortest rotation taking unit vector a to unit vector b.
    static func quaternion(from a: SIMD3<Double>, to b: SIMD3<Double>) -> Quaternion {
        let d = (a * b).sum()
        if d < -0.999999 { return Quaternion(w: 0, x: 1, y: 0, z: 0) }
        return Quaternion(real: 1 + d, imaginary: a.cross(b)).normalized
    }
}
