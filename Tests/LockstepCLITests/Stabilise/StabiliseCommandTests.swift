import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

/// `lockstep stabilise`: its usage errors, and bad input as one line, exit 1, nothing written.
final class StabiliseCommandTests: XCTestCase {
    let pan = Repository.fixture("synthetic/pan.mp4")
    let panTrace = Repository.fixture("synthetic/pan-imu.csv")
    let hero5 = Repository.fixture("lens/gopro-hero5-black-wide-16by9.json")
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("stabilise-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func message(_ args: [String]) -> String {
        do { _ = try StabiliseCommand.parse(args); return "accepted" } catch { return StabiliseCommand.message(for: error) }
    }

    func testUsageErrorsAreSentences() {
        let out = path("o.mp4")
        XCTAssertEqual(message([pan, "-o", out]), "accepted")
        XCTAssertEqual(message([pan, "-o", out, "--horizon-lock-amount", "50", "--smoothing", "plain", "--zoom", "dynamic"]), "accepted")
        XCTAssertEqual(message([pan, "-o", out, "--smoothness", "0"]), "--smoothness must be between 0.01 and 10 seconds; got 0.0.")
        XCTAssertEqual(message([pan, "-o", out, "--max-zoom", "5"]), "--max-zoom must be between 1 and 4; got 5.0.")
        XCTAssertEqual(message([pan, "-o", out, "--horizon-lock-amount", "150"]), "--horizon-lock-amount must be a percentage from 0 to 100; got 150.0.")
        XCTAssertEqual(message([pan, "-o", out, "--rolling-shutter=-1"]), "--rolling-shutter must be between 0 and 100 ms; got -1.0.")
        XCTAssertEqual(message([pan, "-o", out, "--lens", "/nope.json"]), "--lens /nope.json: no such file.")
        XCTAssertEqual(
            message([pan, "-o", out, "--smoothing", "wobbly"]),
            "The value 'wobbly' is invalid for '--smoothing <default|plain|fixed|none>'. Please provide one of 'default', 'plain', 'fixed' or 'none'.")
        XCTAssertEqual(
            message([pan, "-o", out, "--hdr", "dolby"]), "The value 'dolby' is invalid for '--hdr <hlg|pq>'. Please provide one of 'hlg' and 'pq'.")
    }

    /// `--hdr` chooses the 10-bit working signal (the warp's 16-bit planes, an HEVC output).
    func testHDRIsTheWorkingSignal() throws {
        XCTAssertEqual(try StabiliseCommand.parse([pan, "-o", path("o.mp4")]).options.signal.rawValue, "sdr")
        XCTAssertEqual(try StabiliseCommand.parse([pan, "-o", path("o.mp4"), "--hdr", "hlg"]).options.signal.rawValue, "hlg")
        XCTAssertEqual(try StabiliseCommand.parse([pan, "-o", path("o.mp4"), "--hdr", "pq", "--crf", "0"]).options.encode.crf, 0)
    }

    func testHorizonLockAloneIsAllOfTheRoll() throws {
        let c = try StabiliseCommand.parse([pan, "-o", path("o.mp4"), "--horizon-lock"])
        XCTAssertEqual(c.stabiliseOptions.settings.horizonLock, 1)
        let half = try StabiliseCommand.parse([pan, "--horizon-lock-amount", "50", "-o", path("o.mp4")])
        XCTAssertEqual(half.stabiliseOptions.settings.horizonLock, 0.5)
        XCTAssertNil(try StabiliseCommand.parse([pan, "-o", path("o.mp4")]).stabiliseOptions.settings.horizonLock)
    }

    /// Runs the command and checks it failed with exactly `line`, leaving nothing in the folder
    /// but what the test put there.
    func refused(_ args: [String], _ line: String, keep: Set<String> = [], file: StaticString = #filePath, lineNo: UInt = #line) throws {
        let r = try CommandLineTests.lockstep(["stabilise"] + args)
        XCTAssertEqual(r.status, 1, r.stderr, file: file, line: lineNo)
        XCTAssertEqual(r.stderr, "Error: \(line)\n", file: file, line: lineNo)
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)), keep, "nothing left under the output's name", file: file, line: lineNo)
    }

    func profile() throws -> String {
        let p = path("profile.json")
        try Data(#"{"name": "pan", "axisMapping": "XYZ", "gyroBias": [0.012, -0.008, 0.004], "timeOffsetMs": 87, "focalLengthPx": 300}"#.utf8).write(to: URL(fileURLWithPath: p))
        return p
    }

    func testAClipWithoutAGyroIsRefused() throws {
        let fg = Repository.fixture("fg.mp4")
        try refused(
            [fg, "-o", path("o.mp4")],
            "\(fg): no --imu TRACE given, and the movie has no gyro track of its own (GPMF or CAMM) to follow; give --imu TRACE (a trace store, a Gyroflow .gcsv, a .csv or a flight log).")
    }

    func testALogThatDoesNotCoverTheClipIsRefused() throws {
        let p = try profile()
        // The first two seconds of the trace only; the clip is six.
        let lines = try String(contentsOfFile: panTrace, encoding: .utf8).split(separator: "\n")
        let short = path("short.csv")
        try (lines.prefix(400).joined(separator: "\n") + "\n").write(toFile: short, atomically: true, encoding: .utf8)
        try refused(
            [pan, "-o", path("o.mp4"), "--imu", short, "--calibration", p],
            "\(short): the trace covers the video from -0.200 s to 1.790 s, not the whole clip (0 to 6.000 s); stabilise needs the camera's motion for every frame",
            keep: ["profile.json", "short.csv"])
    }

    func testALensProfileForAnotherSizeOrBrokenIsRefused() throws {
        let p = try profile()
        try refused(
            [pan, "-o", path("o.mp4"), "--imu", panTrace, "--calibration", p, "--lens", hero5],
            "\(hero5): a lens profile for 3840x2160 pictures, not for this clip's 320x240 (another shape: another mode of the camera)",
            keep: ["profile.json"])
        let broken = path("broken.json")
        try Data("{\"calib_dimension\": ".utf8).write(to: URL(fileURLWithPath: broken))
        try refused(
            [pan, "-o", path("o.mp4"), "--imu", panTrace, "--calibration", p, "--lens", broken],
            "\(broken): not a Gyroflow lens profile (The given data was not valid JSON.)", keep: ["profile.json", "broken.json"])
    }

    func testHyperSmoothWithoutImageOrientationIsRefusedAsCalibrateRefusesIt() throws {
        let hero7 = Repository.shared("gopro-hero7/hero7.mp4")
        guard FileManager.default.fileExists(atPath: hero7) else { return XCTFail("\(hero7) is not beside the checkout") }
        let r = try CommandLineTests.lockstep(["stabilise", hero7, "-o", path("o.mp4")])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(
            r.stderr,
            "Error: \(hero7): the camera stabilised this picture (GPMF EISE \"Y\", EISA \"HS EIS\") and the file records no image orientation (IORI), so the picture does not follow the gyro and no offset can be trusted. Stabilise a clip recorded with stabilisation off (HyperSmooth off), or from a camera that records its image orientation (GoPro HERO8 or later, MAX)\n"
        )
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }

    /// The pan fixture (a known gyro, offset 87 ms, focal 300 px) through the whole command:
    /// it writes every frame, and the export holds a camera and a smoothed orientation per frame.
    func testStabilisesAndExportsThePath() throws {
        let p = try profile(), out = path("o.mp4"), csv = path("path.csv")
        let r = try CommandLineTests.lockstep(["stabilise", pan, "-o", out, "--imu", panTrace, "--calibration", p, "--export-path", csv, "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("wrote \(out): 180 frames"), r.stdout)
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(rows.first, "frame,time_s,camera_w,camera_x,camera_y,camera_z,smoothed_w,smoothed_x,smoothed_y,smoothed_z,zoom")
        XCTAssertEqual(rows.count, 181)
        let last = rows.last!.split(separator: ",").compactMap { Double($0) }
        XCTAssertEqual(last.count, 11)
        XCTAssertEqual(last[0], 179)
        XCTAssertEqual(last[1], 179.0 / 30, accuracy: 1e-6)
        // Unit quaternions, and the camera turned (the fixture pans) while the smoothed one is near it.
        XCTAssertEqual(last[2] * last[2] + last[3] * last[3] + last[4] * last[4] + last[5] * last[5], 1, accuracy: 1e-6)
        XCTAssertLessThan(last[2], 0.999)
        XCTAssertGreaterThanOrEqual(last[10], 1)
    }
}
