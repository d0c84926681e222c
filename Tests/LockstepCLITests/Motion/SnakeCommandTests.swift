import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

final class SnakeCommandTests: XCTestCase {
    let root = CommandLineTests.root
    var pan: String { root.appendingPathComponent("Fixtures/synthetic/pan.mp4").path }
    var trace: String { root.appendingPathComponent("Fixtures/synthetic/pan-imu.csv").path }

    func message<C: ParsableCommand>(_ type: C.Type, _ args: [String]) -> String {
        do { _ = try type.parse(args); return "accepted" } catch { return type.message(for: error) }
    }

    func testValidationSaysWhatIsMissingOrWrong() {
        // No --imu: the movie's own telemetry is the trace, known only when it is read (below).
        XCTAssertEqual(message(SnakeCommand.self, [pan, "-o", "/tmp/s.mp4"]), "accepted")
        XCTAssertEqual(message(SnakeCommand.self, [pan, "--imu", "/nope.csv", "-o", "/tmp/s.mp4"]), "/nope.csv: no such file.")
        XCTAssertEqual(
            message(SnakeCommand.self, [pan, "--imu", trace, "--trail-scale", "1.5", "-o", "/tmp/s.mp4"]),
            "--trail-scale must be above 0 and at most 1; got 1.5.")
        XCTAssertEqual(message(CompositeCommand.self, ["--blend", "mix", "--snake", "-o", "/tmp/o.mp4", pan, pan]), "--snake needs --imu TRACE.")
        XCTAssertEqual(
            message(CalibrateCommand.self, [pan, "--imu", trace, "--focal-length=-3", "-o", "/tmp/c.json"]),
            "--focal-length must be a positive number of pixels, at most 1000000.")
        // Once accepted, then a profile that could not be written (inf) or a NaN correlation (1e308).
        for f in ["inf", "1e308", "nan"] {
            XCTAssertEqual(
                message(CalibrateCommand.self, [pan, "--imu", trace, "--focal-length", f, "-o", "/tmp/c.json"]),
                "--focal-length must be a positive number of pixels, at most 1000000.")
        }
        XCTAssertEqual(message(SnakeCommand.self, [pan, "--imu", trace, "-o", "/tmp/s.mp4"]), "accepted")
    }

    /// With no --imu the snake follows the movie's own gyro: a GoPro's GPMF gives the bytes
    /// `--imu` naming the same file gives; a movie without telemetry is one line, exit 1, no file.
    /// karma.mp4 from 9 s (its last 3 s, where it turns; before, it hovers still): the same
    /// comparison of the two runs' bytes for a quarter of the two renders.
    func testWithoutImuTheMoviesOwnTelemetryIsTheTrace() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("snake-own-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let none = dir.appendingPathComponent("none.mp4").path
        let r = try CommandLineTests.lockstep(["snake", pan, "-o", none])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(
            r.stderr,
            "Error: \(pan): no --imu TRACE given, and the movie has no gyro track of its own (GPMF or CAMM) to follow; give --imu TRACE (a trace store, a Gyroflow .gcsv, a .csv or a flight log).\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "nothing left under the output's name")

        let karma = Repository.shared("karma.mp4")
        guard FileManager.default.fileExists(atPath: karma) else { return XCTFail("karma.mp4 is not beside the checkout (../shared/media/karma.mp4)") }
        let own = dir.appendingPathComponent("own.mp4").path, named = dir.appendingPathComponent("named.mp4").path
        let a = try CommandLineTests.lockstep(["snake", karma, "--from", "9", "-o", own])
        XCTAssertEqual(a.status, 0, a.stderr)
        XCTAssertTrue(a.stdout.contains("frames paired"), a.stdout)
        let b = try CommandLineTests.lockstep(["snake", karma, "--from", "9", "--imu", karma, "-o", named])
        XCTAssertEqual(b.status, 0, b.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: own)), try Data(contentsOf: URL(fileURLWithPath: named)))
    }

    func testSnakeAndCalibrateRunEndToEnd() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("snake-cli-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let profile = dir.appendingPathComponent("cam.json").path
        let c = try CommandLineTests.lockstep(["calibrate", pan, "--imu", trace, "--focal-length", "300", "-o", profile])
        XCTAssertEqual(c.status, 0, c.stderr)
        XCTAssertTrue(c.stdout.contains("\noffset 8"), c.stdout)
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: profile))) as? [String: Any]
        XCTAssertEqual(written?["timeOffsetMs"] as? Double ?? 0, 87, accuracy: 1, c.stdout)
        let out = dir.appendingPathComponent("s.mp4").path, report = dir.appendingPathComponent("r.csv").path
        let s = try CommandLineTests.lockstep(["snake", pan, "--imu", trace, "--calibration", profile, "--report", report, "-o", out])
        XCTAssertEqual(s.status, 0, s.stderr)
        // The picture's own estimate of the offset (truth: 87 ms) is printed to 0.1 ms; its last
        // digit follows the phase correlation's sub-pixel fit, so it is checked as a number.
        let lead = "wrote \(out): 180 frames, 320x240 at 30 fps, 6.000 s, no audio\nmotion: 180 frames paired, 0 without; the picture's motion says the offset is "
        XCTAssertTrue(s.stdout.hasPrefix(lead) && s.stdout.hasSuffix(" ms\n"), s.stdout)
        let said = Double(s.stdout.dropFirst(lead.count).dropLast(" ms\n".count))
        XCTAssertEqual(said ?? .nan, 87, accuracy: 0.5, s.stdout)
        XCTAssertEqual(s.stderr, "")
        XCTAssertEqual(try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").count, 181)
    }

    func testAMalformedTraceIsNamedWithItsLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("snake-bad-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.csv").path
        try "t_ns,gx,gy,gz\n0,0,0,0\n5000000,0,x,0\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try CommandLineTests.lockstep(["snake", pan, "--imu", bad, "-o", dir.appendingPathComponent("s.mp4").path])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: \(bad):3: 'x' is not a number\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["bad.csv"])
    }

    func testCompositeWithSnakeAppliesTheEffectLastAndKeepsTheAudio() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("composite-snake-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("o.mp4").path
        let fg = root.appendingPathComponent("Fixtures/fg.mp4").path, bg = root.appendingPathComponent("Fixtures/bg.mp4").path
        let r = try CommandLineTests.lockstep(["composite", "--blend", "chromakey", "--snake", "--imu", trace, "--offset-ms", "87", "-o", out, fg, bg])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            r.stdout,
            "wrote \(out): 60 frames, 320x240 at 30 fps, 2.000 s, audio 2.000 s\n"
                + "keyer: screen measured 00FF01 on the first frame, --green-subjects no (0.00% of the picture green but not the screen's green), --clip-black 0.02 --clip-white 0.95\n"
                + "motion: 60 frames paired, 0 without\n")
        // The picture is the snake's: black around a quarter-size frame in the middle.
        let corner = try CommandLineTests.lockstep(["probe", out])
        XCTAssertTrue(corner.stdout.contains("60 frames"))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-i", out, "-vf", "select=eq(n\\,30),crop=40:40:0:0", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"]
        let pipe = Pipe(); p.standardOutput = pipe
        try p.run()
        let pixels = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile()); p.waitUntilExit()
        XCTAssertEqual(pixels.count, 1600)
        XCTAssertLessThan(pixels.map(Int.init).reduce(0, +) / max(1, pixels.count), 20, "the corner is black")
    }
}
