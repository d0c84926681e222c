/// Raw IMU readings turned into the motion stream the video needs: one sample per interval
/// (VideoSnake runs motion at twice the frame rate), each the *mean* angular rate over its
/// interval (the exact integral of the piecewise-linear signal between readings, divided by the
/// interval; not the nearest reading), bias removed, turned into camera axes, stamped on the
/// video's clock (IMU time + calibrated offset) at the interval's middle.
public struct MotionSample: Equatable, Sendable {
    /// Video clock, nanoseconds: the middle of the interval.
    public var time: Int64
    /// Mean angular rate over the interval, camera axes, rad/s.
    public var rotationRate: SIMD3<Double>
    /// Where the trace has an accelerometer: attitude, gravity and user acceleration in g,
    /// camera axes, as CoreMotion's device motion gives them.
    public var attitude: Quaternion?
    public var gravity: SIMD3<Double>?
    public var userAcceleration: SIMD3<Double>?

    public init(
        time: Int64, rotationRate: SIMD3<Double>, attitude: Quaternion? = nil, gravity: SIMD3<Double>? = nil,
        userAcceleration: SIMD3<Double>? = nil
    ) {
        self.time = time; self.rotationRate = rotationRate
        self.attitude = attitude; self.gravity = gravity; self.userAcceleration = userAcceleration
    }
}

/// One raw reading, IMU axes and clock.
public struct IMUReading: Equatable, Sendable {
    /// The largest magnitude a stored or replayed reading may have (rad/s, m/s^2, or a raw
    /// count): far past any motion sensor (a gyro's range is about 35 rad/s, an
    /// accelerometer's a few hundred m/s^2), far below what breaks the arithmetic on it (an s16
    /// scale libiio reads as a float; 1e308 made `imu serve` advertise a scale no client read).
    public static let largestValue = 1e6

    public var t: Int64
    /// Angular rate, rad/s.
    public var gyro: SIMD3<Double>
    /// Specific force, m/s^2, where the trace has an accelerometer.
    public var accel: SIMD3<Double>?
    public init(t: Int64, gyro: SIMD3<Double>, accel: SIMD3<Double>? = nil) {
        self.t = t; self.gyro = gyro; self.accel = accel
    }
}

public struct MotionStreamReport: Equatable, Sendable {
    /// Intervals with no sample: outside the trace or across a gap.
    public var missingIntervals: [Int] = []
    public var warnings: [String] = []
}

public enum MotionStream {
    /// Motion samples for intervals [start + j*interval, start + (j+1)*interval), j in 0..<count,
    /// on the video clock. A gap in the trace longer than `maxGap` leaves the intervals it
    /// touches without a sample, as does time outside the trace: they are reported, not made up.
    public static func make(
        _ readings: [IMUReading], calibration: Calibration, start: Int64, interval: Int64, count: Int,
        maxGap: Int64? = nil
    ) -> (samples: [MotionSample], report: MotionStreamReport) {
        var report = MotionStreamReport()
        guard readings.count >= 2, interval > 0 else {
            report.missingIntervals = Array(0..<count)
            report.warnings.append("the trace has fewer than two readings")
            return ([], report)
        }
        let sampler = MotionSampler(readings, calibration: calibration, maxGap: maxGap)!
        var samples: [MotionSample] = []
        samples.reserveCapacity(count)
        for j in 0..<count {
            let a = start + Int64(j) * interval
            guard let sample = sampler.sample(from: a, to: a + interval) else { report.missingIntervals.append(j); continue }
            samples.append(sample)
        }
        let times = sampler.times
        if let first = report.missingIntervals.first, first == 0, times.first! > start {
            report.warnings.append(String(format: "the trace starts %.3f s after the video", Double(times.first! - start) / 1e9))
        }
        let end = start + Int64(count) * interval
        if times.last! < end {
            report.warnings.append(String(format: "the trace ends %.3f s before the video", Double(end - times.last!) / 1e9))
        }
        return (samples, report)
    }

    static func medianStep(_ times: [Int64]) -> Int64 {
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }.sorted()
        return steps.isEmpty ? 0 : steps[steps.count / 2]
    }
}

/// The motion of any interval of video time, from a trace prepared once: what `MotionStream`
/// cuts into a regular grid, and what the snake asks for around each frame's own time (so
/// frames of variable-rate video are paired as exactly as constant-rate ones).
public struct MotionSampler {
    /// Every reading's time on the video clock (the calibration's clock mapping), ns.
    public let times: [Int64]
    /// The bias-free rate integrated on the video clock, IMU axes: the one rate integral, which
    /// the gyro sync uses too.
    private let integral: GyroIntegral
    private let mapping: AxisMapping
    private let gapLimit: Int64
    private let fused: AttitudeFilter?

    /// Nil when the trace has fewer than two readings.
    public init?(_ readings: [IMUReading], calibration: Calibration, maxGap: Int64? = nil) {
        guard readings.count >= 2 else { return nil }
        let clock = calibration.clock
        let b = calibration.gyroBias
        let bias = SIMD3(b[0], b[1], b[2])
        mapping = calibration.axisMapping
        // Video-clock times and bias-free rates, IMU axes.
        let times = readings.map { clock.videoNs(fromIMU: $0.t) }
        let rates = readings.map { $0.gyro - bias }
        gapLimit = maxGap ?? 2 * MotionStream.medianStep(times)
        fused = readings.contains { $0.accel != nil } ? AttitudeFilter.run(readings, times: times, rates: rates) : nil
        integral = GyroIntegral(times: times, rates: rates.map(Vec3.init))
        self.times = times
    }

    /// The index of the last reading at or before t (0 when t is before the first).
    private func readingIndex(atOrBefore t: Int64) -> Int {
        var lo = 0, hi = times.count - 1
        while lo < hi { let m = (lo + hi + 1) / 2; if times[m] <= t { lo = m } else { hi = m - 1 } }
        return lo
    }

    /// Any step between readings that overlaps [a, b) and is longer than the gap limit.
    private func hasGap(_ a: Int64, _ b: Int64) -> Bool {
        var i = max(1, readingIndex(atOrBefore: a) + (times[0] <= a ? 1 : 0))
        while i < times.count && times[i - 1] < b {
            if times[i] - times[i - 1] > gapLimit { return true }
            i += 1
        }
        return false
    }

    /// The mean rate over [a, b) (video clock, ns) in camera axes, stamped at its middle; nil
    /// where the trace does not cover the interval or has a gap in it.
    public func sample(from a: Int64, to b: Int64) -> MotionSample? {
        guard b > a, a >= times.first!, b <= times.last!, !hasGap(a, b), let mean = integral.meanRate(a, b) else { return nil }
        let middle = a + (b - a) / 2
        var sample = MotionSample(time: middle, rotationRate: mapping.apply(mean.simd))
        if let fused {
            let k = fused.index(at: middle, times: times)
            sample.attitude = fused.attitude[k]
            sample.gravity = mapping.apply(fused.gravity[k])
            sample.userAcceleration = mapping.apply(fused.userAcceleration[k])
        }
        return sample
    }
}
