import Foundation
import Motion
import TestSupport
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
        try assertUsageError(
            ["import", "trace.txt", "-o", store], "trace.txt: cannot tell the format (not a blackbox or DataFlash log, and not named .gcsv or .csv); add --format gcsv or --format csv.")
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
        text += "\(5999 * 5_000_000),0.1,0.2,0.3\n"  // line 6002 repeats line 6001's time
        let bad = scratch.appendingPathComponent("bad.csv").path
        try text.write(toFile: bad, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let r = try lockstep(["imu", "import", bad, "-o", store])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: \(bad):6002: timestamp 29995000000 ns repeats the one on line 6001\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before, "rolled back: the store is byte-identical")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-wal"))
        XCTAssertEqual(try TraceStore(path: store, mode: .readOnly).traces().map(\.id), [1], "the 6000 good rows were never committed")
    }

    func testInfoText() throws {
        let r = try lockstep(["imu", "info", Self.fixture("shake.gcsv")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            r.stdout,
            """
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
        XCTAssertEqual(r.stderr, "Error: \(notes): not a Lockstep trace store (not a SQLite database); nothing was changed\n")
        let none = try lockstep(["imu", "serve", scratch.appendingPathComponent("none.sqlite").path])
        XCTAssertEqual(none.stderr, "Error: \(scratch.appendingPathComponent("none.sqlite").path): no such file\n")
    }
}

/// Issue 9: `imu import` on hostile input, as one transaction, and stores written by an older
/// Lockstep that hold NaN/NULL/Inf. Each case runs the built binary: exit status, the exact line,
/// and the store's bytes (or absence) afterwards.
final class IMUImportHardeningTests: IIOTestCase {
    var store: String { scratch.appendingPathComponent("s.sqlite").path }

    /// The 200,000-row trace the interruption tests import, written once for the class.
    nonisolated(unsafe) static var big: String?
    override class func tearDown() {
        big = nil
        super.tearDown()
    }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = scratch.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
    func write(_ name: String, _ text: String) throws -> String { try write(name, Array(text.utf8)) }

    /// The scratch folder's names, sorted (so an extra -wal, -shm or temporary file shows).
    func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() }

    /// Imports `file` twice: into no store (no file may appear) and into an existing store (its
    /// bytes must not change); both must fail with exactly `message` and exit 1.
    /// Writes `content` to `name` and asserts its import is refused with `FILE:` + `message`.
    func assertRefused(writing name: String, _ content: String, _ message: String, fileID: StaticString = #filePath, line: UInt = #line) throws {
        let f = try write(name, content)
        try assertRefused(f, "\(f):\(message)", fileID: fileID, line: line)
    }

    func assertRefused(_ file: String, _ message: String, fileID: StaticString = #filePath, line: UInt = #line) throws {
        let before = try listing()
        let fresh = try lockstep(["imu", "import", file, "-o", store])
        XCTAssertEqual(fresh.status, 1, fresh.stderr, file: fileID, line: line)
        XCTAssertEqual(fresh.stderr, "Error: \(message)\n", file: fileID, line: line)
        XCTAssertEqual(fresh.stdout, "", file: fileID, line: line)
        XCTAssertEqual(try listing(), before, "no store file is left after a failed first import", file: fileID, line: line)

        try copyPanStore(to: store)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        let withStore = try listing()
        let again = try lockstep(["imu", "import", file, "-o", store])
        XCTAssertEqual(again.status, 1, again.stderr, file: fileID, line: line)
        XCTAssertEqual(again.stderr, "Error: \(message)\n", file: fileID, line: line)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), bytes, "the store is byte-identical", file: fileID, line: line)
        XCTAssertEqual(try listing(), withStore, "nothing left beside the store", file: fileID, line: line)
        try FileManager.default.removeItem(atPath: store)
    }

    func testAScaleThatOverflowsIsRefusedNotStoredAsNaN() throws {
        try assertRefused(writing: "a.gcsv", "GYROFLOW IMU LOG\nascale,1e308\nt,gx,gy,gz,ax,ay,az\n0,1,1,1,1,0,1\n5,1,1,1,1,1,1\n", "2: ascale 1e308 is out of range (not a finite number of m/s^2)")
    }

    func testAGyroScaleThatOverflowsIsRefusedNotStoredAsInf() throws {
        try assertRefused(writing: "g.gcsv", "GYROFLOW IMU LOG\ngscale,1e308\nt,gx,gy,gz\n0,0,0,0\n5,-3,0,0\n", "5: gx '-3' times gscale 1e308 is not a finite number")
    }

    func testHexadecimalIsNotANumber() throws {
        try assertRefused(writing: "h.csv", "t_ns,gx,gy,gz\n10,1,2,3\n20,0x10,2,3\n", "3: '0x10' is not a number")
    }

    func testANulInsideANumberIsAnError() throws {
        let f = try write("n.csv", Array("10,1,2,3\n20,0.5".utf8) + [0] + Array(" 9,2,3\n".utf8))
        try assertRefused(f, "\(f):2: '0.5\\0 9' is not a number")
    }

    func testHugeTimeScalesDoNotCrash() throws {
        for scale in ["9.2e9", "9.3e9", "1e19", "1e308"] {
            let f = try write("t.gcsv", "GYROFLOW IMU LOG\ntscale,\(scale)\nt,gx,gy,gz\n0,0,0,0\n1,0,0,0\n")
            try assertRefused(f, "\(f):2: tscale \(scale) is out of range (at most 2.3e9 seconds per tick)")
        }
        try assertRefused(writing: "u.gcsv", "GYROFLOW IMU LOG\ntscale,1\nt,gx,gy,gz\n0,0,0,0\n9.3e9,0,0,0\n", "5: timestamp 9.3e9 is out of range (beyond 2.3e9 s from 0)")
    }

    func testInfiniteValuesAreRefused() throws {
        try assertRefused(writing: "i.csv", "10,1,2,3\n20,1,1e400,3\n", "2: '1e400' is not a finite number")
    }

    func testLongBadLinesAreShortenedAndEscapesEscaped() throws {
        let hostile = "\u{1B}]0;owned\u{7}\u{1B}[2J"  // sets the terminal's title, clears the screen
        let junk = hostile + String(repeating: "A", count: 500_000)
        let f = try write("l.csv", "10,1,2,3\n20,\(junk),2,3\n")
        let shown = "\\u{1B}]0;owned\\u{7}\\u{1B}[2J" + String(repeating: "A", count: 80 - hostile.unicodeScalars.count) + "..."
        try assertRefused(f, "\(f):2: '\(shown)' is not a number")
        // A line with no end at all is not gathered into memory: refused at 1 MiB.
        let g = try write("m.csv", "10,1,2,3\n" + String(repeating: "9", count: 3 << 20))
        try assertRefused(g, "\(g):2: the line is longer than 1048576 bytes")
    }

    // MARK: interruption

    /// 200,000 rows: long enough in a debug build to be interrupted half-way. Written once for
    /// the class (outside the scratch folder: it is only read).
    func bigTrace() throws -> String {
        if let big = Self.big { return big }
        var text = "t_ns,gx,gy,gz\n"
        text.reserveCapacity(6_000_000)
        for i in 0..<200_000 { text += "\(i * 5_000_000),0.1,0.2,0.3\n" }
        let path = try madeForClass().appendingPathComponent("big.csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        Self.big = path
        return path
    }

    /// Starts `lockstep imu import`, waits until `started` says the import is under way, sends
    /// `sig`, and returns the exit status and stderr.
    func interrupt(_ file: String, with sig: Int32, when started: () -> Bool) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = ["imu", "import", file, "-o", store]
        let err = Pipe()
        p.standardError = err; p.standardOutput = FileHandle.nullDevice
        try p.run()
        addTeardownBlock { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let deadline = Date() + 60
        while !started() && p.isRunning && Date() < deadline { usleep(5_000) }
        XCTAssertTrue(Processes.waitUntilCatching(p.processIdentifier, sig), "imu import never caught signal \(sig)")
        XCTAssertTrue(p.isRunning, "the import was still running when interrupted")
        kill(p.processIdentifier, sig)
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text)
    }

    func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0 }

    func testSIGINTMidImportLeavesTheStoreByteIdentical() throws { try assertInterruptedImportLeavesTheStore(SIGINT, status: 130) }

    /// A closed terminal (SIGHUP) rolls the import back as Ctrl-C does.
    func testSIGHUPMidImportLeavesTheStoreByteIdentical() throws { try assertInterruptedImportLeavesTheStore(SIGHUP, status: 129) }

    func assertInterruptedImportLeavesTheStore(_ sig: Int32, status: Int32) throws {
        let big = try bigTrace()
        try copyPanStore(to: store)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        let before = try listing()
        // Samples have reached the store's file (the transaction spilled: a store rests in
        // rollback-journal mode, its old pages kept in the -journal) or a WAL: the import is half-way.
        let r = try interrupt(big, with: sig) { size(store) > bytes.count + 256 << 10 || size(store + "-wal") > 256 << 10 }
        XCTAssertEqual(r.status, status, r.stderr)
        XCTAssertEqual(r.stderr, "Error: interrupted: nothing was imported\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), bytes, "the store is byte-identical")
        XCTAssertEqual(try listing(), before, "no -wal, -shm or other file left")
        XCTAssertEqual(try TraceStore(path: store, mode: .readOnly).traces().map(\.id), [1])
    }

    func testSIGTERMMidFirstImportLeavesNoFile() throws {
        let big = try bigTrace()
        let before = try listing()
        let r = try interrupt(big, with: SIGTERM) {
            // The temporary store (`OutputPath`: .s.sqlite.lockstep-PID-N.tmp) holds samples.
            (try? listing().contains {
                $0.hasPrefix(".s.sqlite.lockstep-") && $0.contains(".tmp")
                    && size(scratch.appendingPathComponent($0).path) > 256 << 10
            }) ?? false
        }
        XCTAssertEqual(r.status, 143, r.stderr)
        XCTAssertEqual(r.stderr, "Error: interrupted: nothing was imported\n")
        XCTAssertEqual(try listing(), before, "no store and no temporary file")
    }

    func testAnEmptyStoreFileStaysEmptyAfterAFailedImport() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: store, contents: nil))
        // The bad line comes after the first batch (4096 rows): the store was being written.
        let bad = try write("b.csv", (1...5000).map { "\($0 * 1000),1,2,3\n" }.joined() + "9999999,1,nan,3\n")
        let r = try lockstep(["imu", "import", bad, "-o", store])
        XCTAssertEqual(r.stderr, "Error: \(bad):5001: 'nan' is not a number\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)).count, 0)
        XCTAssertEqual(try listing(), ["b.csv", "s.sqlite"])
        XCTAssertEqual(try lockstep(["imu", "import", Self.fixture("pan.csv"), "-o", store]).stdout, "1\n")
        XCTAssertEqual(try TraceStore(path: store, mode: .readOnly).sampleCount(1), 800)
    }

    func testAStaleTemporaryStoreOfADeadImportIsRemoved() throws {
        // A run killed with SIGKILL leaves its temporary store; no process has pid 2^22 + 1 (above pid_max).
        let stale = scratch.appendingPathComponent(".s.sqlite.lockstep-4194305-7.tmp").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: stale))
        let r = try lockstep(["imu", "import", Self.fixture("pan.csv"), "-o", store])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try listing(), ["s.sqlite"])
    }

    // MARK: stores written by an older Lockstep

    /// A store with two good traces, then damaged as the old `imu import` damaged them: trace 1
    /// gets a NULL acceleration component (NaN stored as NULL), trace 2 an infinite rate.
    func damagedStore() throws {
        let a = try write("a.csv", "t_ns,gx,gy,gz,ax,ay,az\n1000,1,2,3,0,0,9.8\n2000,1,2,3,0,0,9.8\n3000,1,2,3,0,0,9.8\n")
        let b = try write("b.csv", "t_ns,gx,gy,gz\n1000,1,2,3\n2000,1,2,3\n3000,1,2,3\n")
        XCTAssertEqual(try lockstep(["imu", "import", a, "-o", store]).status, 0)
        XCTAssertEqual(try lockstep(["imu", "import", b, "-o", store]).status, 0)
        let sql = "UPDATE sample SET ay = NULL WHERE trace_id = 1 AND t_ns = 2000; UPDATE sample SET gx = 9e999 WHERE trace_id = 2 AND t_ns = 3000;"
        let r = try Self.run(["/usr/bin/sqlite3", store, sql])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    func testDamagedStoresGiveOneLineNotACrash() throws {
        try damagedStore()
        let one = "Error: \(store): trace 1 holds a value that is not a finite number at 2000 ns (written by an older Lockstep); re-import it from its file\n"
        let two = "Error: \(store): trace 2 holds a value that is not a finite number at 3000 ns (written by an older Lockstep); re-import it from its file\n"
        let video = try write("v.mp4", "not looked at: the trace is read first")
        let runs: [([String], String)] = [
            (["imu", "info", store], one),
            (["imu", "info", store, "--trace", "2", "--json"], two),
            (["imu", "export", store, "--trace", "1", "-o", scratch.appendingPathComponent("x.csv").path], one),
            (["imu", "plot", store, "--trace", "2", "-o", scratch.appendingPathComponent("x.svg").path], two),
            (["imu", "serve", store, "--trace", "2", "--port", "0"], two),
            (["snake", video, "--imu", store, "--trace", "1", "-o", scratch.appendingPathComponent("x.mp4").path], one),
            (["calibrate", video, "--imu", store, "--trace", "2", "-o", scratch.appendingPathComponent("x.json").path], two)
        ]
        for (args, message) in runs {
            let r = try lockstep(args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr, message, "\(args)")
        }
        let left = try listing()
        XCTAssertFalse(left.contains { $0.hasPrefix("x.") || $0.contains(".lockstep-") }, "no output left: \(left)")
    }
}
