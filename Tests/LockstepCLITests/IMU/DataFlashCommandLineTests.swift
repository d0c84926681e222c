import Foundation
import TestSupport
import XCTest

/// ArduPilot DataFlash logs through the CLI: written by scripts/fixtures/make-dataflash-log (an
/// independent Python writer of ArduPilot 4.x and 3.x IMU messages) and read back against
/// pymavlink's DFReader (the reader of MAVExplorer and mavlogdump) and the writer's truth.
final class DataFlashCommandLineTests: ScratchFolderTestCase {
    static func script(_ name: String) -> String { Repository.script(name) }

    /// pymavlink's IMU messages, per instance in order: [[TimeUS, GyrX, ..., AccZ]].
    static func pymavlink(_ path: String) throws -> [[[Double]]] {
        let code = """
            import json, sys
            from pymavlink import DFReader
            r = DFReader.DFReader_binary(sys.argv[1])
            out = {}
            while True:
                m = r.recv_match(type=["IMU", "IMU2", "IMU3"])
                if m is None:
                    break
                k = getattr(m, "I", {"IMU": 0, "IMU2": 1, "IMU3": 2}[m.get_type()])
                out.setdefault(k, []).append([m.TimeUS, m.GyrX, m.GyrY, m.GyrZ, m.AccX, m.AccY, m.AccZ])
            json.dump([out[k] for k in sorted(out)], sys.stdout)
            """
        let r = try Processes.run("python3", ["-c", code, path], timeout: 300)
        XCTAssertEqual(r.status, 0, r.stderr)
        // DFReader prints "bad header" lines for skipped bytes on stdout: the JSON is the last line.
        let last = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "[]"
        return try JSONDecoder().decode([[[Double]]].self, from: Data(last.utf8))
    }

    struct Truth: Decodable { var firmware: String; var instances: [[[Double]]]; var corrupt_bytes: Int; var corrupt_at: Int?; var truncated_at: Int? }

    func make(_ name: String, _ args: [String]) throws -> (path: String, truth: Truth) {
        let bin = scratch.appendingPathComponent(name).path
        let g = try Processes.run("python3", [Self.script("make-dataflash-log"), bin, bin + ".json"] + args, timeout: 300)
        XCTAssertEqual(g.status, 0, g.stderr)
        return (bin, try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: bin + ".json"))))
    }

    func exported(_ path: String, trace: Int) throws -> [[Double]] {
        let out = scratch.appendingPathComponent("t\(trace).csv").path
        let r = try Processes.lockstep(["imu", "export", path, "--trace", String(trace), "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",").map { Double($0)! } }
    }

    /// Every sample, exactly: the time in ns from TimeUS, the float32 values as they are.
    func assertSame(_ ours: [[Double]], _ theirs: [[Double]], _ what: String) {
        XCTAssertEqual(ours.count, theirs.count, what)
        for (o, t) in zip(ours, theirs) {
            guard o[0] == t[0] * 1000, Array(o[1...6]) == Array(t[1...6]) else { XCTFail("\(what) at \(t[0]) us: \(o) vs \(t)"); return }
        }
    }

    /// ArduPilot 4.x: one IMU type, two instances; 37 bytes of junk in the middle, the file cut
    /// inside its last message.
    func testArduPilot4AgainstPymavlinkAndTheTruth() throws {
        let (bin, truth) = try make("00000042.BIN", ["--seconds", "3", "--instances", "2", "--corrupt", "--truncate"])
        let theirs = try Self.pymavlink(bin)
        XCTAssertEqual(theirs.count, 2)
        for k in 0..<2 {
            let ours = try exported(bin, trace: k + 1)
            assertSame(ours, theirs[k], "IMU \(k) against pymavlink")
            assertSame(ours, truth.instances[k], "IMU \(k) against the truth")
        }
        let info = try Processes.lockstep(["imu", "info", bin])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(
            info.stdout.hasPrefix(
                "trace 1: IMU 0 of 2, ArduCopter V4.5.7 (2a3dc4b7), from \(bin)\n  format    ArduPilot DataFlash, IMU 0 of 2; firmware ArduCopter V4.5.7 (2a3dc4b7)\n  samples   1200 (gyro and accelerometer)\n"
            ), info.stdout)
        XCTAssertTrue(info.stdout.contains("trace 2: IMU 1 of 2, ArduCopter V4.5.7 (2a3dc4b7), from \(bin)\n"), info.stdout)
        let store = scratch.appendingPathComponent("s.sqlite").path
        let r = try Processes.lockstep(["imu", "import", bin, "-o", store])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "1\n2\n")
        XCTAssertEqual(
            r.stderr,
            """
            warning: \(bin): \(truth.corrupt_bytes) bytes that start no message skipped in 1 run, the first at byte \(truth.corrupt_at!)
            warning: \(bin): the log is truncated: it stops inside a message at byte \(truth.truncated_at!); kept what came before it

            """)
    }

    /// ArduPilot 3.x: "IMU", "IMU2" and "IMU3" types, the instance in the name.
    func testArduPilot3AgainstPymavlink() throws {
        let (bin, truth) = try make("3x.bin", ["--style", "3", "--seconds", "2", "--instances", "3", "--seed", "5"])
        let theirs = try Self.pymavlink(bin)
        XCTAssertEqual(theirs.count, 3)
        for k in 0..<3 {
            let ours = try exported(bin, trace: k + 1)
            assertSame(ours, theirs[k], "IMU \(k) against pymavlink")
            assertSame(ours, truth.instances[k], "IMU \(k) against the truth")
        }
        let none = try Processes.lockstep(["imu", "export", bin, "--trace", "4", "-o", scratch.appendingPathComponent("x.csv").path])
        XCTAssertEqual(none.status, 1)
        XCTAssertEqual(none.stderr, "Error: \(bin) has no trace 4 (its IMUs with samples: 1, 2, 3; trace N is IMU N-1)\n")
    }

    /// calibrate --imu LOG.bin: a 3 s, 160x120 clip rendered from LOG00037's real rotation
    /// (seconds 5-8), whose gyro a one-IMU DataFlash log carries from 1 s after the writer's
    /// boot time (2.75 s of TimeUS), so video time = TimeUS - (2.75 + 1 + 5) s.
    func testCalibrateFindsARealRotationInADataFlashLog() throws {
        let dir = scratch.appendingPathComponent("clip").path
        let c = try Processes.run(
            "python3",
            [
                Self.script("make-blackbox-clip"), "--log", Repository.shared("blackbox/LOG00037.BFL"),
                "--start", "5", "--duration", "3", "--size", "160x120", "--out", dir
            ], timeout: 300)
        XCTAssertEqual(c.status, 0, c.stderr)
        let (bin, _) = try make("real.bin", ["--seconds", "10", "--instances", "1", "--gyro", "\(dir)/real.csv@1"])
        let profile = scratch.appendingPathComponent("p.json").path
        let r = try Processes.lockstep(["calibrate", "\(dir)/clip.mp4", "--imu", bin, "-o", profile])
        XCTAssertEqual(r.status, 0, r.stderr)
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: profile))) as? [String: Any]
        XCTAssertEqual(written?["timeOffsetMs"] as? Double ?? 0, -8750, accuracy: 2, r.stdout)
    }
}
