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
            let a: (Double, Double, Double)? = accel ? (0.5, -9.8, x) : nil
            return IMUReading(t: t, gyro: (x * 0.001, -x, 1e-9 * x), accel: a)
        }
    }

    func testSchemaIsMigratedAndWAL() throws {
        let store = try TraceStore(path: path)
        XCTAssertEqual(try store.appliedMigrations(), ["v1: traces, channels and samples"])
        XCTAssertEqual(try store.journalMode(), "wal")
        // The (trace_id, t_ns) index is the table's own primary key (WITHOUT ROWID).
        let db = try DatabaseQueue(path: path)
        let pk = try db.read { try $0.primaryKey("sample") }
        XCTAssertEqual(pk.columns, ["trace_id", "t_ns"])
        XCTAssertNil(pk.rowIDColumn)
    }

    func testTraceMetadataRoundTrip() throws {
        let store = try TraceStore(path: path)
        let info = TraceInfo(deviceName: "bmi160", sourceURI: "ip:127.0.0.1:30431", clock: "monotonic", rateHz: 200,
                             channelScales: ["anglvel_x": 0.001065264, "accel_x": 0.0023942], orientation: "xzY",
                             metadata: ["note": "a, b", "id": "cam"])
        let id = try store.createTrace(info, hasAccel: true)
        let id2 = try store.createTrace(TraceInfo(deviceName: "other", sourceURI: "f.csv"), hasAccel: false)
        XCTAssertEqual(try store.trace(id), StoredTrace(id: id, info: info, hasAccel: true))
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
            XCTAssertEqual("\($0)", "\(text): not a Lockstep trace store (file is not a database)")
        }
        let other = scratch.appendingPathComponent("other.sqlite").path
        try DatabaseQueue(path: other).write { try $0.execute(sql: "CREATE TABLE x(a)") }
        XCTAssertThrowsError(try TraceStore(path: other, mode: .readOnly)) { XCTAssertEqual("\($0)", "\(other): not a Lockstep trace store") }
    }

    func testAStoreFromANewerLockstepIsRefused() throws {
        _ = try TraceStore(path: path)
        try DatabaseQueue(path: path).write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v9: from the future')") }
        XCTAssertThrowsError(try TraceStore(path: path)) {
            XCTAssertEqual("\($0)", "\(self.path): made by a newer Lockstep (unknown schema migrations)")
        }
    }
}
