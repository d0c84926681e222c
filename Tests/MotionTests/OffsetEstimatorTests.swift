import Motion
import XCTest

final class OffsetEstimatorTests: XCTestCase {
    let ms: Int64 = 1_000_000
    /// A yaw/pitch trajectory with a still first second, then irregular swings (not periodic).
    func yaw(_ t: Double) -> Double { t < 1 ? 0 : 0.6 * sin(2.1 * (t - 1)) + 0.3 * sin(5.3 * (t - 1) + 0.4) }
    func pitch(_ t: Double) -> Double { t < 1 ? 0 : 0.25 * sin(3.7 * (t - 1) + 1.0) }

    /// Gyro at 200 Hz (IMU clock = video clock - offset) with a bias, and the video shifts a
    /// camera with focal length f would show at 30 fps.
    func scene(offsetMs: Double, bias: [Double], f: Double = 500, seconds: Double = 8)
        -> (readings: [IMUReading], shifts: [VideoShift])
    {
        let readings = (0..<Int(seconds * 200)).map { i -> IMUReading in
            let t = Double(i) / 200  // IMU clock
            let v = t + offsetMs / 1000  // the same instant on the video clock
            return IMUReading(t: Int64(i) * 5 * ms, gyro: SIMD3(pitch(v) + bias[0], yaw(v) + bias[1], bias[2]))
        }
        // Shift over a frame interval: -f * integral of yaw, f * integral of pitch (trapezoids, fine steps).
        func integral(_ g: (Double) -> Double, _ a: Double, _ b: Double) -> Double {
            let n = 200; let h = (b - a) / Double(n)
            return (0..<n).reduce(0.0) { $0 + (g(a + Double($1) * h) + g(a + Double($1 + 1) * h)) * h / 2 }
        }
        let shifts = (0..<Int(seconds * 30) - 1).map { k -> VideoShift in
            let a = Double(k) / 30, b = Double(k + 1) / 30
            return VideoShift(from: Int64(a * 1e9), to: Int64(b * 1e9), dx: -f * integral(yaw, a, b), dy: f * integral(pitch, a, b))
        }
        return (readings, shifts)
    }

    func testRecoversAKnownOffsetToBetterThanAMillisecond() throws {
        let (readings, shifts) = scene(offsetMs: 87, bias: [0, 0, 0])
        let e = try OffsetEstimator.estimate(shifts: shifts, readings: readings, calibration: Calibration(name: "t"), focalLength: 500)
        // IMU t + offset = video time: the IMU reading at t describes video time t + 87 ms.
        XCTAssertEqual(e.offsetMs, 87, accuracy: 1)
        XCTAssertGreaterThan(e.correlation, 0.99)
        XCTAssertLessThan(e.ambiguity, 0.9)
    }

    func testAStillClipIsRefusedWithAReason() {
        let still = (0..<100).map { VideoShift(from: Int64($0) * 33 * ms, to: Int64($0 + 1) * 33 * ms, dx: 0.01, dy: 0) }
        let (readings, _) = scene(offsetMs: 0, bias: [0, 0, 0])
        XCTAssertThrowsError(try OffsetEstimator.estimate(shifts: still, readings: readings, calibration: Calibration(name: "t"), focalLength: 500)) {
            XCTAssertTrue("\($0)".hasPrefix("the video barely moves (0.01 px per frame; at least 0.2 needed)"), "\($0)")
        }
    }
}
