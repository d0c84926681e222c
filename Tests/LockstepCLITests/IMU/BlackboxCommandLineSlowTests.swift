import Foundation
import TestSupport
import XCTest

/// The longest blackbox cases (`scripts/test --all`): `snake` reading the real log directly after
/// `calibrate` against it (both decode the whole log), and every generated log against
/// telemetry-parser (the default tier checks them against the encoder's own truth).
final class BlackboxCommandLineSlowTests: BlackboxCommandLineTestCase {
    func testGeneratedLogsAgainstTelemetryParser() throws {
        let bbl = scratch.appendingPathComponent("tp.bbl").path
        let g = try Processes.run(
            "python3",
            [
                Self.script("make-blackbox-log"), bbl, bbl + ".json", "--flight", "3", "--flight", "3", "--flight", "2",
                "--truncate", "--profiles", "AC", "--seed", "7"
            ], timeout: 120)
        XCTAssertEqual(g.status, 0, g.stderr)
        let theirs = try Self.telemetryParser(bbl)
        XCTAssertEqual(theirs.count, 3)
        for k in 0..<3 { assertAgrees(try exported(bbl, trace: k + 1), theirs[k], "flight \(k + 1)") }
    }

    func testSnakeReadsTheRealLogDirectly() throws {
        let log = Repository.shared("blackbox/LOG00037.BFL")
        let dir = try renderedClip(start: 5, seconds: 3)
        let profile = scratch.appendingPathComponent("cam.json").path
        let c = try lockstep(["calibrate", "\(dir)/clip.mp4", "--imu", log, "-o", profile])
        XCTAssertEqual(c.status, 0, c.stderr)
        let truthMs = -(452_208.896 + 5000)
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: profile))) as? [String: Any]
        XCTAssertEqual(written?["timeOffsetMs"] as? Double ?? 0, truthMs, accuracy: 2, c.stdout)
        let out = scratch.appendingPathComponent("s.mp4").path, report = scratch.appendingPathComponent("r.csv").path
        let s = try lockstep(["snake", "\(dir)/clip.mp4", "--imu", log, "--calibration", profile, "--report", report, "-o", out])
        XCTAssertEqual(s.status, 0, s.stderr)
        let lead = "wrote \(out): 90 frames, 160x120 at 30 fps, 3.000 s, no audio\nmotion: 90 frames paired, 0 without; the picture's motion says the offset is "
        XCTAssertTrue(s.stdout.hasPrefix(lead) && s.stdout.hasSuffix(" ms\n"), s.stdout)
        let said = Double(s.stdout.dropFirst(lead.count).dropLast(" ms\n".count))
        XCTAssertEqual(said ?? .nan, truthMs, accuracy: 2, s.stdout)
        XCTAssertEqual(s.stderr, "")
        XCTAssertEqual(try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").count, 91)
    }

}
