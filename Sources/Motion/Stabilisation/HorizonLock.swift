import RealModule

/// Where "up" is, in the world of a camera path (its first orientation's axes), from the
/// accelerometer: a complementary filter. The gyro's path carries every fast turn; the
/// accelerometer's direction (specific force, which reads up at rest), turned into the world by
/// the path at its time, is low-passed forward and backward with a long time constant, so the
/// camera's own accelerations and the gyro's slow drift both drop out.
public struct GravityEstimate: Sendable {
    public let times: [Int64]
    /// Unit "up" per time, world axes.
    public let up: [SIMD3<Double>]
    /// Seconds: the accelerometer is trusted over spans longer than this.
    public static let timeConstant = 2.0

    /// `accel`: accelerometer readings in camera axes at video-clock times (any unit).
    /// Nil without a reading near 1 g's direction.
    public init?(path: CameraPath, accel: [(t: Int64, a: SIMD3<Double>)], timeConstant: Double = timeConstant) {
        var times: [Int64] = [], raw: [SIMD3<Double>] = []
        for r in accel {
            let n = r.a.length
            guard n > 0, n.isFinite else { continue }
            times.append(r.t)
            raw.append(path.orientation(at: r.t).act(on: r.a / n))
        }
        guard !raw.isEmpty else { return nil }
        var f = raw
        for i in 1..<max(1, f.count) {
            let a = PathSmoothing.alpha(Double(times[i] - times[i - 1]) / 1e9, timeConstant)
            f[i] = f[i - 1] + (raw[i] - f[i - 1]) * a
        }
        for i in stride(from: f.count - 2, through: 0, by: -1) {
            let a = PathSmoothing.alpha(Double(times[i + 1] - times[i]) / 1e9, timeConstant)
            f[i] = f[i + 1] + (f[i] - f[i + 1]) * a
        }
        self.times = times
        up = f.map { $0.length > 0 ? $0 / $0.length : SIMD3(0, -1, 0) }
    }

    /// Up at t (the nearest estimate's, linearly between two).
    public func up(at t: Int64) -> SIMD3<Double> {
        var lo = 0, hi = times.count - 1
        while lo < hi { let m = (lo + hi + 1) / 2; if times[m] <= t { lo = m } else { hi = m - 1 } }
        guard lo + 1 < times.count, t > times[lo] else { return up[lo] }
        let s = Double(t - times[lo]) / Double(times[lo + 1] - times[lo])
        let v = up[lo] + (up[lo + 1] - up[lo]) * s
        return v / v.length
    }
}

/// `--horizon-lock`: the smoothed camera turned about its optical axis so that its picture's
/// horizontal is level (world up along the picture's -y), by a fraction of the way.
public enum HorizonLock {
    /// The roll (radians) of a camera (camera-to-world `q`) against `up` (world axes): the angle
    /// about the optical axis from the picture's up (-y) to world up as the camera sees it.
    public static func roll(_ q: Quaternion, up: SIMD3<Double>) -> Double {
        let u = q.conjugate.act(on: up)
        return Double.atan2(y: u.x, x: -u.y)
    }

    /// `q` turned about its own z (optical) axis by `amount` (0...1) of its roll.
    public static func level(_ q: Quaternion, up: SIMD3<Double>, amount: Double) -> Quaternion {
        let r = roll(q, up: up)
        return (q * Quaternion(angle: r * amount, axis: SIMD3(0, 0, 1))).normalized
    }
}
