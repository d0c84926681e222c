import Spectral

/// Which of several traces (the flights of one blackbox file, the traces of a store) a short clip
/// was filmed during, from the motion alone: each trace gets calibrate's mapping-free first pass
/// (`MagnitudeSearch`: the picture's speed against the gyro's rate across the optical axis, by
/// FFT over every offset at which the trace covers half the clip), and the traces are ranked by
/// their best peak. Calibrate then runs its full sync on the best few and keeps the most
/// confident (`CalibrateFlights`): this only narrows the choice, and the sync itself is unchanged.
public enum FlightChoice {
    public struct Ranked: Equatable, Sendable {
        /// The trace's index in the list given.
        public var index: Int
        /// The best normalised correlation of the picture's speed with the gyro's (0 when none).
        public var score: Double
        /// Where: video = IMU + offset.
        public var offsetMs: Double
    }

    /// Every trace, best match first (traces too short to cover half the clip score 0).
    public static func rank(shifts: [VideoShift], traces: [[IMUReading]], bias: [Double] = [0, 0, 0], fft: ComplexFFTMaker = RadixTwoFFT.make) -> [Ranked] {
        let series = SyncSeries(shifts)
        guard series.count >= 4 else { return traces.indices.map { Ranked(index: $0, score: 0, offsetMs: 0) } }
        let v0 = Double(series.from[0]) / 1e9, v1 = Double(series.to[series.count - 1]) / 1e9
        let meanIntervalMs = (v1 - v0) / Double(series.count) * 1000
        var out: [Ranked] = []
        for (k, readings) in traces.enumerated() {
            guard readings.count >= 2 else { out.append(Ranked(index: k, score: 0, offsetMs: 0)); continue }
            let gyro = GyroIntegral(readings, bias: bias)
            let t0 = Double(gyro.first) / 1e9, t1 = Double(gyro.last) / 1e9
            let half = (v1 - v0) / 2
            let lo = (v0 - t1 + half) * 1000, hi = (v1 - t0 - half) * 1000
            guard lo < hi, hi - lo <= GyroSync.maximumSearchMs else { out.append(Ranked(index: k, score: 0, offsetMs: 0)); continue }
            let found = MagnitudeSearch.candidates(
                series, gyro: gyro, rangeMs: lo...hi, opticalAxes: [0, 1, 2], gridMs: max(10, meanIntervalMs),
                count: 1, separationMs: 800, fft: fft)
            out.append(Ranked(index: k, score: found.first?.score ?? 0, offsetMs: found.first?.offsetMs ?? 0))
        }
        return out.sorted { $0.score > $1.score }
    }
}
