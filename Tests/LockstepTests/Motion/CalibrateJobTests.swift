import Foundation
import Motion
import TestSupport
import XCTest

@testable import Lockstep

/// Calibration on the synthetic camera (scripts/fixtures/make-synthetic-camera) with nothing but the two
/// files: the orientation, offset, focal length and bias it was made with must come back.
final class CalibrateJobTests: XCTestCase {
    static let dir = Repository.fixtures.appendingPathComponent("synthetic")
    static let video = dir.appendingPathComponent("pan.mp4").path

    struct Truth: Decodable { var timeOffsetMs: Double; var gyroBias: [Double]; var focalLengthPx: Double; var axisMapping: String }

    /// The fixture's CSV (t_ns,gx,gy,gz,ax,ay,az), read plainly: this test is about calibration.
    static func readings() throws -> [IMUReading] {
        let text = try String(contentsOf: Self.dir.appendingPathComponent("pan-imu.csv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let v = line.split(separator: ",").map { Double($0)! }
            return IMUReading(t: Int64(v[0]), gyro: SIMD3(v[1], v[2], v[3]), accel: SIMD3(v[4], v[5], v[6]))
        }
    }
    static func truth() throws -> Truth {
        try JSONDecoder().decode(Truth.self, from: Data(contentsOf: Self.dir.appendingPathComponent("truth.json")))
    }

    /// Decoded once for the tests that vary only the trace or the options.
    nonisolated(unsafe) static var cachedMotion: FrameMotionSeries?
    static func motion() throws -> FrameMotionSeries {
        if let m = cachedMotion { return m }
        let m = try FrameMotionExtractor.extract(path: video)
        cachedMotion = m
        return m
    }

    func testRecoversTheSyntheticCameraFromNothingButTheFiles() throws {
        let truth = try Self.truth()
        let r = try CalibrateJob.calibrate(CalibrateRequest(video: Self.video, readings: Self.readings(), base: Calibration(name: "synthetic")))
        XCTAssertEqual(r.frames, 180)
        let p = r.profile
        XCTAssertEqual(p.axisMapping, .orientation(truth.axisMapping))
        XCTAssertEqual(p.axisMappingSource, .searched)
        XCTAssertEqual(p.timeOffsetMs, truth.timeOffsetMs, accuracy: 1, "offset within 1 ms")
        XCTAssertLessThan(abs(p.clockDriftPpm ?? 0), 100, "no drift in the fixture")
        XCTAssertNil(p.clockPieces)
        XCTAssertGreaterThanOrEqual(p.syncPoints?.count ?? 0, 3)
        XCTAssertEqual(p.focalLengthEstimated, true)
        XCTAssertEqual(try XCTUnwrap(p.focalLengthPx), truth.focalLengthPx, accuracy: truth.focalLengthPx * 0.05, "focal length within 5%")
        // Within 10%, or within what the gyro's white noise allows over the still time (3 sigma
        // of the mean of its samples: this fixture's still second holds 0.00443 on z, 11% off).
        let stillSamples = 200 * (r.sync.still?.totalS ?? 0)
        let noiseLimit = 3 * 0.003 / stillSamples.squareRoot()
        XCTAssertGreaterThan(r.sync.still?.totalS ?? 0, 0.9, "the still first second, all of it")
        for i in 0..<3 {
            XCTAssertEqual(p.gyroBias[i], truth.gyroBias[i], accuracy: max(abs(truth.gyroBias[i]) * 0.1, noiseLimit), "bias axis \(i)")
        }
        XCTAssertGreaterThan(try XCTUnwrap(p.confidence), 0.7)
        XCTAssertTrue(r.report.contains { $0.hasPrefix("axis mapping XYZ (searched") && $0.contains("runner-up") }, "\(r.report)")
        XCTAssertTrue(r.report.contains { $0.contains("focal length") && $0.contains("estimated") }, "\(r.report)")
        XCTAssertFalse(r.warnings.contains { $0.contains("no still interval") || $0.contains("clock jump") }, "\(r.warnings)")
    }

    func testAGivenFocalLengthAndMappingAreKeptAndSaidSo() throws {
        let r = try CalibrateJob.calibrate(
            CalibrateRequest(
                video: Self.video, readings: Self.readings(), base: Calibration(name: "s"),
                axisMapping: .orientation("XYZ"), focalLength: 300), motion: Self.motion())
        XCTAssertEqual(r.profile.axisMappingSource, .given)
        XCTAssertEqual(r.profile.focalLengthPx, 300)
        XCTAssertNil(r.profile.focalLengthEstimated)
        XCTAssertEqual(r.profile.timeOffsetMs, 87, accuracy: 1)
    }

    /// The offset is 87 ms: a search of +-50 ms must not answer 50, it must say the answer lies outside.
    func testAnOffsetOutsideTheSearchRangeIsRefusedNotClamped() throws {
        XCTAssertThrowsError(
            try CalibrateJob.calibrate(
                CalibrateRequest(
                    video: Self.video, readings: Self.readings(), base: Calibration(name: "s"),
                    searchMs: 50), motion: Self.motion())
        ) {
            let text = "\($0)"
            XCTAssertTrue(text.hasPrefix("\(Self.video): ") && text.contains("outside the search range") && text.contains("--search-ms"), text)
        }
    }

    /// Right answers score high; an unrelated trace or a wrong forced mapping scores low.
    func testConfidenceSeparatesRightFromWrong() throws {
        let readings = try Self.readings()
        let right = try CalibrateJob.calibrate(CalibrateRequest(video: Self.video, readings: readings, base: Calibration(name: "s")), motion: Self.motion())
        // The same trace played backwards: a gyro of some other motion (a rotation of the samples
        // would only move the clock, and be found as a right answer at another offset).
        let n = readings.count
        let unrelated = readings.indices.map { i in IMUReading(t: readings[i].t, gyro: readings[n - 1 - i].gyro) }
        // A wrong case either scores under 0.3 (with the warning) or is refused outright.
        var outcomes: [String: String] = [:]
        for (name, request) in [
            ("unrelated", CalibrateRequest(video: Self.video, readings: unrelated, base: Calibration(name: "s"))),
            (
                "swapped axes",
                CalibrateRequest(
                    video: Self.video, readings: readings, base: Calibration(name: "s"),
                    axisMapping: .orientation("YXZ"))
            )
        ] {
            do {
                let w = try CalibrateJob.calibrate(request, motion: Self.motion())
                outcomes[name] = String(format: "%.3f", w.sync.confidence)
                XCTAssertLessThan(w.sync.confidence, 0.3, name)
                XCTAssertTrue(w.warnings.contains { $0.hasPrefix("warning: low confidence") }, "\(name): \(w.warnings)")
            } catch let e as CalibrationError {
                outcomes[name] = "refused: \(e)"
                XCTAssertTrue(e.description.hasPrefix("\(Self.video): "), e.description)
            }
        }
        XCTAssertGreaterThan(right.sync.confidence, 0.7)
        print("confidence: right \(right.sync.confidence), wrong \(outcomes)")
    }

    func testAStillClipIsRefusedNamingTheFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("still-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let still = dir.appendingPathComponent("still.mp4").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=3,trim=end_frame=1,loop=89:1", "-c:v", "libx264", still]
        try p.run(); p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        XCTAssertThrowsError(try CalibrateJob.calibrate(CalibrateRequest(video: still, readings: Self.readings(), base: Calibration(name: "x")))) {
            XCTAssertTrue("\($0)".hasPrefix("\(still): the video barely moves"), "\($0)")
        }
    }
}
