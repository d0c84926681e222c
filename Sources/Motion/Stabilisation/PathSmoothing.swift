import RealModule

/// How the camera's path is smoothed (`--smoothing`).
public enum SmoothingMethod: String, CaseIterable, Sendable {
    /// A time constant that shortens as the smoothed camera turns faster: pans are followed,
    /// shake goes (Gyroflow's default algorithm in outline).
    case `default`
    /// Forward then backward spherical interpolation with one time constant.
    case plain
    /// A tripod: one orientation for the whole clip (the path's mean).
    case fixed
    /// The camera's own path: only the rolling shutter and the lens are corrected.
    case none
}

/// The smoothing of a camera path, pure. Each pass is an exponential filter on the unit
/// quaternions: s[i] = slerp(s[i-1], q[i], alpha) with alpha = 1 - exp(-dt / tau), run forward and
/// then backward over the forward result, so the smoothed path has no lag (the two passes'
/// delays cancel) and a first-order filter's roll-off twice: a shake at f is cut by
/// 1 + (2 pi f tau)^2.
public enum PathSmoothing {
    /// Angular speed (degrees/s) at which `default`'s time constant is halved.
    public static let halvingSpeed = 55.0

    public static func smooth(_ path: CameraPath, method: SmoothingMethod, smoothness tau: Double) -> [Quaternion] {
        switch method {
        case .none: return path.orientations
        case .fixed: return Array(repeating: mean(path.orientations), count: path.orientations.count)
        case .plain: return plain(path, tau: { _ in tau })
        case .default: return adaptive(path, tau: tau)
        }
    }

    /// Forward and backward passes with a time constant per reading (seconds).
    public static func plain(_ path: CameraPath, tau: (Int) -> Double) -> [Quaternion] {
        let q = path.orientations, t = path.times, n = q.count
        guard n > 1 else { return q }
        var f = q
        for i in 1..<n { f[i] = Quaternion.slerp(f[i - 1], q[i], alpha(Double(t[i] - t[i - 1]) / 1e9, tau(i))) }
        var b = f
        for i in stride(from: n - 2, through: 0, by: -1) {
            b[i] = Quaternion.slerp(b[i + 1], f[i], alpha(Double(t[i + 1] - t[i]) / 1e9, tau(i)))
        }
        return b
    }

    /// `default`: a plain pass at `tau` tells how fast the camera really turns (shake averaged
    /// away); each reading's time constant is then tau / (1 + speed / halvingSpeed), and the
    /// path is smoothed again with those.
    public static func adaptive(_ path: CameraPath, tau: Double) -> [Quaternion] {
        let first = plain(path, tau: { _ in tau })
        let t = path.times, n = first.count
        guard n > 1 else { return first }
        var speed = [Double](repeating: 0, count: n)
        for i in 1..<n {
            let dt = Double(t[i] - t[i - 1]) / 1e9
            speed[i] = dt > 0 ? Quaternion.angle(first[i - 1], first[i]) / dt * 180 / .pi : speed[i - 1]
        }
        speed[0] = speed[min(1, n - 1)]
        return plain(path, tau: { tau / (1 + speed[$0] / halvingSpeed) })
    }

    /// 1 - exp(-dt / tau); 1 (follow) for tau 0.
    @inlinable public static func alpha(_ dt: Double, _ tau: Double) -> Double {
        tau > 0 ? 1 - Double.exp(-dt / tau) : 1
    }

    /// The normalised sum of the rotations, each on the first one's side of the sphere: their
    /// mean for rotations within a few tens of degrees of each other.
    public static func mean(_ q: [Quaternion]) -> Quaternion {
        guard let first = q.first else { return .identity }
        var w = 0.0, v = SIMD3<Double>(0, 0, 0)
        for r in q {
            let s = first.dot(r) < 0 ? -1.0 : 1.0
            w += s * r.w; v += s * r.imaginary
        }
        return Quaternion(real: w, imaginary: v).normalized
    }
}
