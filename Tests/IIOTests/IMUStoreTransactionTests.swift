import Foundation
import Glibc
import TestSupport
import TraceStore
import XCTest

/// The trace stores against other processes (issue 26): an import either stores its trace and
/// says so, or stores nothing; a busy store is waited for (`--busy-timeout`) or refused before
/// any write; a database that is not a Lockstep store is refused untouched; read-only commands
/// open read-only and leave no files; values a store holds are read by their type.
final class IMUStoreTransactionTests: IIOTestCase {
    var store: String { scratch.appendingPathComponent("s.sqlite").path }
    func write(_ name: String, _ text: String) throws -> String { try file(name, text) }
    func bytes(_ p: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: p)) }

    /// A Python process holding the store: `sql` run, then held `seconds`; returns once it holds it.
    func hold(_ path: String, _ sql: String, seconds: Double) throws -> BackgroundProcess {
        let script = """
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
            for s in sys.argv[2].split(";"):
                if s.strip(): list(c.execute(s))
            sys.stderr.write("holding\\n"); sys.stderr.flush()
            time.sleep(float(sys.argv[3]))
            c.execute("COMMIT") if c.in_transaction else None
            """
        let p = try BackgroundProcess("python3", ["-c", script, path, sql, String(seconds)])
        addTeardownBlock { p.end() }
        XCTAssertEqual(p.firstLine, "holding\n")
        return p
    }

    /// The store holding pan.csv as trace 1 (a copy of the class's: `copyPanStore`).
    func importPan() throws { try copyPanStore(to: store) }

    // MARK: finding 2

    /// Another process reads the store (a read transaction held 7 s, past the old 5 s wait): the
    /// import stores its trace, prints its id and exits 0. It said "closing failed (database is
    /// locked)", exit 1, after the trace was stored, and a retry stored it twice.
    func testAnImportThatStoredItsTraceSaysSoWhileAReaderHoldsTheStore() throws {
        try importPan()
        let reader = try hold(store, "BEGIN; SELECT count(*) FROM sample", seconds: 7)
        let r = try lockstep(["imu", "import", Self.fixture("pan.csv"), "-o", store])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "2\n")
        XCTAssertEqual(r.stderr, "")
        _ = reader.rest()
        XCTAssertEqual(try TraceStore(path: store, mode: .readOnly).traces().map(\.id), [1, 2])
    }

    /// A writer that holds the store longer than --busy-timeout: the import gives up before it
    /// writes anything, says so in one line, and the store is byte-identical.
    func testABusyStoreIsRefusedBeforeAnyWriteAfterTheTimeout() throws {
        try importPan()
        let before = try bytes(store), names = try leftovers()
        // Held until the import has returned (a fixed hold could end first on a loaded machine,
        // and the import would then succeed); a BEGIN IMMEDIATE that wrote nothing leaves the
        // file as it was when its holder is stopped.
        let writer = try hold(store, "BEGIN IMMEDIATE", seconds: 600)
        let r = try lockstep(["imu", "import", Self.fixture("shake.gcsv"), "-o", store, "--busy-timeout", "1"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: \(store): busy: another process kept the store locked for 1 s (database is locked); nothing was stored\n")
        _ = writer.signal(SIGTERM)
        XCTAssertEqual(try bytes(store), before)
        XCTAssertEqual(try leftovers(), names)
        let v = try lockstep(["imu", "import", Self.fixture("pan.csv"), "-o", store, "--busy-timeout=-1"])
        XCTAssertEqual(v.status, 64)
        XCTAssertTrue(v.stderr.hasPrefix("Error: --busy-timeout must be between 0 and 3600 seconds; got -1.0.\n"), v.stderr)
    }

    // MARK: finding 3

    /// Another program's SQLite database, in rollback and in WAL mode: refused, its bytes and
    /// its folder unchanged (the import added Lockstep's tables to it and exited 0).
    func testAnotherProgramsDatabaseIsRefusedUntouched() throws {
        for mode in ["delete", "wal"] {
            let db = scratch.appendingPathComponent("notes-\(mode).db").path
            let r0 = try Self.run(["/usr/bin/sqlite3", db, "PRAGMA journal_mode=\(mode); CREATE TABLE notes(a TEXT); INSERT INTO notes VALUES ('x');"])
            XCTAssertEqual(r0.status, 0, r0.stderr)
            let before = try bytes(db), names = try leftovers()
            let r = try lockstep(["imu", "import", Self.fixture("pan.csv"), "-o", db])
            XCTAssertEqual(r.status, 1, mode)
            XCTAssertEqual(r.stderr, "Error: \(db): not a Lockstep trace store: it is another program's SQLite database (tables notes); nothing was changed\n")
            XCTAssertEqual(try bytes(db), before, mode)
            XCTAssertEqual(try leftovers(), names, "\(mode): no -wal, -shm or journal made")
        }
        let text = try write("notes.txt", "not a database at all\n")
        let r = try lockstep(["imu", "import", Self.fixture("pan.csv"), "-o", text])
        XCTAssertEqual(r.stderr, "Error: \(text): not a Lockstep trace store (not a SQLite database); nothing was changed\n")
    }

    /// Read-only commands leave no -wal or -shm beside a store, and neither does a failed import
    /// into a store on a read-only mount.
    func testReadOnlyCommandsAndAFailedImportLeaveNoFiles() throws {
        try importPan()
        let names = try leftovers(), before = try bytes(store)
        XCTAssertEqual(try lockstep(["imu", "info", store]).status, 0)
        XCTAssertEqual(try lockstep(["imu", "info", store, "--json"]).status, 0)
        XCTAssertEqual(try leftovers(), names, "imu info")
        let out = scratch.appendingPathComponent("out.csv").path, svg = scratch.appendingPathComponent("p.svg").path
        XCTAssertEqual(try lockstep(["imu", "export", store, "-o", out]).status, 0)
        XCTAssertEqual(try lockstep(["imu", "plot", store, "-o", svg]).status, 0)
        XCTAssertEqual(try leftovers(), (names + ["out.csv", "p.svg"]).sorted(), "export and plot")
        XCTAssertEqual(try bytes(store), before)

        let disk = scratch.appendingPathComponent("ro").path
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let m = try Processes.run("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk])
        guard m.status == 0 else { throw XCTSkip("cannot mount a tmpfs here: \(m.stderr)") }
        defer { _ = try? Processes.run("umount", [disk]) }
        let ro = disk + "/s.sqlite"
        try FileManager.default.copyItem(atPath: store, toPath: ro)
        XCTAssertEqual(try Processes.run("mount", ["-o", "remount,ro", disk]).status, 0)
        let r = try lockstep(["imu", "import", Self.fixture("shake.gcsv"), "-o", ro])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: \(ro): cannot be written (Read-only file system); nothing was imported\n")
        XCTAssertEqual(try lockstep(["imu", "info", ro]).status, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: disk), ["s.sqlite"])
        // A new store in a read-only folder: the store's name, not a temporary's, and why.
        let fresh = disk + "/new.sqlite"
        let n = try lockstep(["imu", "import", Self.fixture("shake.gcsv"), "-o", fresh])
        XCTAssertEqual(n.status, 1)
        XCTAssertEqual(n.stderr, "Error: \(fresh): cannot be written: the folder \(disk) is not writable (Read-only file system).\n")
    }

    // MARK: finding 4

    /// Text or a blob where a number belongs (another program's writing) is an error naming the
    /// store, trace, column and time; it was read as 0.0. Text in a text column is a name.
    func testValuesOfTheWrongTypeAreReportedNotReadAsZero() throws {
        try importPan()
        let cases = [
            ("UPDATE sample SET gx = 'abc' WHERE t_ns = (SELECT min(t_ns) FROM sample)", "holds text 'abc' in gx at"),
            ("UPDATE sample SET gx = 0.5, az = x'00ff' WHERE t_ns = (SELECT min(t_ns) FROM sample)", "holds a blob of 2 bytes in az at")
        ]
        let first = try TraceStore(path: store, mode: .readOnly).samples(of: 1)[0].t
        for (sql, words) in cases {
            XCTAssertEqual(try Self.run(["/usr/bin/sqlite3", store, sql]).status, 0)
            let message = "Error: \(store): trace 1 \(words) \(first) ns, not a number; it cannot be read\n"
            for args in [["imu", "info", store], ["imu", "export", store, "-o", scratch.appendingPathComponent("x.csv").path]] {
                let r = try lockstep(args)
                XCTAssertEqual(r.status, 1, "\(args)")
                XCTAssertEqual(r.stderr, message, "\(args)")
            }
        }
        // (An INTEGER column converts '12' to 12: only text that is no number stays text.)
        XCTAssertEqual(try Self.run(["/usr/bin/sqlite3", store, "UPDATE sample SET az = 1; UPDATE sample SET t_ns = 'x12' WHERE t_ns = (SELECT min(t_ns) FROM sample)"]).status, 0)
        XCTAssertEqual(
            try lockstep(["imu", "info", store]).stderr,
            "Error: \(store): trace 1 holds a sample whose time is text 'x12', not a whole number of nanoseconds; it cannot be read\n")
        // Text where a number belongs in the trace's own row (its rate) reads as unknown.
        XCTAssertEqual(try Self.run(["/usr/bin/sqlite3", store, "UPDATE sample SET t_ns = 1 WHERE typeof(t_ns) = 'text'; UPDATE trace SET rate_hz = 'fast', has_accel = 'yes'"]).status, 0)
        let info = try lockstep(["imu", "info", store, "--json"])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertFalse(info.stdout.contains("declared_rate_hz"), info.stdout)
    }

    // MARK: finding 14

    /// Values near 1e308 never go into a store, and a trace that holds some (a file served
    /// directly, a store written by another program) is refused by `imu serve` with a sentence:
    /// it advertised scale="3.125e+303", which every libiio client rejected. The rule is every
    /// command's (`IMUReading.problem`): serve says what import says, naming the file.
    func testValuesNoSensorGivesAreRefusedAtImportAndServe() throws {
        let huge = try write("huge.csv", "t_ns,gx,gy,gz\n0,1e308,-1e308,1e308\n5000000,1,2,3\n")
        let r = try lockstep(["imu", "import", huge, "-o", store])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: \(huge): the sample at 0 ns holds gx = 1e+308, beyond +-1000000; not a motion sensor's reading; nothing was imported\n")
        XCTAssertEqual(try leftovers(), ["huge.csv"], "no store made")
        let s = try lockstep(["imu", "serve", huge, "--port", "0"])
        XCTAssertEqual(s.status, 1)
        XCTAssertEqual(s.stderr, "Error: \(huge): the sample at 0 ns holds gx = 1e+308, beyond +-1000000; not a motion sensor's reading\n")
        try importPan()
        XCTAssertEqual(try Self.run(["/usr/bin/sqlite3", store, "UPDATE sample SET gz = 2e300 WHERE t_ns = (SELECT max(t_ns) FROM sample)"]).status, 0)
        let t = try lockstep(["imu", "serve", store, "--port", "0"])
        XCTAssertEqual(t.status, 1)
        XCTAssertTrue(t.stderr.hasPrefix("Error: \(store): the sample at "), t.stderr)
        XCTAssertTrue(t.stderr.hasSuffix(" holds gz = 2e+300, beyond +-1000000; not a motion sensor's reading\n"), t.stderr)
    }
}
