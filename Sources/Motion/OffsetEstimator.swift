import RealModule

/// Finds the IMU-to-video time offset by matching the gyro against the video's own motion.
///
/// The video gives, for each pair of consecutive frames, the global shift of the picture in
/// pixels (phase correlation). A camera turning at rate w moves the picture by f * w per second
/// (f: focal length in pixels): content moves left when the camera yaws right (+y) and down when
/// it pitches up (+x), so the predicted shift over [a, b] is (-f * integral of w_y, f * integral
/// of w_x). The offset is the one whose prediction correlates best with what the video shows:
/// searched over +-`searchMs` in 1 ms steps, then refined to 0.01 ms around the best.
///
/// This is the one-offset check `snake --report` runs against a profile; `calibrate` uses
/// GyroSync (orientation search, sync points across the clip, drift, jumps, bias).
public struct VideoShift: Equatable, Sendable {
    /// Video clock, ns: the two frames' times.
    public var from: Int64, to: Int64
    public var dx: Double, dy: Double
    /// The camera's turn about its optical axis (z, forward) over the interval, radians, as the
    /// picture shows it (a turn of the camera clockwise as seen from behind turns the content
    /// anticlockwise on screen); nil where it was not measured. A global shift cannot see it.
    public var roll: Double?
    public init(from: Int64, to: Int64, dx: Double, dy: Double, roll: Double? = nil) {
        self.from = from; self.to = to; self.dx = dx; self.dy = dy; self.roll = roll
    }
}

public struct OffsetEstimate: Equatable, Sendable {
    public var offsetMs: Double
    /// Normalised correlation at the best offset (1: the gyro explains the video's motion exactly).
    public var correlation: Double
    /// The next best peak of the correlation, relative to the winner's: near 1 means the answer
    /// is ambiguous (periodic motion), near 0 that it is clear.
    public var ambiguity: Double
    public var pairsUsed: Int
}

public enum OffsetEstimator {
    /// Minimum RMS picture shift per frame pair (px) to call a clip "moving".
    public static let minimumMotion = 0.2

    public static func estimate(
        shifts: [VideoShift], readings: [IMUReading], calibration: Calibration, focalLength f: Double,
        searchMs: Double = 2000
    ) throws -> OffsetEstimate {
        let rms = (shifts.reduce(0) { $0 + $1.dx * $1.dx + $1.dy * $1.dy } / Double(max(1, shifts.count))).squareRoot()
        guard rms >= minimumMotion else {
            throw CalibrationError(
                String(
                    format:
                        "the video barely moves (%.2f px per frame; at least %.1f needed): there is no motion to sync the gyro against. Film a few seconds of panning, or set timeOffsetMs in a profile by hand.",
                    rms, minimumMotion))
        }
        guard readings.count >= 2 else { throw CalibrationError("the trace has fewer than two readings") }
        // The rate in camera axes, bias removed, integrated (a linear map commutes with the integral).
        let b = calibration.gyroBias, bias = SIMD3(b[0], b[1], b[2])
        let integrals = GyroIntegral(times: readings.map(\.t), rates: readings.map { Vec3(calibration.axisMapping.apply($0.gyro - bias)) })

        func score(_ offsetNs: Int64) -> (Double, Int) {
            var dot = 0.0, pp = 0.0, oo = 0.0, n = 0, hint = 0
            for s in shifts {
                let a = s.from - offsetNs, b = s.to - offsetNs
                guard let ia = integrals.at(a, hint: &hint), let ib = integrals.at(b, hint: &hint) else { continue }
                let px = -f * (ib.y - ia.y), py = f * (ib.x - ia.x)
                dot += px * s.dx + py * s.dy; pp += px * px + py * py; oo += s.dx * s.dx + s.dy * s.dy
                n += 1
            }
            guard n >= max(3, shifts.count / 4), pp > 0, oo > 0 else { return (-1, n) }
            return (dot / (pp * oo).squareRoot(), n)
        }

        let range = Int(searchMs)
        var coarse = [Double](repeating: -1, count: 2 * range + 1)
        for i in 0...(2 * range) { coarse[i] = score(Int64(i - range) * 1_000_000).0 }
        let bestIndex = coarse.indices.max { coarse[$0] < coarse[$1] }!
        var best = (ms: Double(bestIndex - range), value: coarse[bestIndex])
        // Refine in 0.01 ms steps within one step of the coarse peak.
        var step = -100
        while step <= 100 {
            let ms = Double(bestIndex - range) + Double(step) / 100
            let v = score(Int64((ms * 1e6).rounded())).0
            if v > best.value { best = (ms, v) }
            step += 1
        }
        // The highest other peak (a local maximum outside the winner's own lobe).
        var runnerUp = -1.0
        var i = bestIndex
        while i > 0 && coarse[i - 1] <= coarse[i] { i -= 1 }
        let lobeStart = i
        i = bestIndex
        while i < coarse.count - 1 && coarse[i + 1] <= coarse[i] { i += 1 }
        let lobeEnd = i
        for j in 1..<(coarse.count - 1) where (j < lobeStart || j > lobeEnd) && coarse[j] >= coarse[j - 1] && coarse[j] >= coarse[j + 1] {
            runnerUp = max(runnerUp, coarse[j])
        }
        let used = score(Int64((best.ms * 1e6).rounded())).1
        return OffsetEstimate(
            offsetMs: best.ms, correlation: best.value,
            ambiguity: best.value > 0 ? max(0, runnerUp) / best.value : 1, pairsUsed: used)
    }
}
