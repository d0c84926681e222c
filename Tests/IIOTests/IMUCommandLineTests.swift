import Foundation
import Motion
import TraceStore
import XCTest

/// `lockstep imu ...` run as a person would: output, exit status and the exact error text.
final class IMUCommandLineTests: IIOTestCase {
    var store: String { scratch.appendingPathComponent("s.sqlite").path }

    func assertUsageError(_ args: [String], _ message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try lockstep(["imu"] + args)
        XCTAssertEqual(r.status, 64, r.stderr, file: file, line: line)
        XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), "Error: \(message)", file: file, line: line)
    }

    func testValidationMessages() throws {
        let csv = Self.fixture("pan.csv")
        try assertUsageError(["import", "trace.txt", "-o", store], "trace.txt: cannot tell the format from the extension; add --format gcsv or --format csv.")
        try assertUsageError(["import", csv, "-o", "out.csv"], "out.csv: the store is a SQLite file, not a .gcsv or .csv; name it e.g. traces.sqlite.")
        try assertUsageError(["import", csv, "-o", store, "--format", "json"], "The value 'json' is invalid for '--format <format>'. Please provide one of 'gcsv' and 'csv'.")
        try assertUsageError(["export", store, "-o", "x.txt"], "x.txt: the output must end in .gcsv or .csv.")
        try assertUsageError(["export", store, "--from", "2", "--to", "1", "-o", "x.csv"], "--to must be after --from.")
        try assertUsageError(["export", store, "--from=-1", "-o", "x.csv"], "--from must be zero or more seconds.")
        try assertUsageError(["plot", csv, "-o", "x.png"], "x.png: the output must end in .svg.")
        try assertUsageError(["record", "--uri", "ip:127.0.0.1", "--rate", "0", "-o", store], "--rate must be a positive number of samples per second.")
        try assertUsageError(["record", "--uri", "ip:127.0.0.1", "--duration=-2", "-o", store], "--duration must be a positive number of seconds.")
        try assertUsageError(["serve", store, "--speed=-1"], "--speed must be 0 (as fast as possible) or a positive factor; got -1.0.")
        try assertUsageError(["serve", store, "--port", "70000"], "--port must be between 0 and 65535; got 70000.")
    }

    func testImportPrintsIdsAndWarnsAboutGaps() throws {
        let a = try lockstep(["imu", "import", Self.fixture("pan.csv"), "-o", store])
        XCTAssertEqual(a.status, 0, a.stderr); XCTAssertEqual(a.stdout, "1\n"); XCTAssertEqual(a.stderr, "")
        let b = try lockstep(["imu", "import", Self.fixture("shake.gcsv"), "-o", store])
        XCTAssertEqual(b.stdout, "2\n")
        XCTAssertEqual(b.stderr, "warning: \(Self.fixture("shake.gcsv")): 1 gap (steps over twice the median 0.005 s); the first at 1.495 s, 0.105 s long\n")
        let traces = try TraceStore(path: store, mode: .readOnly).traces()
        XCTAssertEqual(traces.map(\.info.deviceName), ["pan", "lockstep_fixture"])
        XCTAssertEqual(try TraceStore(path: store, mode: .readOnly).sampleCount(2), 580)
    }

    func testAFailedImportNamesTheLineAndLeavesNoHalfTrace() throws {
        _ = try lockstep(["imu", "import", Self.fixture("pan.csv"), "-o", store])
        var text = "t_ns,gx,gy,gz\n"
        for i in 0..<6000 { text += "\(i * 5_000_000),0.1,0.2,0.3\n" }
        text += "\(5999 * 5_000_000),0.1,0.2,0.3\n"      // line 6002 repeats line 6001's time
        let bad = scratch.appendingPathComponent("bad.csv").path
        try text.write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try lockstep(["imu", "import", bad, "-o", store])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: \(bad):6002: timestamp 29995000000 ns repeats the one on line 6001\n")
        XCTAssertEqual(try TraceStore(path: store, mode: .readOnly).traces().map(\.id), [1], "the 6000 good rows were removed again")
    }

    func testInfoText() throws {
        let r = try lockstep(["imu", "info", Self.fixture("shake.gcsv")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, """
            trace 1: lockstep_fixture, from \(Self.fixture("shake.gcsv"))
              samples   580 (gyro and accelerometer)
              duration  2.995 s
              rate      193.322 Hz measured
              jitter    0.0 us (standard deviation of the steps)
              gaps      1 (steps over twice the median 0.005 s; longest 0.105 s)
                        at 1.495 s: 0.105 s
              clock     unknown

            """)
    }

    func testInfoJSONForAStore() throws {
        _ = try lockstep(["imu", "import", Self.fixture("still.gcsv"), "-o", store])
        _ = try lockstep(["imu", "import", Self.fixture("pan.csv"), "-o", store])
        let r = try lockstep(["imu", "info", store, "--trace", "2", "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [[String: Any]]
        XCTAssertEqual(json.count, 1)
        XCTAssertEqual(json[0]["id"] as? Int, 2)
        XCTAssertEqual(json[0]["samples"] as? Int, 800)
        XCTAssertEqual(json[0]["rate_hz"] as! Double, 200, accuracy: 1e-9)
        XCTAssertEqual(json[0]["gap_count"] as? Int, 0)
        XCTAssertEqual(json[0]["median_interval_ns"] as? Int, 5_000_000)
        let missing = try lockstep(["imu", "info", store, "--trace", "7"])
        XCTAssertEqual(missing.stderr, "Error: \(store): no trace 7\n")
    }

    func testExportAWindowAndImportItBack() throws {
        _ = try lockstep(["imu", "import", Self.fixture("still.gcsv"), "-o", store])
        _ = try lockstep(["imu", "import", Self.fixture("shake.gcsv"), "-o", store])
        let out = scratch.appendingPathComponent("w.gcsv").path
        let ambiguous = try lockstep(["imu", "export", store, "-o", out])
        XCTAssertEqual(ambiguous.stderr, "Error: \(store) holds 2 traces (1, 2): pick one with --trace\n")
        let r = try lockstep(["imu", "export", store, "--trace", "2", "--from", "1", "--to", "2", "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "wrote 180 samples of trace 2 to \(out)\n", "1 s at 200 Hz less the 20 missing in the gap")
        let back = try lockstep(["imu", "import", out, "-o", store])
        XCTAssertEqual(back.stdout, "3\n")
        let s = try TraceStore(path: store, mode: .readOnly)
        let window = try s.samples(of: 2, from: 1_000_000_000, to: 2_000_000_000)
        let reimported = try s.samples(of: 3)
        XCTAssertEqual(reimported.map(\.t), window.map(\.t))
        for (a, b) in zip(reimported, window) {
            XCTAssertTrue(a.gyro == b.gyro)
            XCTAssertEqual(a.accel!.y, b.accel!.y, accuracy: 1e-12)
        }
        XCTAssertEqual(try s.trace(3).info.orientation, "xzY")
        let csv = scratch.appendingPathComponent("all.csv").path
        XCTAssertEqual(try lockstep(["imu", "export", store, "--trace", "1", "-o", csv]).status, 0)
        XCTAssertEqual(try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").count, 601)
    }

    func testPlotWritesAnSVG() throws {
        let out = scratch.appendingPathComponent("p.svg").path
        let r = try lockstep(["imu", "plot", Self.fixture("shake.gcsv"), "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        XCTAssertTrue(svg.contains("lockstep_fixture: 580 samples, 2.995 s, 193.3 Hz, 1 gap"))
        XCTAssertTrue(svg.contains("class=\"gap\""))
    }

    func testNotAStore() throws {
        let notes = scratch.appendingPathComponent("notes.txt").path
        try String(repeating: "hello\n", count: 200).write(toFile: notes, atomically: true, encoding: .utf8)
        let r = try lockstep(["imu", "info", notes])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: \(notes): not a Lockstep trace store (file is not a database)\n")
        let none = try lockstep(["imu", "serve", scratch.appendingPathComponent("none.sqlite").path])
        XCTAssertEqual(none.stderr, "Error: \(scratch.appendingPathComponent("none.sqlite").path): no such file\n")
    }
}
