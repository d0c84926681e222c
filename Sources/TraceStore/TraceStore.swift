import Foundation
import GRDB
import Motion

/// A trace as stored: its id and what it says about itself.
public struct StoredTrace: Equatable, Sendable {
    public var id: Int64
    public var info: TraceInfo
    public var hasAccel: Bool
    public init(id: Int64, info: TraceInfo, hasAccel: Bool) { self.id = id; self.info = info; self.hasAccel = hasAccel }
}

/// One SQLite file holding one or more IMU traces (WAL mode, so a reader never blocks the
/// recorder, and a crash loses at most the transaction in flight). Samples go in one transaction
/// per batch; reads stream in batches, so neither side holds a whole trace.
public final class TraceStore {
    public let path: String
    private let pool: DatabasePool

    public enum Mode { case readOnly, create }

    /// `.create` makes the file and brings the schema up to date; `.readOnly` opens an existing store.
    public init(path: String, mode: Mode = .create) throws {
        self.path = path
        if mode == .readOnly && !FileManager.default.fileExists(atPath: path) {
            throw TraceStoreError(path: path, "no such file")
        }
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(5)
        do {
            pool = try DatabasePool(path: path, configuration: config)
            try pool.write { db in
                if mode == .readOnly {
                    guard try db.tableExists("trace") else { throw TraceStoreError(path: path, "not a Lockstep trace store") }
                }
                if try Schema.migrator.hasBeenSuperseded(db) {
                    throw TraceStoreError(path: path, "made by a newer Lockstep (unknown schema migrations)")
                }
            }
            try Schema.migrator.migrate(pool)
        } catch let e as DatabaseError {
            throw TraceStoreError(path: path, "not a Lockstep trace store (\(e.message ?? "\(e.resultCode)"))")
        }
    }

    /// Migration names applied to this file, oldest first.
    public func appliedMigrations() throws -> [String] {
        try pool.read { db in try Schema.migrator.appliedMigrations(db) }
    }

    public func journalMode() throws -> String {
        try pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }

    /// Adds an empty trace and returns its id.
    public func createTrace(_ info: TraceInfo, hasAccel: Bool) throws -> Int64 {
        try TraceStoreError.wrap(path, "creating a trace") {
            try pool.write { db in
                let metadata = String(decoding: try JSONEncoder.sorted.encode(info.metadata), as: UTF8.self)
                try db.execute(sql: """
                    INSERT INTO trace (device, source_uri, clock, rate_hz, orientation, has_accel, metadata)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [info.deviceName, info.sourceURI, info.clock, info.rateHz, info.orientation, hasAccel, metadata])
                let id = db.lastInsertedRowID
                for (name, scale) in info.channelScales.sorted(by: { $0.key < $1.key }) {
                    try db.execute(sql: "INSERT INTO trace_channel (trace_id, name, scale) VALUES (?, ?, ?)", arguments: [id, name, scale])
                }
                return id
            }
        }
    }

    /// Stores samples in one transaction: all of them or, on error, none.
    public func append(_ samples: [IMUReading], to trace: Int64) throws {
        guard !samples.isEmpty else { return }
        do {
            try pool.write { db in
                let insert = try db.cachedStatement(sql: "INSERT INTO sample (trace_id, t_ns, gx, gy, gz, ax, ay, az) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
                for s in samples {
                    insert.setUncheckedArguments([trace, s.t, s.gyro.x, s.gyro.y, s.gyro.z, s.accel?.x, s.accel?.y, s.accel?.z])
                    do { try insert.execute() } catch let e as DatabaseError where e.resultCode == .SQLITE_CONSTRAINT {
                        if e.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY { throw TraceStoreError(path: path, "no trace \(trace)") }
                        throw TraceStoreError(path: path, "trace \(trace) already has a sample at \(s.t) ns")
                    }
                }
            }
        } catch let e as DatabaseError {
            throw TraceStoreError(path: path, "storing samples failed (\(e.message ?? "\(e.resultCode)"))")
        }
    }

    /// Removes a trace and its samples (an import that failed half-way leaves nothing behind).
    public func deleteTrace(_ id: Int64) throws {
        try TraceStoreError.wrap(path, "deleting trace \(id)") {
            try pool.write { db in try db.execute(sql: "DELETE FROM trace WHERE id = ?", arguments: [id]) }
        }
    }

    public func traces() throws -> [StoredTrace] {
        try TraceStoreError.wrap(path, "reading traces") {
            try pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM trace ORDER BY id").map { try Self.trace($0, db) } }
        }
    }

    public func trace(_ id: Int64) throws -> StoredTrace {
        let found = try TraceStoreError.wrap(path, "reading trace \(id)") {
            try pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM trace WHERE id = ?", arguments: [id]).map { try Self.trace($0, db) } }
        }
        guard let found else { throw TraceStoreError(path: path, "no trace \(id)") }
        return found
    }

    private static func trace(_ row: Row, _ db: Database) throws -> StoredTrace {
        let id: Int64 = row["id"]
        var scales: [String: Double] = [:]
        for r in try Row.fetchAll(db, sql: "SELECT name, scale FROM trace_channel WHERE trace_id = ?", arguments: [id]) {
            scales[r["name"]] = r["scale"]
        }
        let metadataText: String = row["metadata"]
        let metadata = (try? JSONDecoder().decode([String: String].self, from: Data(metadataText.utf8))) ?? [:]
        let info = TraceInfo(deviceName: row["device"], sourceURI: row["source_uri"], clock: row["clock"], rateHz: row["rate_hz"],
                             channelScales: scales, orientation: row["orientation"], metadata: metadata)
        return StoredTrace(id: id, info: info, hasAccel: row["has_accel"])
    }

    public func sampleCount(_ trace: Int64) throws -> Int {
        try TraceStoreError.wrap(path, "counting samples") {
            try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sample WHERE trace_id = ?", arguments: [trace]) ?? 0 }
        }
    }

    /// The first timestamp of a trace (one index lookup), nil when it has no samples.
    public func firstTimestamp(_ trace: Int64) throws -> Int64? {
        try TraceStoreError.wrap(path, "reading samples") {
            try pool.read { db in try Int64.fetchOne(db, sql: "SELECT min(t_ns) FROM sample WHERE trace_id = ?", arguments: [trace]) }
        }
    }

    /// Streams the samples of a trace with from <= t < to (nanoseconds; nil = unbounded), in time
    /// order, `batchSize` at a time, inside one read transaction (a consistent snapshot).
    public func forEachBatch(of trace: Int64, from: Int64? = nil, to: Int64? = nil, batchSize: Int = 4096,
                             _ body: ([IMUReading]) throws -> Void) throws {
        try TraceStoreError.wrap(path, "reading samples") {
            try pool.read { db in
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT t_ns, gx, gy, gz, ax, ay, az FROM sample
                    WHERE trace_id = ? AND t_ns >= ? AND t_ns < ? ORDER BY t_ns
                    """, arguments: [trace, from ?? .min, to ?? .max])
                var batch: [IMUReading] = []
                batch.reserveCapacity(batchSize)
                while let r = try rows.next() {
                    // SQLite stores NaN as NULL: decoding it as Double would trap, so it is an error naming the sample.
                    let t: Int64 = r[0]
                    let gx: Double? = r[1], gy: Double? = r[2], gz: Double? = r[3], ax: Double? = r[4], ay: Double? = r[5], az: Double? = r[6]
                    guard let gx, let gy, let gz, (ax == nil) == (ay == nil), (ay == nil) == (az == nil) else {
                        throw TraceStoreError(path: path, "trace \(trace): the sample at \(t) ns holds a value that is not a number")
                    }
                    let accel = ax.map { ($0, ay!, az!) }
                    batch.append(IMUReading(t: t, gyro: (gx, gy, gz), accel: accel))
                    if batch.count == batchSize { try body(batch); batch.removeAll(keepingCapacity: true) }
                }
                if !batch.isEmpty { try body(batch) }
            }
        }
    }

    /// All samples of a trace in memory (for replay and tests; fine for traces of minutes).
    public func samples(of trace: Int64, from: Int64? = nil, to: Int64? = nil) throws -> [IMUReading] {
        var all: [IMUReading] = []
        try forEachBatch(of: trace, from: from, to: to) { all += $0 }
        return all
    }

    /// Checkpoints the WAL into the main file and closes; the file is then complete on its own.
    public func close() throws {
        try TraceStoreError.wrap(path, "closing") {
            try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            try pool.close()
        }
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder { let e = JSONEncoder(); e.outputFormatting = [.sortedKeys]; return e }
}
