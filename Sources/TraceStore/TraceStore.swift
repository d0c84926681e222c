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

/// One SQLite file holding one or more IMU traces (WAL mode from birth, so a reader in another
/// process never blocks the recorder, and a crash loses at most the transaction in flight).
/// Samples go in one transaction per batch, or one for a whole import; reads stream in batches,
/// so neither side holds a whole trace.
///
/// One connection (a GRDB `DatabaseQueue`): opening an existing store writes nothing to it (a
/// `DatabasePool` commits a CREATE/DROP on open to make a WAL file, which changes the file even
/// when the import that follows is rolled back). A store opened `.readOnly` is only read: a
/// read-only SQLite connection, no WAL switch, no migration, no store created (SQLite may leave
/// the empty -wal and -shm files a reader of a WAL file needs, as `sqlite3 -readonly` does; the
/// store's own bytes never change). Values that are not
/// finite numbers never go in; a store written by an older Lockstep that holds some (NULL, NaN
/// stored as NULL, Inf) is reported when read.
public final class TraceStore {
    public let path: String
    private let queue: DatabaseQueue
    private let readOnly: Bool

    public enum Mode: Sendable { case readOnly, create }

    /// `.create` makes the file if needed and brings the schema up to date; `.readOnly` opens an
    /// existing store as it is.
    public init(path: String, mode: Mode = .create) throws {
        self.path = path
        readOnly = mode == .readOnly
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if mode == .readOnly && !exists { throw TraceStoreError(path: path, "no such file") }
        if exists && isDirectory.boolValue { throw TraceStoreError(path: path, "is a folder, not a trace store") }
        let isNew = !exists || ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) == 0
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(5)
        config.readonly = mode == .readOnly
        // A new store is made in WAL mode; an existing one keeps the mode its file has.
        config.journalMode = mode == .create && isNew ? .wal : .default
        do {
            queue = try DatabaseQueue(path: path, configuration: config)
            let readOnly = self.readOnly
            try queue.read { db in try Self.checkSchema(db, path: path, readOnly: readOnly) }
            if mode == .create { try Schema.migrator.migrate(queue) }
        } catch let e as DatabaseError {
            throw TraceStoreError(path: path, "not a Lockstep trace store (\(e.message ?? "\(e.resultCode)"))")
        }
    }

    private static func checkSchema(_ db: Database, path: String, readOnly: Bool) throws {
        if readOnly {
            guard try db.tableExists("trace") else { throw TraceStoreError(path: path, "not a Lockstep trace store") }
        }
        guard try db.tableExists("grdb_migrations") || !db.tableExists("trace") else {
            throw TraceStoreError(path: path, "not a Lockstep trace store (no schema version)")
        }
        if try Schema.migrator.hasBeenSuperseded(db) {
            throw TraceStoreError(path: path, "made by a newer Lockstep (unknown schema migrations)")
        }
        if readOnly, try !Schema.migrator.hasCompletedMigrations(db) {
            throw TraceStoreError(path: path, "made by an older Lockstep: its schema needs an upgrade, which opening it read-only does not do (import a trace into it first)")
        }
    }

    private var reader: DatabaseQueue { queue }

    private func writable() throws -> DatabaseQueue {
        guard !readOnly else { throw TraceStoreError(path: path, "opened read-only") }
        return queue
    }

    /// Migration names applied to this file, oldest first.
    public func appliedMigrations() throws -> [String] {
        try reader.read { db in try Schema.migrator.appliedMigrations(db) }
    }

    public func journalMode() throws -> String {
        try reader.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }

    /// Adds an empty trace and returns its id.
    public func createTrace(_ info: TraceInfo, hasAccel: Bool) throws -> Int64 {
        let pool = try writable()
        return try TraceStoreError.wrap(path, "creating a trace") {
            try pool.write { db in try Self.insertTrace(db, info, hasAccel: hasAccel) }
        }
    }

    /// Stores samples in one transaction: all of them or, on error, none.
    public func append(_ samples: [IMUReading], to trace: Int64) throws {
        guard !samples.isEmpty else { return }
        let pool = try writable()
        try wrapInsert { try pool.write { db in try self.insert(db, samples, trace) } }
    }

    /// A whole trace in ONE transaction: `fill` hands its batches to `append`; if `fill` or an
    /// insert throws, the store is left as it was (no trace, no samples). Returns the new id.
    public func importTrace(_ info: TraceInfo, hasAccel: Bool,
                            _ fill: (_ append: ([IMUReading]) throws -> Void) throws -> Void) throws -> Int64 {
        try withoutActuallyEscaping(fill) { fill in try importTraces([(info, hasAccel)]) { _, append in try fill(append) }[0] }
    }

    /// Several traces (the logs of one blackbox file) in ONE transaction: all of them or none.
    /// `fill(k, append)` hands the k-th trace's batches to `append`. Returns the new ids in order.
    public func importTraces(_ traces: [(info: TraceInfo, hasAccel: Bool)],
                             _ fill: (_ index: Int, _ append: ([IMUReading]) throws -> Void) throws -> Void) throws -> [Int64] {
        let pool = try writable()
        return try wrapInsert {
            try pool.write { db in
                var ids: [Int64] = []
                for (k, t) in traces.enumerated() {
                    let id = try Self.insertTrace(db, t.info, hasAccel: t.hasAccel)
                    try fill(k) { batch in try self.insert(db, batch, id) }
                    ids.append(id)
                }
                return ids
            }
        }
    }

    private func wrapInsert<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as DatabaseError {
            throw TraceStoreError(path: path, "storing samples failed (\(e.message ?? "\(e.resultCode)"))")
        }
    }

    private static func insertTrace(_ db: Database, _ info: TraceInfo, hasAccel: Bool) throws -> Int64 {
        let metadata = String(decoding: try JSONEncoder.sorted.encode(info.metadata), as: UTF8.self)
        try db.execute(sql: """
            INSERT INTO trace (device, source_uri, clock, rate_hz, orientation, has_accel, metadata)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [info.deviceName, info.sourceURI, info.clock, info.rateHz.flatMap { $0.isFinite ? $0 : nil },
                             info.orientation, hasAccel, metadata])
        let id = db.lastInsertedRowID
        for (name, scale) in info.channelScales.sorted(by: { $0.key < $1.key }) where scale.isFinite {
            try db.execute(sql: "INSERT INTO trace_channel (trace_id, name, scale) VALUES (?, ?, ?)", arguments: [id, name, scale])
        }
        return id
    }

    private func insert(_ db: Database, _ samples: [IMUReading], _ trace: Int64) throws {
        let insert = try db.cachedStatement(sql: "INSERT INTO sample (trace_id, t_ns, gx, gy, gz, ax, ay, az) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        for s in samples {
            // SQLite would store NaN as NULL and keep +-Inf: neither may go in.
            let accelFinite = s.accel.map { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite } ?? true
            guard s.gyro.x.isFinite && s.gyro.y.isFinite && s.gyro.z.isFinite && accelFinite else {
                throw TraceStoreError(path: path, "the sample at \(s.t) ns holds a value that is not a finite number")
            }
            insert.setUncheckedArguments([trace, s.t, s.gyro.x, s.gyro.y, s.gyro.z, s.accel?.x, s.accel?.y, s.accel?.z])
            do { try insert.execute() } catch let e as DatabaseError where e.resultCode == .SQLITE_CONSTRAINT {
                if e.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY { throw TraceStoreError(path: path, "no trace \(trace)") }
                throw TraceStoreError(path: path, "trace \(trace) already has a sample at \(s.t) ns")
            }
        }
    }

    /// Removes a trace and its samples.
    public func deleteTrace(_ id: Int64) throws {
        let pool = try writable()
        try TraceStoreError.wrap(path, "deleting trace \(id)") {
            try pool.write { db in try db.execute(sql: "DELETE FROM trace WHERE id = ?", arguments: [id]) }
        }
    }

    public func traces() throws -> [StoredTrace] {
        try TraceStoreError.wrap(path, "reading traces") {
            try reader.read { db in try Row.fetchAll(db, sql: "SELECT * FROM trace ORDER BY id").map { try Self.trace($0, db) } }
        }
    }

    public func trace(_ id: Int64) throws -> StoredTrace {
        let found = try TraceStoreError.wrap(path, "reading trace \(id)") {
            try reader.read { db in try Row.fetchOne(db, sql: "SELECT * FROM trace WHERE id = ?", arguments: [id]).map { try Self.trace($0, db) } }
        }
        guard let found else { throw TraceStoreError(path: path, "no trace \(id)") }
        return found
    }

    /// Reads every column as optional: a store from an older Lockstep (or another program) may
    /// hold NULLs or non-finite numbers where this one writes none; those read as unknown.
    private static func trace(_ row: Row, _ db: Database) throws -> StoredTrace {
        let id: Int64 = row["id"]
        var scales: [String: Double] = [:]
        for r in try Row.fetchAll(db, sql: "SELECT name, scale FROM trace_channel WHERE trace_id = ?", arguments: [id]) {
            if let name: String = r["name"], let scale: Double = r["scale"], scale.isFinite { scales[name] = scale }
        }
        let metadataText: String = row["metadata"] ?? "{}"
        let metadata = (try? JSONDecoder().decode([String: String].self, from: Data(metadataText.utf8))) ?? [:]
        let rate: Double? = row["rate_hz"]
        let info = TraceInfo(deviceName: row["device"] ?? "", sourceURI: row["source_uri"] ?? "", clock: row["clock"],
                             rateHz: rate.flatMap { $0.isFinite && $0 > 0 ? $0 : nil },
                             channelScales: scales, orientation: row["orientation"], metadata: metadata)
        return StoredTrace(id: id, info: info, hasAccel: row["has_accel"] ?? false)
    }

    public func sampleCount(_ trace: Int64) throws -> Int {
        try TraceStoreError.wrap(path, "counting samples") {
            try reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sample WHERE trace_id = ?", arguments: [trace]) ?? 0 }
        }
    }

    /// The first timestamp of a trace (one index lookup), nil when it has no samples.
    public func firstTimestamp(_ trace: Int64) throws -> Int64? {
        try TraceStoreError.wrap(path, "reading samples") {
            try reader.read { db in try Int64.fetchOne(db, sql: "SELECT min(t_ns) FROM sample WHERE trace_id = ?", arguments: [trace]) }
        }
    }

    /// Streams the samples of a trace with from <= t < to (nanoseconds; nil = unbounded), in time
    /// order, `batchSize` at a time, inside one read transaction (a consistent snapshot). A sample
    /// holding a value that is not a finite number (NULL, NaN, Inf: written by an older Lockstep)
    /// or a timestamp out of `TraceParser`'s range ends the read with an error naming the store,
    /// the trace and the sample's time.
    public func forEachBatch(of trace: Int64, from: Int64? = nil, to: Int64? = nil, batchSize: Int = 4096,
                             _ body: ([IMUReading]) throws -> Void) throws {
        try TraceStoreError.wrap(path, "reading samples") {
            try reader.read { db in
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT t_ns, gx, gy, gz, ax, ay, az FROM sample
                    WHERE trace_id = ? AND t_ns >= ? AND t_ns < ? ORDER BY t_ns
                    """, arguments: [trace, from ?? .min, to ?? .max])
                var batch: [IMUReading] = []
                batch.reserveCapacity(batchSize)
                while let r = try rows.next() {
                    batch.append(try sample(r, trace))
                    if batch.count == batchSize { try body(batch); batch.removeAll(keepingCapacity: true) }
                }
                if !batch.isEmpty { try body(batch) }
            }
        }
    }

    private func sample(_ r: Row, _ trace: Int64) throws -> IMUReading {
        let t: Int64? = r[0]
        func finite(_ i: Int) -> Double? { (r[i] as Double?).flatMap { $0.isFinite ? $0 : nil } }
        guard let t, abs(t) <= TraceParser.maxTimestamp else {
            throw TraceStoreError(path: path, "trace \(trace) holds a sample with a timestamp out of range; it cannot be read")
        }
        guard let gx = finite(1), let gy = finite(2), let gz = finite(3) else { throw corrupt(trace, t) }
        var accel: SIMD3<Double>?
        if !(r.hasNull(atIndex: 4) && r.hasNull(atIndex: 5) && r.hasNull(atIndex: 6)) {
            guard let ax = finite(4), let ay = finite(5), let az = finite(6) else { throw corrupt(trace, t) }
            accel = SIMD3(ax, ay, az)
        }
        return IMUReading(t: t, gyro: SIMD3(gx, gy, gz), accel: accel)
    }

    private func corrupt(_ trace: Int64, _ t: Int64) -> TraceStoreError {
        TraceStoreError(path: path, "trace \(trace) holds a value that is not a finite number at \(t) ns (written by an older Lockstep); re-import it from its file")
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
            if !readOnly, try queue.read({ db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }) == "wal" {
                try queue.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            }
            try queue.close()
        }
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder { let e = JSONEncoder(); e.outputFormatting = [.sortedKeys]; return e }
}
