import Foundation
import XCTest

@testable import Motion

/// The stabiliser's pure pieces: integration, smoothing, horizon lock, gravity, row times.
final class StabilisationTests: XCTestCase {
    /// 1 kHz times over `seconds`, ns.
    func times(_ seconds: Double, rate: Double = 1000) -> [Int64] {
        (0..<Int(seconds * rate)).map { Int64((Double($0) / rate * 1e9).rounded()) }
    }

    func degrees(_ r: Double) -> Double { r * 180 / .pi }

    func testConstantRateIntegratesToItsTurn() {
        let t = times(2.001)
        let path = CameraPath(times: t, rates: t.map { _ in SIMD3(0, 0.5, 0) })
        // 0.5 rad/s about y (down) for 2 s: the optical axis turns 1 rad towards +x (a yaw right).
        let z = path.orientations.last!.act(on: SIMD3(0, 0, 1))
        XCTAssertEqual(z.x, sin(1.0), accuracy: 1e-6)
        XCTAssertEqual(z.z, cos(1.0), accuracy: 1e-6)
        XCTAssertEqual(z.y, 0, accuracy: 1e-9)
    }

    func testPathOfATraceRemovesTheBiasAndMapsTheAxes() {
        let t = times(1)
        // The IMU's x is the camera's y: a yaw of 0.3 rad/s read on IMU x, plus a bias of 0.02 on every axis.
        let readings = t.map { IMUReading(t: $0, gyro: SIMD3(0.32, 0.02, 0.02)) }
        var profile = Calibration(name: "t", axisMapping: .orientation("YXZ"), gyroBias: [0.02, 0.02, 0.02], timeOffsetMs: 10)
        profile.clockDriftPpm = nil
        let path = CameraPath(readings: readings, calibration: profile)!
        XCTAssertEqual(path.times[0], 10_000_000, "the offset puts IMU time 0 at video 10 ms")
        let turn = OrientationRecords.rotationVector(path.orientations.last!)
        XCTAssertEqual(turn.y, 0.3 * 0.999, accuracy: 1e-6)
        XCTAssertEqual(turn.x, 0, accuracy: 1e-9)
        XCTAssertEqual(turn.z, 0, accuracy: 1e-9)
    }

    /// A pan about y at `pan` rad/s with a shake about x of amplitude `shake` rad at `hz`.
    func shakyPath(seconds: Double = 6, pan: Double = 0.2, shake: Double, hz: Double) -> (CameraPath, [Quaternion]) {
        let t = times(seconds)
        let truth = t.map { Quaternion(angle: pan * Double($0) / 1e9, axis: SIMD3(0, 1, 0)) }
        let shaken = zip(t, truth).map { ti, q in q * Quaternion(angle: shake * sin(2 * .pi * hz * Double(ti) / 1e9), axis: SIMD3(1, 0, 0)) }
        return (CameraPath(times: t, orientations: shaken), truth)
    }

    /// The largest angle between two paths over their middle (the filter's ends settle).
    func largestGap(_ a: [Quaternion], _ b: [Quaternion]) -> Double {
        let n = a.count
        return (n / 4..<(3 * n / 4)).map { Quaternion.angle(a[$0], b[$0]) }.max()!
    }

    func testPlainSmoothingCutsAShakeAsTheTwoPassFilterShould() {
        // Forward and backward first-order passes: a sine at f is cut by 1 + (2 pi f tau)^2.
        let (path, truth) = shakyPath(shake: 0.01, hz: 0.5)
        let tau = 0.2
        let s = PathSmoothing.smooth(path, method: .plain, smoothness: tau)
        let left = largestGap(s, truth) / 0.01
        XCTAssertEqual(left, 1 / (1 + pow(2 * .pi * 0.5 * tau, 2)), accuracy: 0.03)
    }

    func testPlainSmoothingFollowsAPanAndRemovesHandShake() {
        // 16 s: the filter's start (it starts still, the pan does not) has died away by the middle.
        let (path, truth) = shakyPath(seconds: 16, shake: 0.02, hz: 2.7)
        let s = PathSmoothing.smooth(path, method: .plain, smoothness: 0.5)
        // 2.7 Hz at 0.5 s: cut 73 times; the pan (constant rate) is followed without lag.
        XCTAssertLessThan(largestGap(s, truth), 0.02 / 40)
    }

    func testDefaultSmoothingFollowsAFastPanCloserThanPlainAndStillCutsShake() {
        // A pan that speeds up from 0 to 2 rad/s (115 degrees/s) over 3 s: plain lags on the curve.
        let t = times(6)
        func angle(_ s: Double) -> Double { s < 3 ? 2 * s * s / 6 : 3 + 2 * (s - 3) }
        let truth = t.map { Quaternion(angle: angle(Double($0) / 1e9), axis: SIMD3(0, 1, 0)) }
        let shaken = zip(t, truth).map { ti, q in q * Quaternion(angle: 0.02 * sin(2 * .pi * 6 * Double(ti) / 1e9), axis: SIMD3(1, 0, 0)) }
        let path = CameraPath(times: t, orientations: shaken)
        let plain = PathSmoothing.smooth(path, method: .plain, smoothness: 1)
        let adaptive = PathSmoothing.smooth(path, method: .default, smoothness: 1)
        XCTAssertLessThan(largestGap(adaptive, truth), largestGap(plain, truth) / 2)
        // The shake (about x) left in the adaptive path: its x turn against the truth, over the middle.
        let shakeLeft = (t.count / 4..<(3 * t.count / 4)).map { abs(OrientationRecords.rotationVector(truth[$0].conjugate * adaptive[$0]).x) }.max()!
        XCTAssertLessThan(shakeLeft, 0.02 / 7)
    }

    func testFixedIsOneOrientationAndNoneIsTheCamera() {
        let (path, _) = shakyPath(seconds: 1, pan: 0.1, shake: 0.01, hz: 5)
        let fixed = PathSmoothing.smooth(path, method: .fixed, smoothness: 1)
        XCTAssertEqual(Set(fixed).count, 1)
        // The mean of a turn from 0 to 0.1 rad: about its middle.
        XCTAssertEqual(OrientationRecords.rotationVector(fixed[0]).y, 0.05, accuracy: 0.002)
        XCTAssertEqual(PathSmoothing.smooth(path, method: .none, smoothness: 1), path.orientations)
    }

    func testHorizonLockLevelsTheRollByTheAmountAsked() {
        let up = SIMD3<Double>(0, -1, 0)  // the world's up: the first camera's -y
        // Yawed 0.3 rad, then rolled 8 degrees about its own optical axis.
        let rolled = Quaternion(angle: 0.3, axis: SIMD3(0, 1, 0)) * Quaternion(angle: 8 * .pi / 180, axis: SIMD3(0, 0, 1))
        XCTAssertEqual(abs(degrees(HorizonLock.roll(rolled, up: up))), 8, accuracy: 0.01)
        XCTAssertEqual(degrees(HorizonLock.roll(HorizonLock.level(rolled, up: up, amount: 1), up: up)), 0, accuracy: 1e-9)
        XCTAssertEqual(abs(degrees(HorizonLock.roll(HorizonLock.level(rolled, up: up, amount: 0.5), up: up))), 4, accuracy: 0.01)
        // Levelling turns about the optical axis only: where the camera looks stays.
        let z0 = rolled.act(on: SIMD3(0, 0, 1)), z1 = HorizonLock.level(rolled, up: up, amount: 1).act(on: SIMD3(0, 0, 1))
        XCTAssertEqual((z0 - z1).length, 0, accuracy: 1e-12)
    }

    func testGravityFromTheAccelerometerDespiteAGyroDriftAndShaking() {
        // The camera rolls to 8 degrees; the gyro reads 0.002 rad/s too much on z (drift), the
        // accelerometer reads up plus a 2 m/s^2 shaking.
        let t = times(10, rate: 200)
        let roll = { (s: Double) in 8 * .pi / 180 * min(1, s / 5) }
        let truth = t.map { Quaternion(angle: roll(Double($0) / 1e9), axis: SIMD3(0, 0, 1)) }
        let rates = t.indices.map { i -> SIMD3<Double> in
            let dt = 0.005
            return SIMD3(0, 0, (roll(Double(t[i]) / 1e9 + dt) - roll(Double(t[i]) / 1e9)) / dt + 0.002)
        }
        let path = CameraPath(times: t, rates: rates)
        let accel = zip(t, truth).map { ti, q -> (t: Int64, a: SIMD3<Double>) in
            let s = Double(ti) / 1e9
            return (ti, q.conjugate.act(on: SIMD3(0, -9.81, 0)) + SIMD3(2 * sin(2 * .pi * 3 * s), 0, 0))
        }
        let g = GravityEstimate(path: path, accel: accel)!
        // Levelled with it, the truth's roll against the real up is gone: the path's own world is
        // off by the drift, and the estimate follows it.
        for i in stride(from: t.count / 4, to: t.count * 3 / 4, by: 50) {
            let levelled = HorizonLock.level(path.orientations[i], up: g.up(at: t[i]), amount: 1)
            let trueRoll = HorizonLock.roll(truth[i] * path.orientations[i].conjugate * levelled, up: SIMD3(0, -1, 0))
            XCTAssertEqual(degrees(trueRoll), 0, accuracy: 1, "at \(Double(t[i]) / 1e9) s")
        }
    }

    func testRowTimes() {
        let rs = RollingShutter(readout: 0.028)
        XCTAssertEqual(rs.rowTime(frame: 1_000_000_000, row: 0, rows: 720), 986_000_000)
        XCTAssertEqual(rs.rowTime(frame: 1_000_000_000, row: 360, rows: 720), 1_000_000_000)
        XCTAssertEqual(rs.rowTime(frame: 1_000_000_000, row: 720, rows: 720), 1_014_000_000)
        XCTAssertEqual(RollingShutter(readout: 0.028, bottomUp: true).rowTime(frame: 1_000_000_000, row: 0, rows: 720), 1_014_000_000)
        XCTAssertEqual(RollingShutter.global.rowTime(frame: 5, row: 700, rows: 720), 5)
    }

    func testRollingShutterMapsRowsAgainstTheTurnDuringReadout() {
        // The camera yaws right at 1 rad/s; the output is the camera at the frame's time (no
        // smoothing). The bottom row was exposed 14 ms later, turned 14 mrad further right: the
        // same world ray sits f tan(0.014) further left in the source.
        let t = times(1)
        let path = CameraPath(times: t, rates: t.map { _ in SIMD3(0, 1, 0) })
        let lens = CameraLens(fx: 1000, fy: 1000, cx: 639.5, cy: 359.5, model: .pinhole)
        let s = Stabilisation(camera: path, smoothed: path, lens: lens, width: 1280, height: 720, shutter: RollingShutter(readout: 0.028))
        let frame: Int64 = 500_000_000
        let bottom = s.source(x: 639.5, y: 719, frame: frame, zoom: 1)!, top = s.source(x: 639.5, y: 0, frame: frame, zoom: 1)!
        let dt = 0.028 * (719.0 / 720 - 0.5)
        XCTAssertEqual(bottom.x - 639.5, -1000 * tan(dt), accuracy: 0.1)
        XCTAssertEqual(top.x - 639.5, 1000 * tan(0.014), accuracy: 0.1)
        let still = Stabilisation(camera: path, smoothed: path, lens: lens, width: 1280, height: 720, shutter: .global)
        XCTAssertEqual(still.source(x: 100, y: 700, frame: frame, zoom: 1)!.x, 100, accuracy: 1e-6)
    }
}
