import RealModule

/// The camera's orientation over time: camera-to-world unit quaternions (a vector in camera axes,
/// x right, y down, z forward, turned by q is the same direction in the world's axes), at the
/// gyro's own times on the video's clock. The world is the camera's first orientation.
///
/// Integrated from the body rate (camera axes, rad/s, bias already removed): each step turns by
/// the mean of its two end rates times the step (exact for a rate constant over the step, second
/// order for a linear one), on the body side: q(t + dt) = q(t) * exp(w dt).
public struct CameraPath: Sendable {
    /// Video-clock times, ns, increasing.
    public let times: [Int64]
    /// Camera-to-world, one per time.
    public let orientations: [Quaternion]

    public init(times: [Int64], orientations: [Quaternion]) {
        precondition(times.count == orientations.count && !times.isEmpty, "a path needs one orientation per time, at least one")
        self.times = times; self.orientations = orientations
    }

    /// The path integrated from body rates (camera axes, rad/s, bias removed) at `times`.
    public init(times: [Int64], rates: [SIMD3<Double>]) {
        precondition(times.count == rates.count && !times.isEmpty, "a path needs one rate per time, at least one")
        var q = Quaternion.identity
        var out = [Quaternion]()
        out.reserveCapacity(times.count)
        out.append(q)
        for i in 1..<times.count {
            let dt = Double(times[i] - times[i - 1]) / 1e9
            q = (q * OrientationRecords.quaternion((rates[i - 1] + rates[i]) * (dt / 2))).normalized
            out.append(q)
        }
        self.init(times: times, orientations: out)
    }

    /// The orientation at `t` (ns): spherical interpolation between the readings around it,
    /// the first or last one outside them.
    public func orientation(at t: Int64) -> Quaternion {
        let i = index(atOrBefore: t)
        guard i + 1 < times.count, t > times[i] else { return orientations[i] }
        let s = Double(t - times[i]) / Double(times[i + 1] - times[i])
        return Quaternion.slerp(orientations[i], orientations[i + 1], s)
    }

    /// The last reading at or before t (0 before the first).
    public func index(atOrBefore t: Int64) -> Int {
        var lo = 0, hi = times.count - 1
        while lo < hi { let m = (lo + hi + 1) / 2; if times[m] <= t { lo = m } else { hi = m - 1 } }
        return lo
    }

    /// The same times with other orientations (a smoothed path).
    public func with(_ orientations: [Quaternion]) -> CameraPath { CameraPath(times: times, orientations: orientations) }
}

extension Quaternion {
    /// The four-component dot product (cosine of half the angle between two unit rotations).
    @inlinable public func dot(_ b: Quaternion) -> Double { w * b.w + (imaginary * b.imaginary).sum() }

    /// The rotation a fraction `s` of the way from a to b along the shorter arc.
    public static func slerp(_ a: Quaternion, _ b: Quaternion, _ s: Double) -> Quaternion {
        var b = b
        var d = a.dot(b)
        if d < 0 { b = Quaternion(real: -b.w, imaginary: -b.imaginary); d = -d }
        if d > 0.9995 {
            // Nearly the same rotation: a straight line is exact to rounding and avoids 0/0.
            return Quaternion(real: a.w + (b.w - a.w) * s, imaginary: a.imaginary + (b.imaginary - a.imaginary) * s).normalized
        }
        let theta = Double.acos(d)
        let sa = Double.sin((1 - s) * theta) / Double.sin(theta), sb = Double.sin(s * theta) / Double.sin(theta)
        return Quaternion(real: sa * a.w + sb * b.w, imaginary: sa * a.imaginary + sb * b.imaginary)
    }

    /// The angle (radians, 0 to pi) of the rotation taking a to b.
    public static func angle(_ a: Quaternion, _ b: Quaternion) -> Double {
        2 * Double.acos(min(1, abs(a.dot(b))))
    }

    /// The 3x3 matrix of this (unit) rotation, rows.
    public var matrix: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        let x = imaginary.x, y = imaginary.y, z = imaginary.z
        return (
            SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            SIMD3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            SIMD3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
        )
    }
}

extension CameraPath {
    /// A trace's path under a profile: each reading's time put on the video's clock (the profile's
    /// clock mapping), its rate less the profile's bias (IMU axes), turned into camera axes by its
    /// axis mapping. Nil for fewer than one reading.
    public init?(readings: [IMUReading], calibration: Calibration) {
        guard !readings.isEmpty else { return nil }
        let clock = calibration.clock, b = calibration.gyroBias, mapping = calibration.axisMapping
        let bias = SIMD3(b[0], b[1], b[2])
        self.init(times: readings.map { clock.videoNs(fromIMU: $0.t) }, rates: readings.map { mapping.apply($0.gyro - bias) })
    }

    /// The accelerometer's readings in camera axes at their video-clock times (for `GravityEstimate`).
    public static func accelerometer(_ readings: [IMUReading], calibration: Calibration) -> [(t: Int64, a: SIMD3<Double>)] {
        let clock = calibration.clock, mapping = calibration.axisMapping
        return readings.compactMap { r in r.accel.map { (t: clock.videoNs(fromIMU: r.t), a: mapping.apply($0)) } }
    }
}
