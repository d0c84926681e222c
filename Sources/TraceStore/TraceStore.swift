import Foundation
import GRDB
import Motion

/// One SQLite file holding one or more IMU traces. Samples go in one transaction per batch, or
/// one for a whole import; reads stream in batches, so neither side holds a whole trace.
///
/// Against other processes (another import, a recording, a reader):
/// - A store at rest is in SQLite's rollback-journal mode, so a read-only command (`imu info`,
///   `plot`, `export`, `serve`, `snake`, `calibrate`) opens it read-only and leaves no file
///   beside it (a WAL file needs -wal and -shm, which a reader makes and cannot remove; one
///   left in WAL mode with no -wal beside it is read immutable, see `init`).
///   `.record` switches the store to WAL while it records, so readers never block the
///   recorder, and back when it closes (when no reader holds it then, else it stays WAL
///   until the next writer closes).
/// - Writes are IMMEDIATE transactions: a store another process is writing is waited for, at
///   most `busyTimeout` seconds, before anything is written, then refused ("busy"). A commit
///   that must wait for readers waits as long, then rolls back: an import stores its whole
///   trace or nothing. Nothing after the commit can fail the import (closing is best effort:
///   the data is in the file once committed).
/// - A write that fails on a full disk or an I/O error leaves the file byte-identical and no
///   -journal beside it: SQLite leaves the journal for the next read to play back, and `write`
///   does that read at once.
/// - Opening an existing file for writing reads it first without writing: a SQLite database
///   that holds other tables than Lockstep's, or a file that is not SQLite, is refused
///   untouched; so is a store made by a newer Lockstep.
///
/// One connection (a GRDB `DatabaseQueue`): opening an existing store writes nothing to it.
/// Values that are not finite numbers, or beyond `IMUReading.largestValue`, never go in; a store that
/// holds some (an older Lockstep's NULL, NaN stored as NULL, Inf; text or blobs where numbers
/// belong, from another program) is reported when read, never read as 0.
public final class TraceStore {
    public let path: String
    private let queue: DatabaseQueue
    private let mode: Mode
    private var readOnly: Bool { mode == .readOnly }
    /// Seconds a store held by another process is waited for (documented in `imu import --help`).
    public let busyTimeout: Double

    public enum Mode: Sendable {
        /// Read an existing store as it is: a read-only connection, nothing created or migrated.
        case readOnly
        /// Make the file if needed, bring the schema up to date, write in the file's own
        /// journal mode (a new store: rollback journal).
        case create
        /// As `.create`, switched to WAL while open (a recording: readers never block it).
        case record
    }

    /// The default wait for a busy store.
    public static let defaultBusyTimeout = 30.0

    /// `.create` and `.record` make the file if needed and bring the schema up to date;
    /// `.readOnly` opens an existing store as it is.
    public init(path: String, mode: Mode = .create, busyTimeout: Double = TraceStore.defaultBusyTimeout) throws {
        self.path = path
        self.mode = mode
        self.busyTimeout = busyTimeout
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if mode == .readOnly && !exists { throw TraceStoreError(path: path, "no such file") }
        if exists && isDirectory.boolValue { throw TraceStoreError(path: path, "is a folder, not a trace store") }
        let isNew = !exists || ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) == 0
        // Every existing file is read first without a connection that could make files beside
        // it: a foreign database is refused untouched, read-only commands included.
        let walAtRest = isNew ? false : try Self.inspect(path) && !FileManager.default.fileExists(atPath: path + "-wal")
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(busyTimeout)
        config.readonly = mode == .readOnly
        config.journalMode = .default
        do {
            // A store left in WAL mode with no -wal beside it (a recorder that was killed, or
            // closed while a reader held it) has no writer and all its data in the file; a
            // read-only connection would make -wal and -shm beside it and could not remove
            // them, so a reader opens it immutable: a snapshot, nothing made, nothing locked.
            // (A recorder that starts on it during a long read is not seen by that read.)
            queue = try DatabaseQueue(path: mode == .readOnly && walAtRest ? Self.immutableURI(path) : path, configuration: config)
            let readOnly = mode == .readOnly
            try queue.read { db in try Self.checkSchema(db, path: path, readOnly: readOnly) }
            if mode != .readOnly {
                // An older store's upgrade is a write like any other (see `write`).
                do { try Schema.migrator.migrate(queue) } catch { _ = Self.restore(queue); throw error }
            }
            if mode == .record { _ = try? queue.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode = WAL") } }
        } catch let e as DatabaseError {
            throw Self.openError(e, path: path)
        }
    }

    /// What an open that failed was about: a busy store, a place that cannot be written, or a
    /// file that is not a store.
    static func openError(_ e: DatabaseError, path: String) -> TraceStoreError {
        let sqlite = e.message ?? "\(e.resultCode)"
        switch e.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return TraceStoreError(path: path, "busy: another process kept it locked (\(sqlite)); nothing was changed")
        case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_IOERR, .SQLITE_FULL, .SQLITE_AUTH:
            return TraceStoreError(path: path, "cannot be opened for writing (\(sqlite))")
        default:
            return TraceStoreError(path: path, "not a Lockstep trace store (\(sqlite))")
        }
    }

    /// Reads an existing file before any connection that could write to it is opened: its
    /// header (not SQLite: refused) and, through an immutable read-only connection that makes
    /// no -wal, -shm or journal, its tables (another program's database: refused, untouched).
    /// Returns whether the file is in WAL mode (its header's read and write versions are 2).
    @discardableResult
    public static func inspect(_ path: String) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw TraceStoreError(path: path, "cannot be read (\(String(cString: strerror(errno))))")
        }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        try? handle.close()
        guard header.count == 100, header.starts(with: Data("SQLite format 3\0".utf8)) else {
            throw TraceStoreError(path: path, "not a Lockstep trace store (not a SQLite database); nothing was changed")
        }
        var config = Configuration()
        config.readonly = true
        let names: [String]
        do {
            let look = try DatabaseQueue(path: immutableURI(path), configuration: config)
            names = try look.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            }
            try look.close()
        } catch let e as DatabaseError {
            throw TraceStoreError(path: path, "not a Lockstep trace store (\(e.message ?? "\(e.resultCode)")); nothing was changed")
        }
        let ours: Set<String> = ["grdb_migrations", "trace", "trace_channel", "sample"]
        let others = names.filter { !ours.contains($0) }
        if !others.isEmpty {
            let shown = others.prefix(5).map { MessageText.quote($0, limit: 40) }.joined(separator: ", ") + (others.count > 5 ? ", ..." : "")
            throw TraceStoreError(path: path, "not a Lockstep trace store: it is another program's SQLite database (tables \(shown)); nothing was changed")
        }
        if !names.isEmpty && !names.contains("grdb_migrations") {
            throw TraceStoreError(path: path, "not a Lockstep trace store (no schema version); nothing was changed")
        }
        return header[header.startIndex + 18] == 2 && header[header.startIndex + 19] == 2
    }

    /// A SQLite URI that opens `path` as immutable: no locks, no -wal, -shm or journal made.
    private static func immutableURI(_ path: String) -> String {
        var components = URLComponents()
        components.scheme = "file"
        components.path = URL(fileURLWithPath: path).absoluteURL.path
        components.queryItems = [URLQueryItem(name: "immutable", value: "1")]
        return components.string ?? path
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

    /// One write transaction, put right on disk when it fails. SQLite answers a full disk or an
    /// I/O error in the middle of a transaction by abandoning it (the ROLLBACK that follows finds
    /// "no transaction is active"), but in rollback-journal mode the store's file is left as the
    /// failed writes made it (grown, pages half-written) and their old contents in the -journal:
    /// the journal is played back only by the next read on a connection that may write. Closing
    /// does not read, and a reader opened read-only (`imu info`) cannot play it back, so the store
    /// stayed unreadable with a hot -journal beside it. One read here plays it back: the file is
    /// byte-identical to before the transaction and the journal is gone (playing back needs no
    /// free space: it overwrites pages and truncates).
    private func write<T>(_ body: (Database) throws -> T) throws -> T {
        let pool = try writable()
        do { return try pool.write(body) } catch let error as DatabaseError where error.resultCode != .SQLITE_BUSY && error.resultCode != .SQLITE_LOCKED {
            // (A busy store was never written: nothing to play back, and the read would wait for
            // the other process again.)
            if let why = Self.restore(queue) {
                throw TraceStoreError(
                    path: path, "writing failed (\(Self.message(error))) and could not be undone (\(why)); the -journal beside it holds the store as it was, for the next write to play back")
            }
            throw error
        }
    }

    /// Plays back a journal a failed transaction left (see `write`); nil when the store is sound.
    private static func restore(_ queue: DatabaseQueue) -> String? {
        do {
            try queue.read { db in try db.execute(sql: "SELECT count(*) FROM sqlite_master") }
            return nil
        } catch {
            return Self.message(error)
        }
    }

    private static func message(_ error: Error) -> String {
        if let e = error as? DatabaseError { return e.message ?? "\(e.resultCode)" }
        return "\(error)"
    }

    /// Adds an empty trace as `trace` describes it (its readings are not stored: `append` them)
    /// and returns its id.
    public func createTrace(_ trace: MotionTrace) throws -> Int64 {
        try TraceStoreError.wrap(path, "creating a trace") {
            try write { db in try Self.insertTrace(db, trace) }
        }
    }

    /// `createTrace` for a source that states no axes (a recording).
    public func createTrace(_ info: TraceInfo, hasAccel: Bool) throws -> Int64 {
        try createTrace(MotionTrace(info: info, hasAccel: hasAccel))
    }

    /// Stores samples in one transaction: all of them or, on error, none.
    public func append(_ samples: [IMUReading], to trace: Int64) throws {
        guard !samples.isEmpty else { return }
        try wrapInsert { try write { db in try self.insert(db, samples, trace) } }
    }

    /// A whole trace in ONE transaction: `fill` hands its batches to `append`; if `fill` or an
    /// insert throws, the store is left as it was (no trace, no samples). Returns the new id.
    public func importTrace(
        _ info: TraceInfo, hasAccel: Bool,
        _ fill: (_ append: ([IMUReading]) throws -> Void) throws -> Void
    ) throws -> Int64 {
        try withoutActuallyEscaping(fill) { fill in try importTraces([MotionTrace(info: info, hasAccel: hasAccel)]) { _, append in try fill(append) }[0] }
    }

    /// Several traces (the logs of one blackbox file) in ONE transaction: all of them or none.
    /// `fill(k, append)` hands the k-th trace's batches to `append`. Returns the new ids in order.
    public func importTraces(
        _ traces: [MotionTrace],
        _ fill: (_ index: Int, _ append: ([IMUReading]) throws -> Void) throws -> Void
    ) throws -> [Int64] {
        return try wrapInsert(nothingImported: true) {
            try write { db in
                var ids: [Int64] = []
                for (k, t) in traces.enumerated() {
                    let id = try Self.insertTrace(db, t)
                    try fill(k) { batch in try self.insert(db, batch, id) }
                    ids.append(id)
                }
                return ids
            }
        }
    }

    /// `nothingImported`: the transaction was a whole import, which the message says was undone.
    private func wrapInsert<T>(nothingImported: Bool = false, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as DatabaseError {
            if e.resultCode == .SQLITE_BUSY || e.resultCode == .SQLITE_LOCKED {
                throw TraceStoreError(path: path, "busy: another process kept the store locked for \(Self.seconds(busyTimeout)) (\(e.message ?? "database is locked")); nothing was stored")
            }
            throw TraceStoreError(path: path, "storing samples failed (\(e.message ?? "\(e.resultCode)"))" + (nothingImported ? "; nothing was imported" : ""))
        }
    }

    static func seconds(_ s: Double) -> String { s == s.rounded() && s < 1e9 ? "\(Int(s)) s" : "\(s) s" }

    /// The key under which a trace's stated axes (`MotionTrace.axisMapping`, an orientation like
    /// "yxz") are kept in the `metadata` column: schema v1 has no column of its own for them, and
    /// stores written before and since read the same. Written and read only here.
    static let axisMappingKey = "axisMapping"

    private static func insertTrace(_ db: Database, _ trace: MotionTrace) throws -> Int64 {
        let (info, hasAccel) = (trace.info, trace.hasAccel)
        var kept = info.metadata
        if case .orientation(let s)? = trace.axisMapping, AxisMapping.isValidOrientation(s) { kept[axisMappingKey] = s }
        let metadata = String(decoding: try JSONEncoder.sorted.encode(kept), as: UTF8.self)
        try db.execute(
            sql: """
                INSERT INTO trace (device, source_uri, clock, rate_hz, orientation, has_accel, metadata)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                info.deviceName, info.sourceURI, info.clock, info.rateHz.flatMap { $0.isFinite ? $0 : nil },
                info.orientation, hasAccel, metadata
            ])
        let id = db.lastInsertedRowID
        for (name, scale) in info.channelScales.sorted(by: { $0.key < $1.key }) where scale.isFinite {
            try db.execute(sql: "INSERT INTO trace_channel (trace_id, name, scale) VALUES (?, ?, ?)", arguments: [id, name, scale])
        }
        return id
    }

    private func insert(_ db: Database, _ samples: [IMUReading], _ trace: Int64) throws {
        let insert = try db.cachedStatement(sql: "INSERT INTO sample (trace_id, t_ns, gx, gy, gz, ax, ay, az) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        for s in samples {
            // The one rule (`IMUReading.problem`): the store holds only what every command reads.
            if let problem = s.problem { throw TraceStoreError(path: path, problem) }
            insert.setUncheckedArguments([trace, s.t, s.gyro.x, s.gyro.y, s.gyro.z, s.accel?.x, s.accel?.y, s.accel?.z])
            do { try insert.execute() } catch let e as DatabaseError where e.resultCode == .SQLITE_CONSTRAINT {
                if e.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY { throw TraceStoreError(path: path, "no trace \(trace)") }
                throw TraceStoreError(path: path, "trace \(trace) already has a sample at \(s.t) ns")
            }
        }
    }

    /// Removes a trace and its samples.
    public func deleteTrace(_ id: Int64) throws {
        try TraceStoreError.wrap(path, "deleting trace \(id)") {
            try write { db in try db.execute(sql: "DELETE FROM trace WHERE id = ?", arguments: [id]) }
        }
    }

    /// Every trace, described (no samples: `forEachBatch` streams them).
    public func traces() throws -> [MotionTrace] {
        try TraceStoreError.wrap(path, "reading traces") {
            try reader.read { db in try Row.fetchAll(db, sql: "SELECT * FROM trace ORDER BY id").map { try Self.trace($0, db) } }
        }
    }

    public func trace(_ id: Int64) throws -> MotionTrace {
        let found = try TraceStoreError.wrap(path, "reading trace \(id)") {
            try reader.read { db in try Row.fetchOne(db, sql: "SELECT * FROM trace WHERE id = ?", arguments: [id]).map { try Self.trace($0, db) } }
        }
        guard let found else { throw TraceStoreError(path: path, "no trace \(id)") }
        return found
    }

    /// Reads every column by its stored type: a store from an older Lockstep (or another
    /// program) may hold NULLs, non-finite numbers, text or blobs where this one writes none;
    /// those read as unknown (a name, a rate, a scale), never as 0 and never as a crash.
    private static func trace(_ row: Row, _ db: Database) throws -> MotionTrace {
        guard let id = integer(row["id"] as DatabaseValue) else { throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "a trace id is not a whole number") }
        var scales: [String: Double] = [:]
        for r in try Row.fetchAll(db, sql: "SELECT name, scale FROM trace_channel WHERE trace_id = ?", arguments: [id]) {
            if let name = text(r["name"] as DatabaseValue), let scale = number(r["scale"] as DatabaseValue), scale.isFinite { scales[name] = scale }
        }
        let metadataText = text(row["metadata"] as DatabaseValue) ?? "{}"
        var metadata = (try? JSONDecoder().decode([String: String].self, from: Data(metadataText.utf8))) ?? [:]
        let rate = number(row["rate_hz"] as DatabaseValue)
        let clock = text(row["clock"] as DatabaseValue)
        // Only a trace on the video's clock (a camera's own) states the camera's axes.
        var axisMapping: AxisMapping?
        if clock == "video", let s = metadata[axisMappingKey], AxisMapping.isValidOrientation(s) {
            axisMapping = .orientation(s)
            metadata[axisMappingKey] = nil
        }
        let info = TraceInfo(
            deviceName: text(row["device"] as DatabaseValue) ?? "", sourceURI: text(row["source_uri"] as DatabaseValue) ?? "",
            clock: clock,
            rateHz: rate.flatMap { $0.isFinite && $0 > 0 ? $0 : nil },
            channelScales: scales, orientation: text(row["orientation"] as DatabaseValue), metadata: metadata)
        return MotionTrace(id: id, info: info, hasAccel: (integer(row["has_accel"] as DatabaseValue) ?? 0) != 0, axisMapping: axisMapping)
    }

    // `@inline(never)` on these readers: Swift 6.3.1's -O (CopyPropagation) crashes on
    // `trace(_:_:)` when they are inlined into it.

    /// A stored number (INTEGER or REAL), nil for NULL, text or a blob.
    @inline(never) static func number(_ v: DatabaseValue) -> Double? {
        switch v.storage {
        case .double(let d): d
        case .int64(let i): Double(i)
        default: nil
        }
    }

    @inline(never) static func integer(_ v: DatabaseValue) -> Int64? {
        if case .int64(let i) = v.storage { return i }
        return nil
    }

    @inline(never) static func text(_ v: DatabaseValue) -> String? {
        if case .string(let s) = v.storage { return s }
        return nil
    }

    /// What a stored value is, for a message: "text 'abc'", "a blob of 4 bytes", "NULL".
    static func describe(_ v: DatabaseValue) -> String {
        switch v.storage {
        case .null: "NULL"
        case .int64(let i): "\(i)"
        case .double(let d): "\(d)"
        case .string(let s): "text '\(MessageText.quote(s, limit: 40))'"
        case .blob(let b): "a blob of \(b.count) bytes"
        }
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
    public func forEachBatch(
        of trace: Int64, from: Int64? = nil, to: Int64? = nil, batchSize: Int = 4096,
        _ body: ([IMUReading]) throws -> Void
    ) throws {
        try TraceStoreError.wrap(path, "reading samples") {
            try reader.read { db in
                // Text and blobs sort after every number in the (trace_id, t_ns) index: a time
                // that is not a number would fall outside any range asked for and be skipped
                // without a word. One index lookup finds it first.
                if let bad = try Row.fetchOne(db, sql: "SELECT t_ns FROM sample WHERE trace_id = ? AND t_ns >= '' LIMIT 1", arguments: [trace]) {
                    _ = try sample(bad, trace)
                }
                // `to` is exclusive; without it nothing is left out (a sample at Int64.max was).
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT t_ns, gx, gy, gz, ax, ay, az FROM sample
                        WHERE trace_id = ? AND t_ns >= ? AND t_ns \(to == nil ? "<=" : "<") ? ORDER BY t_ns
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

    private static let columns = ["t_ns", "gx", "gy", "gz", "ax", "ay", "az"]

    private func sample(_ r: Row, _ trace: Int64) throws -> IMUReading {
        let time = r[0] as DatabaseValue
        guard let t = Self.integer(time) else {
            throw TraceStoreError(path: path, "trace \(trace) holds a sample whose time is \(Self.describe(time)), not a whole number of nanoseconds; it cannot be read")
        }
        guard t.magnitude <= UInt64(TraceParser.maxTimestamp) else {
            throw TraceStoreError(path: path, "trace \(trace) holds a sample with a timestamp out of range; it cannot be read")
        }
        // Text or a blob in a REAL column is another program's writing: sqlite3_column_double
        // reads it as 0.0, which would pass for a still sensor.
        func value(_ i: Int) throws -> Double? {
            let v = r[i] as DatabaseValue
            switch v.storage {
            case .double(let d): return d.isFinite ? d : nil
            case .int64(let n): return Double(n)
            case .null: return nil
            case .string, .blob:
                throw TraceStoreError(path: path, "trace \(trace) holds \(Self.describe(v)) in \(Self.columns[i]) at \(t) ns, not a number; it cannot be read")
            }
        }
        guard let gx = try value(1), let gy = try value(2), let gz = try value(3) else { throw corrupt(trace, t) }
        var accel: SIMD3<Double>?
        if !(r.hasNull(atIndex: 4) && r.hasNull(atIndex: 5) && r.hasNull(atIndex: 6)) {
            guard let ax = try value(4), let ay = try value(5), let az = try value(6) else { throw corrupt(trace, t) }
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

    /// Closes. A store that was written is left in rollback-journal mode, complete on its own
    /// (no -wal beside it), when no other process holds it; else as it is, for the last one to
    /// close. Nothing here can undo or fail a commit: it has happened, and a reader still
    /// holding the store (which made the old full checkpoint wait 5 s and report "closing
    /// failed (database is locked)" after the trace was stored) only delays the tidying.
    public func close() throws {
        if !readOnly {
            _ = try? queue.writeWithoutTransaction { db -> String? in
                guard try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" else { return nil }
                try db.execute(sql: "PRAGMA busy_timeout = 0")
                return try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
            }
        }
        try TraceStoreError.wrap(path, "closing") { try queue.close() }
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder { let e = JSONEncoder(); e.outputFormatting = [.sortedKeys]; return e }
}
