import Foundation
import Motion
import TestSupport
import XCTest

@testable import Lockstep

/// Telemetry read from camera files, checked against outside readers: karma.mp4 (a real GoPro
/// HERO5 file) against telemetry-parser, Gyroflow's parser (PyPI `telemetry-parser`, installed
/// by scripts/setup); a CAMM file written by scripts/fixtures/make-camm-fixture (Python, from the spec)
/// against the values it wrote. A missing outside reader fails the test, it never skips.
final class EmbeddedTelemetryTests: ScratchTestCase {
    /// ../shared/media/karma.mp4 (Repository.sharedMedia).
    static var karma: String { Repository.shared("karma.mp4") }
    static func script(_ name: String) -> String { Repository.script(name) }

    struct Reference: Decodable {
        var camera: String?
        var model: String?
        var imu: [[Double]]
        var gyro_payloads: [[[Double]]]
        var accel_payloads: [[[Double]]]
    }

    func testKarmaAgreesWithTelemetryParser() throws {
        XCTAssertTrue(FileManager.default.fileExists(atPath: Self.karma), "karma.mp4 not found at \(Self.karma) (set LOCKSTEP_SHARED_MEDIA)")
        let r = try Shell.run("python3", [Self.script("telemetry-parser-dump"), Self.karma])
        guard r.status == 0 else { return XCTFail("telemetry-parser-dump failed (\(r.status)): \(r.stderr)") }
        let ref = try JSONDecoder().decode(Reference.self, from: r.stdout)
        let trace = try EmbeddedTelemetry.read(path: Self.karma)

        XCTAssertEqual(trace.info.metadata["source"], MotionTrace.CameraSource.gpmf.rawValue)
        XCTAssertEqual(ref.model, "HERO5 Black")
        XCTAssertEqual(trace.axisMapping, .orientation("yxz"))
        XCTAssertTrue(trace.hasAccel)
        XCTAssertEqual(trace.info.clock, "video")
        XCTAssertEqual(trace.info.deviceName, "HERO5 Black")
        XCTAssertNil(trace.info.metadata["axisMapping"], "the stated axes are typed, not text in the metadata")
        XCTAssertEqual(trace.warnings, [])

        // Counts: every gyro sample, payload by payload, and in all.
        let refGyro = ref.gyro_payloads.flatMap { $0 }
        let refAccel = ref.accel_payloads.flatMap { $0 }
        XCTAssertEqual(ref.gyro_payloads.count, 13)
        XCTAssertEqual(trace.readings.count, refGyro.count)
        XCTAssertEqual(trace.readings.count, ref.imu.count)
        XCTAssertEqual(trace.accelerometer.count, refAccel.count)
        XCTAssertEqual(trace.readings.count, 4795)

        // Values: both divide the same integers by the same SCAL: equal to rounding.
        for (i, (ours, theirs)) in zip(trace.readings, refGyro).enumerated() {
            XCTAssertEqual(ours.gyro.x, theirs[0], accuracy: 1e-12, "gyro \(i)")
            XCTAssertEqual(ours.gyro.y, theirs[1], accuracy: 1e-12, "gyro \(i)")
            XCTAssertEqual(ours.gyro.z, theirs[2], accuracy: 1e-12, "gyro \(i)")
        }
        for (i, (ours, theirs)) in zip(trace.readings, ref.imu).enumerated() {
            // normalized_imu gives deg/s; converted back, equal to rounding.
            XCTAssertEqual(ours.gyro.x, theirs[1], accuracy: 1e-9, "normalized gyro \(i)")
            XCTAssertEqual(ours.gyro.z, theirs[3], accuracy: 1e-9, "normalized gyro \(i)")
        }
        for (i, (ours, theirs)) in zip(trace.accelerometer, refAccel).enumerated() {
            XCTAssertEqual(ours.x, theirs[0], accuracy: 1e-12, "accel \(i)")
            XCTAssertEqual(ours.y, theirs[1], accuracy: 1e-12, "accel \(i)")
            XCTAssertEqual(ours.z, theirs[2], accuracy: 1e-12, "accel \(i)")
        }

        // Times. The two readers time the samples differently: telemetry-parser puts sample i at
        // i * (one mean period, from the payloads' TICKs), the first at 0; Lockstep, like
        // gpmf-parser's precise sample rate, fits one line through the packets' spans in the MP4,
        // which puts the first gyro sample 11.5 ms after the first frame and the last at the end of
        // the file. Both are evenly spaced; the rates agree within 0.1%; the largest difference is
        // under timeToleranceMs (measured 18.0 ms: the 11.5 ms start plus 0.05% of 12 s).
        var worst = 0.0
        for (ours, theirs) in zip(trace.readings, ref.imu) {
            worst = max(worst, abs(Double(ours.t) / 1e6 - theirs[0]))
        }
        XCTAssertLessThan(worst, Self.timeToleranceMs, "largest difference in time against telemetry-parser: \(worst) ms")
        let first = Double(trace.readings[0].t) / 1e6
        XCTAssertLessThan(abs(first - ref.imu[0][0]), 15, "first sample at \(first) ms")
        let n = Double(ref.imu.count - 1)
        let ourPeriod = Double(trace.readings.last!.t - trace.readings[0].t) / 1e6 / n
        let theirPeriod = (ref.imu.last![0] - ref.imu[0][0]) / n
        XCTAssertEqual(ourPeriod / theirPeriod, 1, accuracy: 1e-3)
        for i in 1..<trace.readings.count {  // evenly spaced, to the nanosecond rounding
            XCTAssertEqual(Double(trace.readings[i].t - trace.readings[i - 1].t) / 1e6, ourPeriod, accuracy: 1e-5)
        }
        XCTAssertEqual(trace.info.rateHz!, 4795 / 12.079, accuracy: 0.5)
        XCTAssertEqual(Double(trace.info.metadata["accelRateHz"]!)!, Double(refAccel.count) / 12.079, accuracy: 0.5)
        // Timestamps strictly increase.
        XCTAssertTrue(zip(trace.readings, trace.readings.dropFirst()).allSatisfy { $0.t < $1.t })
        // Gravity: the HERO5's first channel is Z (up), about +9.8 m/s^2 when the camera is level.
        let meanUp = trace.accelerometer.prefix(200).map(\.x).reduce(0, +) / 200
        XCTAssertEqual(meanUp, 9.8, accuracy: 1.0)
    }

    /// Sample times against telemetry-parser's, ms: about 8 gyro periods (see the test).
    static let timeToleranceMs = 20.0

    func testCAMMFileWrittenByAnIndependentWriter() throws {
        let movie = scratch.appendingPathComponent("camm.mp4").path
        let truthPath = scratch.appendingPathComponent("camm.json").path
        let made = try Shell.run("python3", [Self.script("make-camm-fixture"), movie, truthPath])
        guard made.status == 0 else { return XCTFail("make-camm-fixture failed (\(made.status)): \(made.stderr)") }
        struct Truth: Decodable { var gyro: [[Double]]; var accel: [[Double]]; var packets: Int }
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: truthPath)))
        let trace = try EmbeddedTelemetry.read(path: movie)
        XCTAssertEqual(trace.info.metadata["source"], MotionTrace.CameraSource.camm.rawValue)
        XCTAssertNil(trace.axisMapping)
        XCTAssertEqual(trace.readings.count, truth.gyro.count)
        XCTAssertEqual(trace.accelerometer.count, truth.accel.count)
        XCTAssertEqual(truth.gyro.count, 400)
        for (ours, t) in zip(trace.readings, truth.gyro) {
            // The track's timescale is 90 kHz: each time is exact to a tick (11.1 us); 1 us here.
            XCTAssertEqual(Double(ours.t) / 1e9, t[0], accuracy: 1e-6)
            XCTAssertEqual(ours.gyro.x, t[1]); XCTAssertEqual(ours.gyro.y, t[2]); XCTAssertEqual(ours.gyro.z, t[3])
        }
        for (ours, t) in zip(trace.accelerometer, truth.accel) {
            XCTAssertEqual(Double(ours.t) / 1e9, t[0], accuracy: 1e-6)
            XCTAssertEqual(ours.x, t[1]); XCTAssertEqual(ours.y, t[2]); XCTAssertEqual(ours.z, t[3])
        }
        XCTAssertEqual(trace.info.rateHz!, 200, accuracy: 0.01)
        XCTAssertEqual(Double(trace.info.metadata["accelRateHz"]!)!, 100, accuracy: 0.01)
    }

    func testMovieWithoutTelemetryIsOneLineNamingTheFile() throws {
        let movie = scratch.appendingPathComponent("plain.mp4").path
        try Shell.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=0.5",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", movie
            ])
        XCTAssertThrowsError(try EmbeddedTelemetry.read(path: movie)) {
            XCTAssertEqual("\($0)", "\(movie): has no GPMF or CAMM telemetry track")
        }
        let missing = scratch.appendingPathComponent("nope.mp4").path
        XCTAssertThrowsError(try EmbeddedTelemetry.read(path: missing)) {
            XCTAssertEqual("\($0)", "\(missing): No such file or directory (avformat_open_input)")
        }
        XCTAssertEqual(MotionFiles.kind(path: "GOPR0001.MP4"), .movie)
        XCTAssertEqual(MotionFiles.kind(path: "trace.gcsv"), .text(.gcsv))
        XCTAssertEqual(EmbeddedTelemetry.goProModel(firmware: "HD5.02.02.00.00"), "HERO5 Black")
    }

    func testDamagedGPMFPayloadIsAnErrorNamingTheFile() throws {
        // karma.mp4 with its first gpmd payload's GYRO size made impossible: copy, patch, read.
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.karma))
        var bytes = [UInt8](data)
        // The first "GYRO" key of type 's' (Foundation's search: a closure per byte offset at
        // -Onone took a second to get there, 317 KiB in).
        guard let at = data.range(of: Data("GYROs".utf8)).map({ $0.lowerBound - data.startIndex }) else {
            return XCTFail("no GYRO in karma.mp4")
        }
        bytes[at + 6] = 0xff; bytes[at + 7] = 0xff
        let broken = scratch.appendingPathComponent("broken.mp4").path
        try Data(bytes).write(to: URL(fileURLWithPath: broken))
        XCTAssertThrowsError(try EmbeddedTelemetry.read(path: broken)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("\(broken): GPMF payload 1 of 13 (at 0.0 s): GYRO at byte "), text)
            XCTAssertFalse(text.contains("\n"))
        }
    }

    /// A VR180-like CAMM track: orientations (type 0) and no gyro. The rates are the
    /// orientation's turns between samples, against the writer's own rate integrated over each
    /// pair (scripts/fixtures/make-camm-fixture --orientation, from the spec, in Python).
    func testCAMMOrientationOnlyTrackGivesRates() throws {
        let movie = scratch.appendingPathComponent("camm-o.mp4").path
        let truthPath = scratch.appendingPathComponent("camm-o.json").path
        let made = try Shell.run("python3", [Self.script("make-camm-fixture"), "--orientation", movie, truthPath])
        guard made.status == 0 else { return XCTFail("make-camm-fixture --orientation failed (\(made.status)): \(made.stderr)") }
        struct Truth: Decodable { var gyro: [[Double]]; var orientation: [[Double]]; var meanRates: [[Double]] }
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: truthPath)))
        XCTAssertEqual(truth.gyro.count, 0)
        XCTAssertEqual(truth.orientation.count, 200)
        let trace = try EmbeddedTelemetry.read(path: movie)
        XCTAssertEqual(trace.readings.count, truth.meanRates.count)
        XCTAssertEqual(trace.warnings, ["CAMM: no gyroscope packets (type 2); the angular rates are the turns between its 200 orientation packets (type 0)"])
        var worst = 0.0
        for (ours, t) in zip(trace.readings, truth.meanRates) {
            XCTAssertEqual(Double(ours.t) / 1e9, t[0], accuracy: 1e-6)
            // float32 angle-axis over 10 ms: about 1e-5 rad/s of rounding.
            worst = max(worst, abs(ours.gyro.x - t[1]), abs(ours.gyro.y - t[2]), abs(ours.gyro.z - t[3]))
        }
        XCTAssertLessThan(worst, 2e-4, "largest rate error \(worst) rad/s")
        XCTAssertEqual(trace.info.rateHz!, 100, accuracy: 0.01)
    }

    struct Records: Decodable {
        struct Lag: Decodable { var offset_ms: Double; var r: Double; var matrix: [[Double]] }
        struct Stamp: Decodable { var gyro: Double; var frames: Double }
        var settings: [String: String]
        var cori: [[Double]]
        var iori: [[Double]]
        var stamps: [Stamp]
        var gyro_counts: [Int]
        var tp_quaternion: [[Double]]
        var cori_lag: Lag
    }

    /// The GoPro MAX file's per-frame records, stabilisation settings and STMP timing against
    /// telemetry-parser (scripts/tools/gopro-records-dump), and the conventions: the picture's
    /// orientation IORI * CORI is telemetry-parser's own product (CORI * IORI with x negated:
    /// the same rotation written in a mirrored frame), and the body's turns between CORI records
    /// match the gyro at the lag the outside check finds (its own numpy, STMP-timed).
    func testMaxRecordsAgreeWithTelemetryParser() throws {
        let max = Repository.shared("gopro-max/max-heromode.mp4")
        let r = try Shell.run("python3", [Self.script("gopro-records-dump"), max])
        guard r.status == 0 else { return XCTFail("gopro-records-dump failed (\(r.status)): \(r.stderr)") }
        let ref = try JSONDecoder().decode(Records.self, from: r.stdout)
        let trace = try EmbeddedTelemetry.read(path: max)
        let rec = trace.records
        XCTAssertEqual(rec.stabilisation, InCameraStabilisation(enabled: true, mode: "HS HLevel", source: "GPMF EISE \"Y\", EISA \"HS HLevel\""))
        XCTAssertEqual(ref.settings, ["EISE": "Y", "EISA": "HS HLevel"])
        XCTAssertEqual(rec.cameraOrientation.count, 316); XCTAssertEqual(ref.cori.count, 316)
        XCTAssertEqual(rec.imageOrientation.count, ref.iori.count)
        for (k, (ours, theirs)) in zip(rec.cameraOrientation, ref.cori).enumerated() {
            // Lockstep normalises each record (int16 rounding leaves them up to 3e-5 off unit length).
            XCTAssertEqual(ours.q.w, theirs[0], accuracy: 1e-4, "CORI \(k)"); XCTAssertEqual(ours.q.x, theirs[1], accuracy: 1e-4, "CORI \(k)")
            XCTAssertEqual(ours.q.y, theirs[2], accuracy: 1e-4, "CORI \(k)"); XCTAssertEqual(ours.q.z, theirs[3], accuracy: 1e-4, "CORI \(k)")
        }
        let picture = OrientationRecords.picture(camera: rec.cameraOrientation, image: rec.imageOrientation)
        XCTAssertEqual(picture.count, ref.tp_quaternion.count)
        for (k, (ours, theirs)) in zip(picture, ref.tp_quaternion).enumerated() {
            XCTAssertEqual(ours.q.w, theirs[0], accuracy: 1e-4, "picture \(k)"); XCTAssertEqual(-ours.q.x, theirs[1], accuracy: 1e-4, "picture \(k)")
            XCTAssertEqual(ours.q.y, theirs[2], accuracy: 1e-4, "picture \(k)"); XCTAssertEqual(ours.q.z, theirs[3], accuracy: 1e-4, "picture \(k)")
        }
        // The records sit on the frames: one per frame period from the first frame.
        XCTAssertEqual(Double(rec.cameraOrientation[0].t), 0, accuracy: 1)
        XCTAssertEqual(Double(rec.cameraOrientation[300].t) / 1e9, 300 * 1.001 / 30, accuracy: 1e-5)
        // The gyro timed by its stamps: each payload's first sample where its STMP puts it.
        var first = 0
        for (p, (stamp, n)) in zip(ref.stamps, ref.gyro_counts).enumerated() {
            let expected = (stamp.gyro - ref.stamps[0].frames) / 1e3
            XCTAssertEqual(Double(trace.readings[first].t) / 1e6, expected, accuracy: 0.1, "payload \(p)'s first gyro sample")
            first += n
        }
        XCTAssertEqual(trace.readings.count, first)
        // The gyro against CORI: Lockstep's search over the records finds the outside check's lag and axes.
        let result = try GyroSync.run(
            shifts: OrientationRecords.shifts(rec.cameraOrientation), readings: trace.readings,
            options: {
                var o = GyroSync.Options(searchMs: 200); o.rollWeightPx = 1000; return o
            }())
        XCTAssertEqual(result.clock.offsetMs(atVideo: 5), ref.cori_lag.offset_ms, accuracy: 0.3)
        XCTAssertEqual(result.mapping.rows, ref.cori_lag.matrix)
        XCTAssertGreaterThan(result.correlation, 0.9999)
    }

    /// Issue 41, items 1 and 5. The HERO7's gyro timeline was 2.8% too long (192.1 Hz over
    /// 11.315 s): the MP4 stretches the GPMF track's last packet to the end of the video (1.735 s
    /// for one second's samples), and the first payload holds 171 samples where the rest hold
    /// about 198. Against telemetry-parser's span (2,175 samples over 11.006 s) within 0.5%. The
    /// MAX (firmware "H19...") was named a HERO9 Black.
    func testTheHERO7TimelineAndTheMAXsNameAgreeWithTelemetryParser() throws {
        let hero7 = Repository.shared("gopro-hero7/hero7.mp4")
        let r = try Shell.run("python3", [Self.script("telemetry-parser-dump"), hero7])
        guard r.status == 0 else { return XCTFail("telemetry-parser-dump failed (\(r.status)): \(r.stderr)") }
        let ref = try JSONDecoder().decode(Reference.self, from: r.stdout)
        let trace = try EmbeddedTelemetry.read(path: hero7)
        XCTAssertEqual(trace.readings.count, ref.imu.count)
        XCTAssertEqual(ref.imu.count, 2175)
        let ours = Double(trace.readings.last!.t - trace.readings[0].t) / 1e6
        let theirs = ref.imu.last![0] - ref.imu[0][0]
        XCTAssertEqual(theirs, 11006, accuracy: 1)
        XCTAssertEqual(ours / theirs, 1, accuracy: 0.005, "span \(ours) ms against telemetry-parser's \(theirs) ms")
        // The payloads' own count: about 198 samples per 1.001 s payload.
        XCTAssertEqual(trace.info.rateHz!, 197.8, accuracy: 1)
        XCTAssertEqual(trace.info.deviceName, "HERO7 Black")

        let max = try EmbeddedTelemetry.read(path: Repository.shared("gopro-max/max-heromode.mp4"))
        XCTAssertEqual(max.info.deviceName, "MAX")
        XCTAssertEqual(EmbeddedTelemetry.goProModel(firmware: "HD9.01.01.72.00"), "HERO9 Black")
        XCTAssertEqual(EmbeddedTelemetry.goProModel(firmware: "H19.03.01.30.00"), "MAX")
    }
}
