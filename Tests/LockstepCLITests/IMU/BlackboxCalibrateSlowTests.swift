import Foundation
import TestSupport
import XCTest

/// calibrate's flight choice where the issue puts it: a 15 s clip rendered from a real flight's
/// rotation (LOG00037, seconds 1.5-16.5) inside a 10-minute log of four flights written by
/// scripts/fixtures/make-blackbox-log (three writer profiles). Every flight carries real motion somewhere
/// (the GoPro HERO7's and MAX's gyro as telemetry-parser reads it, and LOG00037's in flight 3,
/// 70 s in) and smooth random turns elsewhere, so the clip's motion must be told from other real
/// motion and from a busy flight. (The speed budget is measured by scripts/bench/imu blackbox.)
final class BlackboxCalibrateSlowTests: ScratchFolderTestCase {
    static func script(_ name: String) -> String { Repository.script(name) }

    /// A camera file's gyro as `t_s,gx,gy,gz` (deg/s), from telemetry-parser's normalised IMU.
    func gyroCSV(_ video: String, _ name: String) throws -> String {
        let out = scratch.appendingPathComponent(name).path
        let code = """
            import sys, telemetry_parser
            with open(sys.argv[2], "w") as f:
                f.write("t_s,gx,gy,gz\\n")
                for s in telemetry_parser.Parser(sys.argv[1]).normalized_imu():
                    f.write("%.6f,%.6f,%.6f,%.6f\\n" % (s["timestamp_ms"] / 1000, *s["gyro"]))
            """
        let r = try Processes.run("python3", ["-c", code, video, out], timeout: 300)
        XCTAssertEqual(r.status, 0, r.stderr)
        return out
    }

    func testAFifteenSecondClipInATenMinuteFourFlightLog() throws {
        let hero7 = try gyroCSV(Repository.shared("gopro-hero7/hero7.mp4"), "hero7.csv")
        let maxCSV = try gyroCSV(Repository.shared("gopro-max/max-heromode.mp4"), "max.csv")
        let dir = scratch.appendingPathComponent("clip").path
        let c = try Processes.run(
            "python3",
            [
                Self.script("make-blackbox-clip"), "--log", Repository.shared("blackbox/LOG00037.BFL"),
                "--start", "1.5", "--duration", "15", "--out", dir
            ], timeout: 1800)
        XCTAssertEqual(c.status, 0, c.stderr)
        let bbl = scratch.appendingPathComponent("day.bbl").path
        // Profiles A, B, C, A: Betaflight 4 (500 Hz), Betaflight 3 (500 Hz), INAV (1 kHz).
        let g = try Processes.run(
            "python3",
            [
                Self.script("make-blackbox-log"), bbl, bbl + ".json",
                "--flight", "140:\(hero7)@30", "--flight", "150:\(maxCSV)@80",
                "--flight", "170:\(dir)/real.csv@70", "--flight", "140", "--seed", "5"
            ], timeout: 1800)
        XCTAssertEqual(g.status, 0, g.stderr)

        let info = try Processes.lockstep(["imu", "info", bbl])
        XCTAssertEqual(info.status, 0, info.stderr)
        let durations = info.stdout.split(separator: "\n").filter { $0.hasPrefix("  duration") }
            .compactMap { Double($0.split(separator: " ")[1]) }
        XCTAssertEqual(durations.count, 4, info.stdout)
        XCTAssertEqual(durations.reduce(0, +), 600, accuracy: 1.5, info.stdout)

        let r = try Processes.lockstep(["calibrate", "\(dir)/clip.mp4", "--imu", bbl, "-o", scratch.appendingPathComponent("p.json").path], timeout: 1800)
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.hasPrefix("trace 3 (log 3 of 4 ") ?? false, r.stdout)
        XCTAssertTrue(lines.first?.contains("INAV 6.1.1 (2024-01-01 ab12cd3) MATEKF405) chosen from 4 traces by the clip's motion") ?? false, r.stdout)
        // LOG00037's first sample is at 70 s into flight 3; the clip starts at its 1.5th second.
        let into = try XCTUnwrap(lines.dropFirst().first.flatMap { Double($0.split(separator: " ")[3]) }, r.stdout)
        XCTAssertEqual(into, 71.5, accuracy: 0.02, r.stdout)
    }
}
