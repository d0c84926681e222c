import Foundation
import TestSupport
import XCTest

/// Blackbox logs through the CLI: the real LOG00037.BFL (shared media) and logs written by
/// scripts/fixtures/make-blackbox-log (an independent Python encoder), each checked against
/// telemetry-parser (Gyroflow's parser) and, for generated logs, the encoder's truth.
class BlackboxCommandLineTestCase: ScratchFolderTestCase {
    static func script(_ name: String) -> String { Repository.script(name) }

    /// telemetry-parser's gyro per log: [[t_s, x, y, z]] in the units stored (deg/s for Betaflight).
    static func telemetryParser(_ path: String) throws -> [[[Double]]] {
        let code = """
            import json, sys, telemetry_parser
            out = []
            for e in telemetry_parser.Parser(sys.argv[1]).telemetry():
                out.append([[d['t'], d['x'], d['y'], d['z']] for d in e['Gyroscope']['Data']])
            json.dump(out, sys.stdout)
            """
        let r = try Processes.run("python3", ["-c", code, path], timeout: 300)
        // The outside reader is installed by scripts/setup: its failure fails the test, never skips it.
        guard r.status == 0 else { throw NSError(domain: "telemetry-parser", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: "telemetry-parser failed (\(r.status)): \(r.stderr)"]) }
        return try JSONDecoder().decode([[[Double]]].self, from: r.stdout)
    }

    /// `lockstep imu export FILE --trace N` as rows [t_ns, gx, gy, gz, ...].
    func exported(_ path: String, trace: Int) throws -> [[Double]] {
        let out = scratch.appendingPathComponent("t\(trace).csv").path
        let r = try lockstep(["imu", "export", path, "--trace", String(trace), "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",").map { Double($0)! } }
    }

    func lockstep(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) { try Processes.lockstep(args) }

    static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(a.count), ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for i in a.indices { sab += (a[i] - ma) * (b[i] - mb); saa += (a[i] - ma) * (a[i] - ma); sbb += (b[i] - mb) * (b[i] - mb) }
        return sab / (saa * sbb).squareRoot()
    }

    /// Same count within 1 %, and per axis correlation 0.999 and scale within 1 % (ours in rad/s, theirs in deg/s).
    func assertAgrees(_ ours: [[Double]], _ theirs: [[Double]], _ what: String) {
        XCTAssertEqual(Double(ours.count), Double(theirs.count), accuracy: Double(theirs.count) * 0.01, what)
        let n = min(ours.count, theirs.count)
        for axis in 1...3 {
            let a = ours.prefix(n).map { $0[axis] * 180 / .pi }, b = theirs.prefix(n).map { $0[axis] }
            let c = Self.correlation(a, b)
            let scale = (a.map { $0 * $0 }.reduce(0, +) / b.map { $0 * $0 }.reduce(0, +)).squareRoot()
            XCTAssertGreaterThan(c, 0.999, "\(what) axis \(axis)")
            XCTAssertEqual(scale, 1, accuracy: 0.01, "\(what) axis \(axis)")
        }
    }
    /// Three profiles (Betaflight 4 / data version 2, Betaflight 3 / version 1 with TAG2_3SVARIABLE,
    /// INAV), an empty log, a corrupt frame, a truncated end: every sample as the encoder wrote it,
    /// and the warnings word for word.
    /// telemetry-parser 0.3.0 reads profiles A and C (it stops at TAG2_3SVARIABLE, profile B):
    /// per flight, the same count within 1 % and the same gyro.
    /// A clip rendered (scripts/fixtures/make-blackbox-clip) from the real LOG00037's rotation, `seconds`
    /// long from its `start` second, at 160x120 so it renders in a second or two: DIR/clip.mp4,
    /// and DIR/real.csv, the log's gyro for scripts/fixtures/make-blackbox-log to place in a flight.
    func renderedClip(start: Double, seconds: Double) throws -> String {
        let dir = scratch.appendingPathComponent("clip").path
        let c = try Processes.run(
            "python3",
            [
                Self.script("make-blackbox-clip"), "--log", Repository.shared("blackbox/LOG00037.BFL"),
                "--start", String(start), "--duration", String(seconds), "--size", "160x120", "--out", dir
            ], timeout: 300)
        XCTAssertEqual(c.status, 0, c.stderr)
        return dir
    }

    /// The short default-tier check of calibrate's flight choice: a 3 s clip rendered from the
    /// real LOG00037's rotation (seconds 5-8), against a generated log of three flights whose
    /// second carries that real gyro from its 2nd second on. Calibrate must pick flight 2 and
    /// put the clip 7 s into it. (The 10-minute log is BlackboxCalibrateSlowTests.)
    /// `snake --imu LOG.BFL`: the real log read directly, after `calibrate` against it. The clip
    /// shows the log's rotation from its 5th second, so video time = log time + offset with
    /// offset = -(first sample's time + 5 s); snake's own estimate from the picture says so.
}

/// The default tier's cases (the slow tier, `BlackboxCommandLineSlowTests`, adds the snake on
/// the real log and the generated logs against telemetry-parser).
final class BlackboxCommandLineTests: BlackboxCommandLineTestCase {
    /// The clip of LOG00037's seconds 5-8, rendered once for the class: make-blackbox-clip parses
    /// the log with telemetry-parser to render it and writes that parse (telemetry-parser.json,
    /// the same document `telemetryParser` prints), so the real log is parsed by the outside
    /// reader once, not once per test (its parse is most of both tests' Python time).
    nonisolated(unsafe) static var clip: Result<String, Error>?
    func sharedClip() throws -> String {
        if let clip = Self.clip { return try clip.get() }
        let made = Result { () throws -> String in
            let dir = try Scratch.makeFolder("lockstep-blackbox-clip").appendingPathComponent("clip").path
            let c = try Processes.run(
                "python3",
                [
                    Self.script("make-blackbox-clip"), "--log", Repository.shared("blackbox/LOG00037.BFL"), "--start", "5", "--duration", "3", "--size", "160x120",
                    "--out", dir
                ], timeout: 300)
            guard c.status == 0 else { throw Processes.Failure(description: "make-blackbox-clip failed (\(c.status)): \(c.stderr)") }
            return dir
        }
        Self.clip = made
        return try made.get()
    }
    override class func tearDown() {
        if case .success(let dir)? = clip { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: dir).deletingLastPathComponent().path) }
        clip = nil
        super.tearDown()
    }

    func testTheRealLogAgreesWithTelemetryParser() throws {
        let log = Repository.shared("blackbox/LOG00037.BFL")
        XCTAssertTrue(FileManager.default.fileExists(atPath: log), "\(log) is missing")
        let info = try lockstep(["imu", "info", log])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.hasPrefix("trace 1: Betaflight 4.2.0 (8f2d21460) STM32F745, from 2022-02-02 15:04:53, from \(log)\n"), info.stdout)
        XCTAssertTrue(
            info.stdout.contains(
                "  format    blackbox, log 1 of 1; firmware Betaflight 4.2.0 (8f2d21460) STM32F745\n  samples   16774 (gyro and accelerometer)\n  duration  17.022 s\n  rate      985.379 Hz measured, 1000 Hz declared\n"
            ), info.stdout)
        let ours = try exported(log, trace: 1)
        // telemetry-parser's gyro of every log in the file, as make-blackbox-clip wrote it.
        let theirs = try JSONDecoder().decode([[[Double]]].self, from: Data(contentsOf: URL(fileURLWithPath: try sharedClip() + "/telemetry-parser.json")))
        XCTAssertEqual(theirs.count, 1)
        XCTAssertEqual(ours.count, 16774)
        assertAgrees(ours, theirs[0], "LOG00037")
        // Sample by sample: the log's own microseconds, and the gyro as the log's integers times
        // gyro_scale (telemetry-parser gives deg/s), so any misread field shows, not only a large one.
        var worst = (t: 0.0, gyro: 0.0)
        for (o, t) in zip(ours, theirs[0]) {
            worst.t = max(worst.t, abs(o[0] / 1e9 - t[0]))
            for j in 1...3 { worst.gyro = max(worst.gyro, abs(o[j] * 180 / .pi - t[j])) }
        }
        XCTAssertLessThan(worst.t, 1e-7, "times (s)")
        XCTAssertLessThan(worst.gyro, 1e-9, "gyro (deg/s)")
        // Accelerometer from acc_1G (2048): about 1 g at rest.
        let a = ours[0][4...6].map { $0 * $0 }.reduce(0, +).squareRoot()
        XCTAssertEqual(a, 9.81, accuracy: 0.5)
    }

    func testGeneratedLogsAgainstTheEncodersTruth() throws {
        let bbl = scratch.appendingPathComponent("gen.bbl").path, truthPath = scratch.appendingPathComponent("gen.json").path
        let g = try Processes.run(
            "python3",
            [
                Self.script("make-blackbox-log"), bbl, truthPath, "--flight", "3", "--flight", "2", "--flight", "2",
                "--corrupt-in", "2", "--truncate", "--empty-log-after", "1"
            ], timeout: 120)
        XCTAssertEqual(g.status, 0, g.stderr)
        struct Truth: Decodable { struct Log: Decodable { var samples: [[Double]]; var corrupt: Int; var dropped: Int; var lost_iterations: Int; var truncated_at: Int? }; var logs: [Log] }
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: truthPath)))
        XCTAssertEqual(truth.logs.count, 4)
        for (k, log) in truth.logs.enumerated() where !log.samples.isEmpty {
            let ours = try exported(bbl, trace: k + 1)
            XCTAssertEqual(ours.count, log.samples.count, "log \(k + 1)")
            for (o, t) in zip(ours, log.samples) {
                XCTAssertEqual(o[0], t[0] * 1000, "log \(k + 1)")
                for j in 1...6 where abs(o[j] - t[j]) > 1e-6 * max(1, abs(t[j])) { XCTFail("log \(k + 1) at \(t[0]) us: \(o) vs \(t)"); return }
            }
        }
        let store = scratch.appendingPathComponent("s.sqlite").path
        let r = try lockstep(["imu", "import", bbl, "-o", store])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "1\n2\n3\n")
        let cut = truth.logs[3].truncated_at!
        XCTAssertEqual(
            r.stderr.split(separator: "\n").filter { !$0.contains(" gap") || $0.contains("loop iterations") }.map(String.init),
            [
                "warning: \(bbl): 1 of its 4 logs holds no frames (2)",
                "warning: \(bbl): log 1 of 4: 1 gap in the loop iterations, 400 iterations not logged; the first at 0.998 s",
                "warning: \(bbl): log 3 of 4: 1 corrupt frame skipped, \(truth.logs[2].dropped) main frame\(truth.logs[2].dropped == 1 ? "" : "s") after them not used (no I frame to resynchronise from, or time/iteration out of order)",
                "warning: \(bbl): log 3 of 4: 1 gap in the loop iterations, \(truth.logs[2].lost_iterations) iterations not logged; the first at 1.000 s",
                "warning: \(bbl): log 4 of 4 is truncated: it stops inside a frame at byte \(cut); kept up to its last whole frame, at 1.998 s"
            ])
        let info = try lockstep(["imu", "info", store])
        XCTAssertTrue(info.stdout.contains("trace 3: log 4 of 4 from 17.000 s, INAV 6.1.1 (2024-01-01 ab12cd3) MATEKF405"), info.stdout)
        XCTAssertTrue(info.stdout.contains("  losses    truncated at byte \(cut)\n"), info.stdout)
    }

    func testFilesThatCannotBeReadAreRefusedInOneLine() throws {
        let df = scratch.appendingPathComponent("00000001.BIN").path
        try Data([0xA3, 0x95, 0x80, 0x80, 0x59] + [UInt8](repeating: 0, count: 100)).write(to: URL(fileURLWithPath: df))
        let insv = scratch.appendingPathComponent("VID_1.insv").path
        try Data([0, 0, 0, 0x18] + Array("ftypisom".utf8) + [UInt8](repeating: 1, count: 64) + Array("8db42d694ccc418790edff439fe026bf".utf8)).write(to: URL(fileURLWithPath: insv))
        let bad = scratch.appendingPathComponent("LOG00001.BFL").path
        try Data("H Product:Blackbox flight data recorder by Nicholas Sherlock\nH Data version:2\n".utf8 + [0x49, 0x01]).write(to: URL(fileURLWithPath: bad))
        let store = scratch.appendingPathComponent("s.sqlite").path
        for (file, message) in [
            (df, "\(df): an ArduPilot DataFlash log, but it defines no IMU message (no FMT for IMU with TimeUS, GyrX, GyrY, GyrZ)"),
            (insv, "\(insv): an Insta360 file: its gyro is in Insta360's own trailer records, which Lockstep does not read; export the gyro with Gyroflow as .gcsv and use that"),
            (bad, "\(bad): a blackbox log, but its header defines no I frame fields")
        ] {
            for args in [["imu", "info", file], ["imu", "import", file, "-o", store], ["imu", "export", file, "-o", store + ".csv"]] {
                let r = try lockstep(args)
                XCTAssertEqual(r.status, 1, "\(args)")
                XCTAssertEqual(r.stderr, "Error: \(message)\n", "\(args)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: store))
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + ".csv"))
    }

    func testCalibratePicksTheFlightOfAClipRenderedFromARealLog() throws {
        let dir = try sharedClip()
        let bbl = scratch.appendingPathComponent("three.bbl").path
        let g = try Processes.run(
            "python3",
            [
                Self.script("make-blackbox-log"), bbl, bbl + ".json", "--flight", "4", "--flight", "9:\(dir)/real.csv@2",
                "--flight", "4", "--profiles", "AC"
            ], timeout: 300)
        XCTAssertEqual(g.status, 0, g.stderr)
        // A 3 s clip is one window, which calibrate alone does not stand behind (confidence
        // floor, issue 22): --force writes it; the choice of flight is what is checked here.
        let r = try lockstep(["calibrate", "\(dir)/clip.mp4", "--imu", bbl, "--force", "-o", scratch.appendingPathComponent("p.json").path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.hasPrefix("trace 2 (log 2 of 3 from 2024-05-02 10:00:00, INAV 6.1.1 (2024-01-01 ab12cd3) MATEKF405) chosen from 3 traces by the clip's motion") ?? false, r.stdout)
        let into = try XCTUnwrap(lines.dropFirst().first.flatMap { Double($0.split(separator: " ")[3]) }, r.stdout)
        XCTAssertEqual(into, 7, accuracy: 0.02, r.stdout)
        let profile = try Data(contentsOf: scratch.appendingPathComponent("p.json"))
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: profile) as? [String: Any], "the chosen flight's profile is written")
    }

}
