import RealModule

/// Per-frame orientations a camera file records (GoPro CORI, the body; IORI, the image against
/// the body; CAMM's angle-axis packets) turned into what the sync compares: the turn between
/// consecutive records.
///
/// GoPro's conventions, as found on the shared GoPro MAX file (and in the project's notes on real
/// cameras, ../shared/notes/real-camera-facts.md): each record is a unit quaternion w, x, y, z
/// (int16 over SCAL, 32767), a world-to-camera rotation in the camera's axes (x right, y down,
/// z forward); the body's turn between records k and k + 1 is the rotation vector of
/// C_k * conj(C_k+1) (it matches the gyro at r 0.99997), and the
/// picture's orientation is IORI * CORI (the picture's own turn, measured from its blocks,
/// follows it at r 0.96, against 0.50 for CORI alone).
public enum OrientationRecords {
    /// The rotation vector (axis times angle, radians) of a unit quaternion, the shorter way round.
    public static func rotationVector(_ q: Quaternion) -> SIMD3<Double> {
        var w = q.w, v = q.imaginary
        if w < 0 { w = -w; v = -v }
        let s = v.length
        guard s > 1e-15 else { return v * 2 }
        let angle = 2 * Double.atan2(y: s, x: w)
        return v * (angle / s)
    }

    /// The unit quaternion of a rotation vector.
    public static func quaternion(_ v: SIMD3<Double>) -> Quaternion {
        let a = v.length
        guard a > 1e-15 else { return Quaternion(real: 1, imaginary: v / 2) }
        return Quaternion(angle: a, axis: v / a)
    }

    /// The body's turn (camera axes, radians) between consecutive world-to-camera records.
    public static func turns(_ records: [TimedQuaternion]) -> [(from: Int64, to: Int64, omega: SIMD3<Double>)] {
        zip(records, records.dropFirst()).compactMap { a, b in
            b.t > a.t ? (a.t, b.t, rotationVector(a.q * b.q.conjugate)) : nil
        }
    }

    /// The picture's orientation per frame: IORI * CORI, record by record (they are written
    /// together, one pair per frame).
    public static func picture(camera: [TimedQuaternion], image: [TimedQuaternion]) -> [TimedQuaternion] {
        zip(camera, image).map { TimedQuaternion(t: $0.t, ($1.q * $0.q).normalized) }
    }

    /// The records' turns as picture shifts, as a camera of focal length `focalPx` would see
    /// them (dx = -f w_y, dy = f w_x, the roll w_z): a record stands in for a picture.
    public static func shifts(_ records: [TimedQuaternion], focalPx: Double = 1000) -> [VideoShift] {
        turns(records).map { VideoShift(from: $0.from, to: $0.to, dx: -focalPx * $0.omega.y, dy: focalPx * $0.omega.x, roll: $0.omega.z) }
    }

    /// The records' turns as gyro readings (rad/s, camera axes): the rate is constant over each
    /// interval between records, so each interval gets a reading just after its start and just
    /// before its end (`edgeNs` in from each), and a trapezoid integral over the interval gives
    /// back its turn to within the edges.
    public static func readings(_ records: [TimedQuaternion], edgeNs: Int64 = 1000) -> [IMUReading] {
        var out: [IMUReading] = []
        for t in turns(records) {
            let span = t.to - t.from
            guard span > 4 * edgeNs else { continue }
            let rate = t.omega / (Double(span) / 1e9)
            out.append(IMUReading(t: t.from + edgeNs, gyro: rate))
            out.append(IMUReading(t: t.to - edgeNs, gyro: rate))
        }
        return out
    }

    /// Angular rates (rad/s, the body's axes) from camera-to-world orientations sampled at any
    /// times (CAMM type 0, angle-axis): the log of the turn between consecutive samples over
    /// their time apart, at the midpoint.
    public static func rates(cameraToWorld samples: [TimedQuaternion]) -> [TimedVector] {
        zip(samples, samples.dropFirst()).compactMap { a, b in
            guard b.t > a.t else { return nil }
            let w = rotationVector(a.q.conjugate * b.q) / (Double(b.t - a.t) / 1e9)
            return TimedVector(t: a.t / 2 + b.t / 2 + (a.t % 2 + b.t % 2) / 2, w.x, w.y, w.z)
        }
    }
}
