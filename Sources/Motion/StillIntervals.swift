/// The gyro bias from every stretch where the picture and the gyro are both still.
///
/// A frame interval is still when the picture barely moves (its shift, turned into an angular
/// rate by the focal length, under `pictureRadPerS`) and the gyro's mean rate over the same
/// interval (on the IMU clock, through the fitted clock mapping) stays close to the other still
/// candidates' median (within `gyroRadPerS` or 4 robust sigmas of their scatter, whichever is
/// larger): the gyro check throws out frames whose picture cannot show motion (a blank wall). Runs of
/// consecutive still intervals shorter than `minimumRunS` are dropped (a pan's turning point is
/// still for an instant, not at rest). The bias is the gyro's exact integral over all remaining
/// intervals divided by their total time.
public enum StillIntervals {
    public struct Result: Equatable, Sendable {
        /// IMU axes, rad/s.
        public var bias: [Double]
        /// Video time spans used, seconds.
        public var spans: [ClosedRange<Double>]
        public var totalS: Double
    }

    public static let pictureRadPerS = 0.004
    public static let gyroRadPerS = 0.02
    public static let minimumRunS = 0.3

    /// nil when no still interval exists (nothing to measure a bias from).
    public static func find(shifts: [VideoShift], readings: [IMUReading], clock: ClockMapping, focalLengthPx f: Double) -> Result? {
        guard readings.count >= 2, f > 0 else { return nil }
        let series = SyncSeries(shifts)
        let gyro = GyroIntegral(readings, bias: [0, 0, 0])
        var candidates: [(k: Int, rate: Vec3)] = []
        for k in 0..<series.count {
            // The picture's rate over five intervals centred on this one: the shift's noise
            // (compression, the correlator's sub-pixel error) averages down, motion does not.
            let lo = max(0, k - 2), hi = min(series.count - 1, k + 2)
            var sx = 0.0, sy = 0.0
            for j in lo...hi { sx += series.dx[j]; sy += series.dy[j] }
            let dt = Double(series.to[hi] - series.from[lo]) / 1e9
            let pictureRate = (sx * sx + sy * sy).squareRoot() / dt / f
            guard pictureRate <= pictureRadPerS else { continue }
            let a = clock.imuNs(fromVideo: series.from[k]), b = clock.imuNs(fromVideo: series.to[k])
            guard let r = gyro.meanRate(a, b) else { continue }
            candidates.append((k, r))
        }
        guard !candidates.isEmpty else { return nil }
        func median(_ x: [Double]) -> Double { let s = x.sorted(); return s[s.count / 2] }
        let centre = Vec3(median(candidates.map { $0.rate.x }), median(candidates.map { $0.rate.y }), median(candidates.map { $0.rate.z }))
        let deviations = candidates.map { ($0.rate - centre).norm }
        let limit = max(gyroRadPerS, 4 * 1.4826 * median(deviations))
        let still = Set(zip(candidates, deviations).filter { $0.1 <= limit }.map { $0.0.k })

        var sum = Vec3.zero, total = 0.0
        var spans: [ClosedRange<Double>] = []
        var k = 0
        while k < series.count {
            guard still.contains(k) else { k += 1; continue }
            var j = k
            while j + 1 < series.count && still.contains(j + 1) && series.from[j + 1] == series.to[j] { j += 1 }
            let start = series.from[k], end = series.to[j]
            if Double(end - start) / 1e9 >= minimumRunS {
                let a = clock.imuNs(fromVideo: start), b = clock.imuNs(fromVideo: end)
                if let r = gyro.meanRate(a, b) {
                    let t = Double(b - a) / 1e9
                    sum += r * t; total += t
                    spans.append(Double(start) / 1e9...Double(end) / 1e9)
                }
            }
            k = j + 1
        }
        guard total > 0 else { return nil }
        let b = sum / total
        return Result(bias: [b.x, b.y, b.z], spans: spans, totalS: total)
    }
}
