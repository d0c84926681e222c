import Compositor
import Foundation
import Motion
import XCTest

@testable import Lockstep

/// The snake on the synthetic camera: pairing accuracy, detection of a wrong offset, warnings.
final class SnakeJobTests: ScratchTestCase {

    func run(offsetMs: Double, readings: [IMUReading]? = nil) throws -> (CompositeResult, [[String]]) {
        let video = CalibrateJobTests.dir.appendingPathComponent("pan.mp4").path
        var options = CompositeOptions(inputs: [video], output: scratch.appendingPathComponent("snake.mp4").path, blend: .single)
        var snake = SnakeOptions(
            readings: try readings ?? CalibrateJobTests.readings(),
            calibration: Calibration(name: "synthetic", gyroBias: [0.012, -0.008, 0.004], timeOffsetMs: offsetMs, focalLengthPx: 300))
        snake.reportPath = scratch.appendingPathComponent("report.csv").path
        options.snake = snake
        let result = try CompositeJob(options: options).run()
        let rows = try String(contentsOfFile: snake.reportPath!, encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        return (result, rows)
    }

    func testEveryFrameIsPairedWithMotionWithinAQuarterFrame() throws {
        let (result, rows) = try run(offsetMs: 87)
        XCTAssertEqual(result.frames, 180)
        XCTAssertEqual(result.snake?.framesWithoutMotion, 0)
        XCTAssertEqual(rows.count, 180)
        let quarter = 1000.0 / 30 / 4
        for r in rows { XCTAssertLessThanOrEqual(Double(r[3])!, quarter + 1e-6, "frame \(r[0])") }
        XCTAssertEqual(result.snake?.warnings, [])
        XCTAssertEqual(result.snake!.measuredOffsetMs!, 87, accuracy: 2)
    }

    func testAWrongOffsetIsDetectedByTheReport() throws {
        let (result, _) = try run(offsetMs: 0)
        let warning = try XCTUnwrap(result.snake?.warnings.first { $0.hasPrefix("motion is paired") })
        XCTAssertTrue(warning.contains("the calibration's time offset is 0.0 ms"), warning)
    }

    func testATraceEndingBeforeTheVideoLeavesFramesWithoutMotionAndSaysSo() throws {
        let all = try CalibrateJobTests.readings()
        let (result, rows) = try run(offsetMs: 87, readings: all.filter { $0.t < 3_000_000_000 })
        XCTAssertEqual(result.frames, 180, "the video is not cut short")
        let without = try XCTUnwrap(result.snake?.framesWithoutMotion)
        XCTAssertGreaterThan(without, 80)
        XCTAssertEqual(rows.filter { $0[4] == "0" }.count, without)
        XCTAssertTrue(result.snake!.warnings.contains { $0.hasPrefix("the trace ends") }, "\(result.snake!.warnings)")
        XCTAssertTrue(result.snake!.warnings.contains("\(without) frames had no motion within one motion interval; their trail only decays"))
    }

    func testATraceOnAnotherClockIsDiagnosedNotCrashedOn() throws {
        // The same trace on a boot-time clock: 1000 s later, no offset given.
        let shifted = try CalibrateJobTests.readings().map { r -> IMUReading in
            var r = r; r.t += 1_000_000_000_000; return r
        }
        let (result, rows) = try run(offsetMs: 0, readings: shifted)
        XCTAssertEqual(result.frames, 180)
        XCTAssertEqual(result.snake?.framesWithoutMotion, 180)
        XCTAssertEqual(rows.filter { $0[4] == "1" }.count, 0)
        let w = try XCTUnwrap(result.snake?.warnings.first)
        XCTAssertTrue(w.hasPrefix("the trace does not overlap the video: on the video's clock it runs from 999.713 s"), w)
        XCTAssertTrue(w.contains("Is the trace on another clock?"), w)
    }

    func testAGapInTheTraceLeavesThoseFramesWithoutMotionOnly() throws {
        // A 400 ms hole from 2.0 s (IMU clock): frames around video 2.09-2.49 s get no motion.
        let holed = try CalibrateJobTests.readings().filter { $0.t < 2_000_000_000 || $0.t > 2_400_000_000 }
        let (result, rows) = try run(offsetMs: 87, readings: holed)
        let without = rows.filter { $0[4] == "0" }.map { Int($0[0])! }
        XCTAssertFalse(without.isEmpty)
        XCTAssertTrue(without.allSatisfy { (62...76).contains($0) }, "\(without)")
        XCTAssertEqual(result.snake?.framesWithoutMotion, without.count)
        XCTAssertTrue(result.snake!.warnings.contains("\(without.count) frames had no motion within one motion interval; their trail only decays"))
    }

    /// A synthetic trace on its own clock: 200 Hz from IMU time `from` to `to` seconds, turning on
    /// all three axes.
    static func trace(from: Double, to: Double, skipping hole: ClosedRange<Double>? = nil) -> [IMUReading] {
        stride(from: from, through: to, by: 0.005).compactMap { t -> IMUReading? in
            if let hole, hole.contains(t) { return nil }
            return IMUReading(t: Int64((t * 1e9).rounded()), gyro: SIMD3(0.3 * sin(2 * t), 0.2 * cos(1.3 * t), 0.05))
        }
    }

    func report(_ video: String, _ calibration: Calibration, _ readings: [IMUReading]) throws -> (CompositeResult, [[String]]) {
        var options = CompositeOptions(inputs: [video], output: scratch.appendingPathComponent("snake.mp4").path, blend: .single)
        var snake = SnakeOptions(readings: readings, calibration: calibration)
        snake.reportPath = scratch.appendingPathComponent("report.csv").path
        options.snake = snake
        let result = try CompositeJob(options: options).run()
        let lines = try String(contentsOfFile: snake.reportPath!, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.first, "frame,frame_time_s,motion_time_s,distance_ms,paired,video_dx,video_dy,gyro_dx,gyro_dy,imu_time_s")
        return (result, lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) })
    }

    func testVariableRateFramesArePairedAtTheirOwnTimeThroughOffsetAndDrift() throws {
        // 30 fps with every fourth frame dropped (25%), made by the ffmpeg CLI: frame intervals
        // of 1/30 and 2/30 s, a mean rate of 22.5 fps.
        let vfr = scratch.appendingPathComponent("vfr.mp4").path
        try Shell.check(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=6",
                "-vf", "select='not(eq(mod(n\\,4)\\,1))'", "-vsync", "vfr",
                "-c:v", "libx264", "-preset", "ultrafast", vfr
            ])
        var calibration = Calibration(name: "vfr")
        calibration.clock = .constant(offsetMs: 37, driftPpm: 1000)
        let (result, rows) = try report(vfr, calibration, Self.trace(from: -1, to: 8))
        // The movie's timeline kept (issue 43): 6 s at its nominal 30 fps, a dropped frame's
        // place showing the frame before it again (paired at that frame's own time).
        XCTAssertEqual(rows.count, 180)
        XCTAssertEqual(result.snake?.framesWithoutMotion, 0)
        // The truth, written out: video v = imu + (37 + 1000e-6 * v * 1000) ms, so imu = v - offset.
        func truthIMU(_ v: Double) -> Double { v - (37 + 1000e-6 * v * 1000) / 1000 }
        let quarter = 0.25 / 30
        var gaps = Set<Int>()
        for (i, r) in rows.enumerated() {
            let v = Double(r[1])!
            XCTAssertEqual(r[4], "1", "frame \(r[0]) paired")
            let imu = try XCTUnwrap(Double(r[9]), "frame \(r[0]) has imu_time_s")
            XCTAssertLessThanOrEqual(abs(imu - truthIMU(v)), quarter, "frame \(r[0])")
            // Not just within a quarter frame: the motion is centred on the frame's own time.
            XCTAssertEqual(imu, truthIMU(v), accuracy: 2e-6, "frame \(r[0])")
            XCTAssertEqual(Double(r[2])!, v, accuracy: 1e-6)
            if i > 0 { gaps.insert(Int(((v - Double(rows[i - 1][1])!) * 30).rounded())) }
        }
        // 0: a frame held over a dropped one; 2: the frame after the drop.
        XCTAssertEqual(gaps, [0, 1, 2], "the movie really is variable-rate")
    }

    func testEachFrameGetsTheMotionOfItsOwnTimeAtTheTracesStartGapAndEnd() throws {
        // pan.mp4 (6 s, 30 fps); the trace covers IMU 0.9-2.0 s and 2.3-4.0 s; offset 87 ms.
        let video = CalibrateJobTests.dir.appendingPathComponent("pan.mp4").path
        let readings = Self.trace(from: 0.9, to: 4.0, skipping: 2.0001...2.2999)
        let (result, rows) = try report(video, Calibration(name: "holes", timeOffsetMs: 87), readings)
        XCTAssertEqual(rows.count, 180)
        let times = readings.map { Double($0.t) / 1e9 + 0.087 }
        // Covered: the frame's window (1/60 s, centred) lies inside the trace and over no gap.
        func covered(_ v: Double) -> Bool {
            let a = v - 1.0 / 120, b = v + 1.0 / 120
            guard a >= times.first!, b <= times.last! else { return false }
            return !zip(times, times.dropFirst()).contains { $0 < b && $1 > a && $1 - $0 > 0.0101 }
        }
        var paired = 0
        for r in rows {
            let v = Double(r[1])!
            if abs(v - 1.0 / 120 - times.first!) < 1e-4 || abs(v + 1.0 / 120 - times.last!) < 1e-4 { continue }  // on the edge
            XCTAssertEqual(r[4] == "1", covered(v), "frame \(r[0]) at \(v) s")
            if r[4] == "1" {
                paired += 1
                XCTAssertEqual(Double(r[2])!, v, accuracy: 1e-6, "frame \(r[0]) is paired with its own time")
                XCTAssertEqual(Double(r[9])!, v - 0.087, accuracy: 2e-6)
            } else {
                XCTAssertEqual(r[2], ""); XCTAssertEqual(r[9], "")
            }
        }
        XCTAssertGreaterThan(paired, 70)
        XCTAssertEqual(result.snake?.framesWithMotion, rows.filter { $0[4] == "1" }.count)
        XCTAssertTrue(result.snake!.warnings.contains { $0.hasPrefix("the trace starts 0.98") }, "\(result.snake!.warnings)")
        XCTAssertTrue(result.snake!.warnings.contains { $0.hasPrefix("the trace ends 1.88") }, "\(result.snake!.warnings)")
    }
}
