import RealModule

/// A complementary (Mahony-style) filter: the gyro is integrated into attitude, and the
/// accelerometer, where it reads close to 1 g, slowly pulls the estimated gravity towards what
/// it measures. Gravity is the direction the accelerometer reads at rest (specific force, in g;
/// IIO accelerometers read +1 g up), and user acceleration = measured / g0 - gravity.
public struct AttitudeFilter {
    public static let standardGravity = 9.80665
    /// How strongly the accelerometer corrects the gyro (rad/s per unit error).
    public static let gain = 1.0

    public var attitude: [(Double, Double, Double, Double)] = []
    public var gravity: [(Double, Double, Double)] = []
    public var userAcceleration: [(Double, Double, Double)] = []

    /// The reading nearest time t.
    public func index(at t: Int64, times: [Int64]) -> Int {
        var lo = 0, hi = times.count - 1
        while lo < hi { let m = (lo + hi) / 2; if times[m] < t { lo = m + 1 } else { hi = m } }
        if lo > 0 && abs(times[lo - 1] - t) <= abs(times[lo] - t) { return lo - 1 }
        return lo
    }

    static func run(_ readings: [IMUReading], times: [Int64], rates: [(Double, Double, Double)]) -> AttitudeFilter {
        var f = AttitudeFilter()
        f.attitude.reserveCapacity(readings.count)
        // Start from the first accelerometer reading's direction, if any.
        var q = (1.0, 0.0, 0.0, 0.0)
        if let a = readings.first(where: { $0.accel != nil })?.accel {
            q = quaternion(from: (0, 0, 1), to: normalised((a.x, a.y, a.z)))
        }
        for i in readings.indices {
            let dt = i == 0 ? 0 : Double(times[i] - times[i - 1]) / 1e9
            var w = rates[i]
            let g = rotate((0, 0, 1), by: q)   // current gravity estimate, body axes
            if let a = readings[i].accel {
                let n = norm((a.x, a.y, a.z)) / standardGravity
                if n > 0.5 && n < 1.5 {
                    let e = cross(normalised((a.x, a.y, a.z)), g)
                    w = (w.0 + gain * e.0, w.1 + gain * e.1, w.2 + gain * e.2)
                }
            }
            // Body rates turn body vectors by -w: the attitude maps reference (0,0,1) to body gravity.
            q = integrate(q, (-w.0, -w.1, -w.2), dt)
            let gravity = rotate((0, 0, 1), by: q)
            f.attitude.append(q)
            f.gravity.append(gravity)
            if let a = readings[i].accel {
                f.userAcceleration.append((a.x / standardGravity - gravity.0, a.y / standardGravity - gravity.1, a.z / standardGravity - gravity.2))
            } else {
                f.userAcceleration.append((0, 0, 0))
            }
        }
        return f
    }

    // Small quaternion and vector helpers (w, x, y, z).
    static func norm(_ v: (Double, Double, Double)) -> Double { (v.0 * v.0 + v.1 * v.1 + v.2 * v.2).squareRoot() }
    static func normalised(_ v: (Double, Double, Double)) -> (Double, Double, Double) {
        let n = norm(v); return n > 0 ? (v.0 / n, v.1 / n, v.2 / n) : (0, 0, 1)
    }
    static func cross(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> (Double, Double, Double) {
        (a.1 * b.2 - a.2 * b.1, a.2 * b.0 - a.0 * b.2, a.0 * b.1 - a.1 * b.0)
    }
    static func multiply(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double)) -> (Double, Double, Double, Double) {
        (a.0 * b.0 - a.1 * b.1 - a.2 * b.2 - a.3 * b.3,
         a.0 * b.1 + a.1 * b.0 + a.2 * b.3 - a.3 * b.2,
         a.0 * b.2 - a.1 * b.3 + a.2 * b.0 + a.3 * b.1,
         a.0 * b.3 + a.1 * b.2 - a.2 * b.1 + a.3 * b.0)
    }
    static func rotate(_ v: (Double, Double, Double), by q: (Double, Double, Double, Double)) -> (Double, Double, Double) {
        let r = multiply(multiply(q, (0, v.0, v.1, v.2)), (q.0, -q.1, -q.2, -q.3))
        return (r.1, r.2, r.3)
    }
    static func integrate(_ q: (Double, Double, Double, Double), _ w: (Double, Double, Double), _ dt: Double) -> (Double, Double, Double, Double) {
        // Exact rotation by |w| dt about w, applied on the body side.
        let angle = norm(w) * dt
        guard angle > 0 else { return q }
        let axis = normalised(w), s = Double.sin(angle / 2), c = Double.cos(angle / 2)
        let r = multiply(q, (c, axis.0 * s, axis.1 * s, axis.2 * s))
        let n = (r.0 * r.0 + r.1 * r.1 + r.2 * r.2 + r.3 * r.3).squareRoot()
        return (r.0 / n, r.1 / n, r.2 / n, r.3 / n)
    }
    static func quaternion(from a: (Double, Double, Double), to b: (Double, Double, Double)) -> (Double, Double, Double, Double) {
        let c = cross(a, b), d = a.0 * b.0 + a.1 * b.1 + a.2 * b.2
        if d < -0.999999 { return (0, 1, 0, 0) }
        let q = (1 + d, c.0, c.1, c.2)
        let n = (q.0 * q.0 + q.1 * q.1 + q.2 * q.2 + q.3 * q.3).squareRoot()
        return (q.0 / n, q.1 / n, q.2 / n, q.3 / n)
    }
}
