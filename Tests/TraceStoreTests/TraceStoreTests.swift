import Foundation
import GRDB
import Motion
import TestSupport
import TraceStore
import XCTest

final class TraceStoreTests: ScratchFolderTestCase {
    var path: String { scratch.appendingPathComponent("t.sqlite").path }

    func samples(_ n: Int, from t0: Int64 = 0, step: Int64 = 5_000_000, accel: Bool = true) -> [IMUReading] {
        (0..<n).map { i -> IMUReading in
            let x = Double(i)
            let t: Int64 = t0 + Int64(i) * step
            let a: SIMD3<Double>? = accel ? SIMD3(0.5, -9.8, x) : nil
            return IMUReading(t: t, gyro: SIMD3(x * 0.001, -x, 1e-9 * x), accel: a)
        }
    }

    /// A store at rest is in rollback-journal mode (readers leave no -wal/-shm); a recording
    /// switches it to WAL while it is open (readers never block it) and back when it closes.
    func testSchemaIsMigratedAndTheStoreIsWALOnlyWhileRecording() throws {
        let store = try TraceStore(path: path)
        XCTAssertEqual(try store.appliedMigrations(), ["v1: traces, channels and samples"])
        XCTAssertEqual(try store.journalMode(), "delete")
        try store.close()
        let recording = try TraceStore(path: path, mode: .record)
        XCTAssertEqual(try recording.journalMode(), "wal")
        try recording.append(samples(3), to: try recording.createTrace(TraceInfo(deviceName: "a", sourceURI: "x"), hasAccel: true))
        try recording.close()
        XCTAssertEqual(try TraceStore(path: path, mode: .readOnly).journalMode(), "delete")
        XCTAssertEqual(try listing(), ["t.sqlite"], "no -wal or -shm left")
        // The (trace_id, t_ns) index is the table's own primary key (WITHOUT ROWID).
        let db = try DatabaseQueue(path: path)
        let pk = try db.read { try $0.primaryKey("sample") }
        XCTAssertEqual(pk.columns, ["trace_id", "t_ns"])
        XCTAssertNil(pk.rowIDColumn)
    }

    /// A camera's stated axes go in and come out typed (`MotionTrace.axisMapping`); on disk they
    /// stay the v1 metadata key, so a store written before reads the same, and only a trace on
    /// the video's clock states them.
    func testTheStatedAxesAreTypedThroughTheStore() throws {
        let store = try TraceStore(path: path)
        let camera = TraceInfo(deviceName: "HERO5 Black", sourceURI: "karma.mp4", clock: "video", metadata: ["source": "GoPro GPMF"])
        let id = try store.createTrace(MotionTrace(info: camera, hasAccel: true, axisMapping: .orientation("yxz")))
        let read = try store.trace(id)
        XCTAssertEqual(read, MotionTrace(id: id, info: camera, hasAccel: true, axisMapping: .orientation("yxz")))
        XCTAssertNil(read.info.metadata["axisMapping"], "typed, not text in the metadata")
        let column = try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "SELECT metadata FROM trace WHERE id = ?", arguments: [id]) }
        XCTAssertEqual(column, #"{"axisMapping":"yxz","source":"GoPro GPMF"}"#)
        // A store an older Lockstep wrote; an IMU's own clock (a gcsv line, kept as the file's
        // word); a mapping that is not one.
        let db = try DatabaseQueue(path: path)
        try db.write { db in
            for (clock, text) in [("video", "yxz"), ("monotonic", "yxz"), ("video", "yyz")] {
                try db.execute(
                    sql: "INSERT INTO trace (device, source_uri, clock, has_accel, metadata) VALUES ('d', 's', ?, 0, ?)",
                    arguments: [clock, #"{"axisMapping":"\#(text)"}"#])
            }
        }
        try db.close()
        let all = try store.traces()
        XCTAssertEqual(all.map(\.axisMapping), [.orientation("yxz"), .orientation("yxz"), nil, nil])
        XCTAssertEqual(all.map { $0.info.metadata["axisMapping"] }, [nil, nil, "yxz", "yyz"])
    }

    func testTraceMetadataRoundTrip() throws {
        let store = try TraceStore(path: path)
        let info = TraceInfo(
            deviceName: "bmi160", sourceURI: "ip:127.0.0.1:30431", clock: "monotonic", rateHz: 200,
            channelScales: ["anglvel_x": 0.001065264, "accel_x": 0.0023942], orientation: "xzY",
            metadata: ["note": "a, b", "id": "cam"])
        let id = try store.createTrace(info, hasAccel: true)
        let id2 = try store.createTrace(TraceInfo(deviceName: "other", sourceURI: "f.csv"), hasAccel: false)
        XCTAssertEqual(try store.trace(id), MotionTrace(id: id, info: info, hasAccel: true))
        XCTAssertEqual(try store.traces().map(\.id), [id, id2])
        XCTAssertNotEqual(id, id2)
        XCTAssertThrowsError(try store.trace(99)) { XCTAssertEqual("\($0)", "\(self.path): no trace 99") }
    }

    func testAppendAndReadAWindowInOrder() throws {
        let store = try TraceStore(path: path)
        let a = try store.createTrace(TraceInfo(deviceName: "a", sourceURI: "x"), hasAccel: true)
        let b = try store.createTrace(TraceInfo(deviceName: "b", sourceURI: "y"), hasAccel: false)
        let s = samples(1000, from: -1_000_000_000)
        try store.append(Array(s[0..<600]), to: a)
        try store.append(samples(10, accel: false), to: b)
        try store.append(Array(s[600...]), to: a)
        XCTAssertEqual(try store.sampleCount(a), 1000); XCTAssertEqual(try store.sampleCount(b), 10)
        let all = try store.samples(of: a)
        XCTAssertEqual(all.map(\.t), s.map(\.t))
        XCTAssertTrue(zip(all, s).allSatisfy { $0.gyro == $1.gyro && $0.accel! == $1.accel! })
        XCTAssertNil(try store.samples(of: b)[0].accel)
        // [0 s, 1 s): samples 200..<400
        let window = try store.samples(of: a, from: 0, to: 1_000_000_000)
        XCTAssertEqual(window.map(\.t), Array(s[200..<400]).map(\.t))
        var batches: [Int] = []
        try store.forEachBatch(of: a, batchSize: 300) { batches.append($0.count) }
        XCTAssertEqual(batches, [300, 300, 300, 100])
    }

    /// A row at Int64.max (a crafted store: Lockstep never writes one) is reported like any
    /// other time out of range, not skipped: `imu info` said 799 of 800 samples and `export`
    /// wrote 799 with exit 0 (the read's open end was `t_ns < Int64.max`).
    func testARowAtInt64MaxIsReportedNotSkipped() throws {
        let store = try TraceStore(path: path)
        let a = try store.createTrace(TraceInfo(deviceName: "a", sourceURI: "x"), hasAccel: false)
        try store.append([IMUReading(t: 0, gyro: SIMD3(1, 2, 3))], to: a)
        try store.close()
        let r = try Processes.run("/usr/bin/sqlite3", [path, "INSERT INTO sample (trace_id, t_ns, gx, gy, gz) VALUES (\(a), 9223372036854775807, 1, 2, 3)"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertThrowsError(try TraceStore(path: path, mode: .readOnly).samples(of: a)) {
            XCTAssertEqual("\($0)", "\(path): trace \(a) holds a sample with a timestamp out of range; it cannot be read")
        }
    }

    func testARepeatedTimestampRejectsTheWholeBatch() throws {
        let store = try TraceStore(path: path)
        let id = try store.createTrace(TraceInfo(deviceName: "a", sourceURI: "x"), hasAccel: true)
        try store.append(samples(5), to: id)
        XCTAssertThrowsError(try store.append(samples(3, from: 100_000_000_000) + samples(1, from: 10_000_000), to: id)) {
            XCTAssertEqual("\($0)", "\(self.path): trace \(id) already has a sample at 10000000 ns")
        }
        XCTAssertEqual(try store.sampleCount(id), 5, "the failed batch left nothing behind")
        XCTAssertThrowsError(try store.append(samples(1), to: 42)) { XCTAssertEqual("\($0)", "\(self.path): no trace 42") }
    }

    func testDeleteTraceRemovesItsSamplesOnly() throws {
        let store = try TraceStore(path: path)
        let a = try store.createTrace(TraceInfo(deviceName: "a", sourceURI: "x"), hasAccel: true)
        let b = try store.createTrace(TraceInfo(deviceName: "b", sourceURI: "x"), hasAccel: true)
        try store.append(samples(5), to: a); try store.append(samples(7), to: b)
        try store.deleteTrace(a)
        XCTAssertEqual(try store.traces().map(\.id), [b])
        XCTAssertEqual(try store.sampleCount(a), 0); XCTAssertEqual(try store.sampleCount(b), 7)
    }

    func testReopenAfterCloseKeepsEverything() throws {
        do {
            let store = try TraceStore(path: path)
            let id = try store.createTrace(TraceInfo(deviceName: "a", sourceURI: "x"), hasAccel: true)
            try store.append(samples(50), to: id)
            try store.close()
        }
        let again = try TraceStore(path: path, mode: .readOnly)
        XCTAssertEqual(try again.sampleCount(1), 50)
        XCTAssertEqual(try again.appliedMigrations().count, 1)
    }

    func testOpeningErrorsSayWhatIsWrong() throws {
        let missing = scratch.appendingPathComponent("none.sqlite").path
        XCTAssertThrowsError(try TraceStore(path: missing, mode: .readOnly)) { XCTAssertEqual("\($0)", "\(missing): no such file") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing), "reading must not create a store")
        let text = scratch.appendingPathComponent("notes.sqlite").path
        try String(repeating: "not a database\n", count: 100).write(toFile: text, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try TraceStore(path: text, mode: .readOnly)) {
            XCTAssertEqual("\($0)", "\(text): not a Lockstep trace store (not a SQLite database); nothing was changed")
        }
        let other = scratch.appendingPathComponent("other.sqlite").path
        try DatabaseQueue(path: other).write { try $0.execute(sql: "CREATE TABLE x(a)") }
        XCTAssertThrowsError(try TraceStore(path: other, mode: .readOnly)) {
            XCTAssertEqual("\($0)", "\(other): not a Lockstep trace store: it is another program's SQLite database (tables x); nothing was changed")
        }
    }

    func testAStoreFromANewerLockstepIsRefused() throws {
        _ = try TraceStore(path: path)
        try DatabaseQueue(path: path).write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v9: from the future')") }
        XCTAssertThrowsError(try TraceStore(path: path)) {
            XCTAssertEqual("\($0)", "\(self.path): made by a newer Lockstep (unknown schema migrations)")
        }
    }

    // MARK: issue 9

    func bytes(_ p: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: p)) }
    func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() }

    /// Issue 26: a store left in WAL mode (a killed recorder) and another program's WAL database
    /// are read, or refused, leaving nothing beside them: a read-only connection would make
    /// -wal and -shm that it cannot remove.
    func testReadingADatabaseLeftInWALModeLeavesNothingBesideIt() throws {
        do {
            let store = try TraceStore(path: path)
            try store.append(samples(40), to: try store.createTrace(TraceInfo(deviceName: "a", sourceURI: "x"), hasAccel: true))
            try store.close()
        }
        // WAL is a persistent mode: the last connection checkpoints and removes -wal, the header stays WAL.
        let wal = try DatabaseQueue(path: path)
        _ = try wal.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode = WAL") }
        try wal.close()
        let before = try bytes(path)
        XCTAssertEqual(try listing(), ["t.sqlite"])
        let reader = try TraceStore(path: path, mode: .readOnly)
        XCTAssertEqual(try reader.samples(of: 1).count, 40)
        try reader.close()
        XCTAssertEqual(try listing(), ["t.sqlite"], "no -wal or -shm left")
        XCTAssertEqual(try bytes(path), before)

        let foreign = scratch.appendingPathComponent("foreign.sqlite").path
        let other = try DatabaseQueue(path: foreign)
        _ = try other.writeWithoutTransaction { db -> String? in
            try db.execute(sql: "CREATE TABLE notes(a); INSERT INTO notes VALUES (1)")
            return try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
        }
        try other.close()
        let foreignBefore = try bytes(foreign)
        XCTAssertThrowsError(try TraceStore(path: foreign, mode: .readOnly)) {
            XCTAssertEqual("\($0)", "\(foreign): not a Lockstep trace store: it is another program's SQLite database (tables notes); nothing was changed")
        }
        XCTAssertEqual(try listing(), ["foreign.sqlite", "t.sqlite"], "no -wal or -shm left")
        XCTAssertEqual(try bytes(foreign), foreignBefore)
    }

    func testAFailedImportTransactionLeavesTheFileByteIdentical() throws {
        do {
            let store = try TraceStore(path: path)
            let id = try store.createTrace(TraceInfo(deviceName: "a", sourceURI: "x"), hasAccel: true)
            try store.append(samples(50), to: id)
            try store.close()
        }
        let before = try bytes(path), names = try listing()
        struct Stop: Error {}
        let store = try TraceStore(path: path)
        // 40,000 samples: more than SQLite's page cache, so the transaction spills into the WAL first.
        XCTAssertThrowsError(
            try store.importTrace(TraceInfo(deviceName: "b", sourceURI: "y"), hasAccel: true) { append in
                for k in 0..<10 { try append(samples(4000, from: Int64(k) * 4000 * 5_000_000)) }
                throw Stop()
            }
        ) { XCTAssertTrue($0 is Stop) }
        XCTAssertEqual(try store.traces().map(\.id), [1])
        try store.close()
        XCTAssertEqual(try bytes(path), before, "byte-identical after the rollback")
        XCTAssertEqual(try listing(), names, "no -wal or -shm left")
        // And a successful one commits everything at once.
        let again = try TraceStore(path: path)
        let id = try again.importTrace(TraceInfo(deviceName: "b", sourceURI: "y"), hasAccel: false) { append in
            try append(samples(10, accel: false)); try append(samples(10, from: 1_000_000_000, accel: false))
        }
        XCTAssertEqual(try again.sampleCount(id), 20)
    }

    func testValuesThatAreNotFiniteNumbersNeverGoIn() throws {
        let store = try TraceStore(path: path)
        let id = try store.createTrace(TraceInfo(deviceName: "a", sourceURI: "x"), hasAccel: true)
        for (bad, value) in [
            (IMUReading(t: 5, gyro: SIMD3(.nan, 0, 0)), "gx = nan"), (IMUReading(t: 5, gyro: SIMD3(0, .infinity, 0)), "gy = inf"),
            (IMUReading(t: 5, gyro: SIMD3(0, 0, 0), accel: SIMD3(0, -.infinity, 0)), "ay = -inf"),
            (IMUReading(t: 5, gyro: SIMD3(0, 0, 0), accel: SIMD3(0, 0, .nan)), "az = nan")
        ] {
            XCTAssertThrowsError(try store.append(samples(3) + [bad], to: id)) {
                XCTAssertEqual("\($0)", "\(self.path): the sample at 5 ns holds \(value), not a finite number")
            }
        }
        XCTAssertEqual(try store.sampleCount(id), 0)
    }

    func testStoresWithNaNOrNullOrInfFromAnOlderLockstepAreReportedNotACrash() throws {
        let store = try TraceStore(path: path)
        let id = try store.createTrace(TraceInfo(deviceName: "a", sourceURI: "x", channelScales: ["accel_x": 1]), hasAccel: true)
        try store.append(samples(5), to: id)
        try store.close()
        // As the old import wrote them: NaN arrives as NULL, +-Inf as is, a scale of Inf.
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE sample SET ay = NULL WHERE t_ns = 10000000")
            try db.execute(sql: "UPDATE trace_channel SET scale = 9e999")
            try db.execute(sql: "UPDATE trace SET rate_hz = -9e999")
        }
        let r = try TraceStore(path: path, mode: .readOnly)
        XCTAssertEqual(try r.trace(id).info.channelScales, [:], "a scale that is not finite reads as unknown")
        XCTAssertNil(try r.trace(id).info.rateHz)
        XCTAssertThrowsError(try r.samples(of: id)) {
            XCTAssertEqual("\($0)", "\(self.path): trace 1 holds a value that is not a finite number at 10000000 ns (written by an older Lockstep); re-import it from its file")
        }
        XCTAssertEqual(try r.samples(of: id, to: 10_000_000).count, 2, "the samples before it still read")
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "UPDATE sample SET ay = 1, gz = -9e999 WHERE t_ns = 10000000") }
        XCTAssertThrowsError(try TraceStore(path: path, mode: .readOnly).samples(of: id)) {
            XCTAssertTrue("\($0)".hasSuffix("trace 1 holds a value that is not a finite number at 10000000 ns (written by an older Lockstep); re-import it from its file"))
        }
    }

    func testReadOnlyIsReallyReadOnly() throws {
        do {
            let store = try TraceStore(path: path)
            try store.append(samples(5), to: try store.createTrace(TraceInfo(deviceName: "a", sourceURI: "x"), hasAccel: true))
            try store.close()
        }
        // At rest in rollback-journal mode: a read-only open changes no byte and makes no file.
        let atRest = try bytes(path), restNames = try listing()
        XCTAssertEqual(try TraceStore(path: path, mode: .readOnly).samples(of: 1).count, 5)
        XCTAssertEqual(try bytes(path), atRest)
        XCTAssertEqual(try listing(), restNames)
        // Opened read-only, it is not switched to WAL and refuses writes. (A store left in WAL
        // mode: testReadingADatabaseLeftInWALModeLeavesNothingBesideIt.)
        let before = try bytes(path), names = try listing()
        let r = try TraceStore(path: path, mode: .readOnly)
        XCTAssertEqual(try r.samples(of: 1).count, 5)
        XCTAssertEqual(try r.journalMode(), "delete", "not switched to WAL")
        XCTAssertThrowsError(try r.createTrace(TraceInfo(deviceName: "b", sourceURI: "y"), hasAccel: false)) {
            XCTAssertEqual("\($0)", "\(self.path): opened read-only")
        }
        XCTAssertThrowsError(try r.append(samples(1, from: 1_000_000_000), to: 1)) { XCTAssertEqual("\($0)", "\(self.path): opened read-only") }
        try r.close()
        XCTAssertEqual(try bytes(path), before)
        XCTAssertEqual(try listing(), names)
    }

    func testAStoreFromAnOlderSchemaOpenedReadOnlyIsNotMigrated() throws {
        // The schema's tables without the migration record: what a store from before GRDB's migrator would be.
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE trace (id INTEGER PRIMARY KEY, device TEXT NOT NULL)")
        }
        let before = try bytes(path)
        XCTAssertThrowsError(try TraceStore(path: path, mode: .readOnly)) {
            XCTAssertEqual("\($0)", "\(self.path): not a Lockstep trace store (no schema version); nothing was changed")
        }
        // A store whose migrations table lacks a step this version has: an older Lockstep's.
        let older = scratch.appendingPathComponent("older.sqlite").path
        _ = try TraceStore(path: older)
        try DatabaseQueue(path: older).write { try $0.execute(sql: "DELETE FROM grdb_migrations") }
        let olderBytes = try bytes(older)
        XCTAssertThrowsError(try TraceStore(path: older, mode: .readOnly)) {
            XCTAssertEqual("\($0)", "\(older): made by an older Lockstep: its schema needs an upgrade, which opening it read-only does not do (import a trace into it first)")
        }
        XCTAssertEqual(try bytes(path), before)
        XCTAssertEqual(try bytes(older), olderBytes)
    }
}
