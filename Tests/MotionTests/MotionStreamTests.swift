import Motion
import XCTest

final class MotionStreamTests: XCTestCase {
    let ms: Int64 = 1_000_000

    /// 200 Hz readings from t0 for `seconds`, with a rate function of time (seconds).
    func trace(
        from t0: Int64 = 0, seconds: Double, jitter: Bool = false, rate: (Double) -> SIMD3<Double>,
        accel: ((Double) -> SIMD3<Double>)? = nil
    ) -> [IMUReading] {
        (0..<Int(seconds * 200)).map { i in
            let t = t0 + Int64(i) * 5 * ms + (jitter && i % 3 == 1 ? 2 * ms : 0)
            let s = Double(t) / 1e9
            return IMUReading(t: t, gyro: rate(s), accel: accel?(s))
        }
    }

    func testEachSampleIsTheMeanRateOverItsIntervalBiasRemovedInCameraAxes() {
        let readings = trace(seconds: 2, rate: { _ in SIMD3(1.0, 2.0, 3.0) })
        let cal = Calibration(name: "t", axisMapping: .orientation("xzY"), gyroBias: [0.1, 0.2, 0.3])
        let (samples, report) = MotionStream.make(readings, calibration: cal, start: 0, interval: 1_000_000_000 / 60, count: 60)
        XCTAssertEqual(report.missingIntervals, [])
        XCTAssertEqual(samples.count, 60)
        // camera x = -imu x, y = -imu z, z = imu y
        XCTAssertEqual(samples[10].rotationRate.x, -0.9, accuracy: 1e-9)
        XCTAssertEqual(samples[10].rotationRate.y, -2.7, accuracy: 1e-9)
        XCTAssertEqual(samples[10].rotationRate.z, 1.8, accuracy: 1e-9)
        XCTAssertEqual(samples[0].time, 1_000_000_000 / 120, "stamped at the interval's middle")
    }

    func testTheMeanIsTheIntegralNotTheNearestReadingEvenWithJitter() {
        // rate = t (s) on x: the mean over [a, b) is (a + b) / 2 whatever the reading times.
        let readings = trace(seconds: 1, jitter: true, rate: { t in SIMD3(t, 0, 0) })
        let interval: Int64 = 1_000_000_000 / 60
        let (samples, _) = MotionStream.make(readings, calibration: Calibration(name: "t"), start: 0, interval: interval, count: 50)
        for j in [0, 7, 31, 49] {
            let a = Double(Int64(j) * interval) / 1e9, b = Double(Int64(j + 1) * interval) / 1e9
            XCTAssertEqual(samples[j].rotationRate.x, (a + b) / 2, accuracy: 1e-9, "interval \(j)")
        }
    }

    func testTheTimeOffsetMovesIMUTimeOntoTheVideoClock() {
        // A step from 0 to 1 rad/s at IMU time 1.000 s shows at video time 1.087 s.
        let readings = trace(seconds: 2, rate: { t in SIMD3(t >= 1.0 ? 1 : 0, 0, 0) })
        let cal = Calibration(name: "t", timeOffsetMs: 87)
        let interval: Int64 = 10 * ms
        let (samples, _) = MotionStream.make(readings, calibration: cal, start: 0, interval: interval, count: 150)
        let firstMoving = samples.first { $0.rotationRate.x > 0.5 }!
        XCTAssertEqual(Double(firstMoving.time) / 1e9, 1.087, accuracy: 0.006)
    }

    func testGapsAndTimeOutsideTheTraceAreReportedNeverMadeUp() {
        var readings = trace(from: 200 * ms, seconds: 1.5, rate: { _ in SIMD3(1, 0, 0) })
        readings.removeAll { $0.t > 800 * ms && $0.t < 900 * ms }  // a 100 ms hole
        let interval: Int64 = 50 * ms
        let (samples, report) = MotionStream.make(readings, calibration: Calibration(name: "t"), start: 0, interval: interval, count: 40)
        XCTAssertEqual(Array(report.missingIntervals.prefix(4)), [0, 1, 2, 3], "before the trace starts")
        XCTAssertTrue(report.missingIntervals.contains(16), "across the hole (800-900 ms)")
        XCTAssertTrue(report.missingIntervals.contains(39), "after the trace ends at 1.7 s")
        XCTAssertEqual(samples.count + report.missingIntervals.count, 40)
        XCTAssertEqual(report.warnings, ["the trace starts 0.200 s after the video", "the trace ends 0.305 s before the video"])
    }

    func testWithAnAccelerometerGravityAndUserAccelerationAreSeparated() {
        // Still, flat, then pushed along x at 0.5 g from 1 s.
        let readings = trace(
            seconds: 2, rate: { _ in SIMD3(0, 0, 0) },
            accel: { t in SIMD3(t >= 1 ? 0.5 * 9.80665 : 0, 0, 9.80665) })
        let (samples, _) = MotionStream.make(readings, calibration: Calibration(name: "t"), start: 0, interval: 50 * ms, count: 40)
        let still = samples[10], pushed = samples[22]
        XCTAssertEqual(still.gravity!.z, 1, accuracy: 1e-6)
        XCTAssertEqual(still.userAcceleration!.x, 0, accuracy: 1e-6)
        // Shortly after the push the gravity estimate has barely moved: most of it is user acceleration.
        XCTAssertGreaterThan(pushed.userAcceleration!.x, 0.3)
    }
}
