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
        var snake = SnakeOptions(readings: try readings ?? CalibrateJobTests.readings(),
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
        let shifted = try CalibrateJobTests.readings().map { r -> IMUReading in var r = r; r.t += 1_000_000_000_000; return r }
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
}
