import Foundation

/// What an import made.
public struct IMUImportResult: Sendable {
    public var trace: Int64
    public var statistics: TraceStatistics
    /// A sentence about gaps in the trace, nil when there are none.
    public var warning: String?
}

/// Appends a `.gcsv` or `.csv` file to a store as one new trace, as ONE transaction: a bad line,
/// a full disk, a busy store or `cancel()` leave an existing store exactly as it was, and a store
/// that did not exist is made under a hidden temporary name beside it (`OutputPath`) and linked
/// into place only when complete, so a failed first import leaves no file. Once the trace is
/// committed the import has succeeded: nothing after the commit reports a failure.
public final class IMUImportJob: @unchecked Sendable {   // `lock` guards the mutable state
    public let file: String
    /// nil for a camera file's telemetry track.
    public let format: TraceFormat?
    public let store: String
    /// Seconds a store another process holds is waited for before the import gives up.
    public let busyTimeout: Double
    private let lock = NSLock()
    private var cancelled = false

    public init(file: String, format: TraceFormat? = nil, store: String, busyTimeout: Double = TraceStore.defaultBusyTimeout) throws {
        let f = format ?? TraceFormat(path: file)
        guard f != nil || EmbeddedTelemetry.isMovie(path: file) else {
            throw IMUJobError("\(file): cannot tell the format from the extension; add --format gcsv or --format csv.")
        }
        self.file = file; self.format = f; self.store = store; self.busyTimeout = busyTimeout
    }

    public static let cancelled = IMUJobError("interrupted: nothing was imported")

    /// Stops a running import from another thread (the CLI, on a stop signal): `run` throws
    /// `IMUImportJob.cancelled` at its next batch, after rolling back.
    public func cancel() { lock.withLock { cancelled = true } }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    public func run() throws -> IMUImportResult {
        // The store is the output: never one of the files read, under any spelling.
        do { try OutputPath.checkPlace(store, inputs: [file]) } catch let e as JobError { throw IMUJobError(e.description) }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: store, isDirectory: &isDirectory)
        if exists && isDirectory.boolValue { throw TraceStoreError(path: store, "is a folder, not a trace store") }
        // An empty file (`touch store.sqlite`) holds nothing yet: it is replaced like a new store,
        // so a failure leaves it empty rather than holding a bare schema.
        let isEmpty = exists && ((try? FileManager.default.attributesOfItem(atPath: store)[.size] as? Int) ?? 0) == 0
        if exists && !isEmpty {
            // Refused before anything is read or written: a file that is not a store, another
            // program's database, a store this process may not write.
            try TraceStore.inspect(store)
            try Self.checkWritable(store)
        }
        let reader: TraceBatches = try format.map { try TraceFileReader(path: file, format: $0) }
            ?? CameraTraceBatches(try EmbeddedTelemetry.read(path: file))
        let first = try reader.nextBatch()
        guard !first.isEmpty else { throw IMUJobError("\(file): no samples") }
        if isCancelled { throw Self.cancelled }
        if exists && !isEmpty {
            let s = try TraceStore(path: store, mode: .create, busyTimeout: busyTimeout)
            let result: IMUImportResult
            do { result = try importAll(reader, first, into: s) } catch { try? s.close(); throw error }
            try? s.close()   // after the commit: tidying only
            return result
        }
        return try importIntoNewStore(reader, first, replacingEmptyFile: isEmpty)
    }

    /// A store the user cannot write (its mode, a read-only mount) is refused before SQLite
    /// opens it: opening it would make -wal/-shm files beside it and then fail.
    static func checkWritable(_ store: String) throws {
        let fd = open(store, O_WRONLY | O_CLOEXEC)
        if fd < 0 { throw TraceStoreError(path: store, "cannot be written (\(String(cString: strerror(errno)))); nothing was imported") }
        close(fd)
        let folder = URL(fileURLWithPath: store).deletingLastPathComponent().path
        if access(folder, W_OK) != 0 {
            throw TraceStoreError(path: store, "cannot be written: its folder \(folder) is not writable (\(String(cString: strerror(errno)))), and SQLite writes its journal there; nothing was imported")
        }
    }

    private func importIntoNewStore(_ reader: TraceBatches, _ first: [IMUReading], replacingEmptyFile: Bool) throws -> IMUImportResult {
        let pending = try OutputPath(for: store)
        do {
            let s = try TraceStore(path: pending.path, mode: .create, busyTimeout: busyTimeout)
            let result: IMUImportResult
            do { result = try importAll(reader, first, into: s) } catch { try? s.close(); throw error }
            try? s.close()
            // link(2) rather than rename(2): a store made meanwhile under that name is not replaced
            // (only the empty file found at the start is).
            if replacingEmptyFile {
                try pending.commit()
            } else {
                guard link(pending.path, store) == 0 else {
                    let why = errno == EEXIST ? "appeared while importing; import again to append to it" : String(cString: strerror(errno))
                    throw TraceStoreError(path: store, "cannot be made (\(why))")
                }
                pending.discard()
            }
            return result
        } catch {
            pending.discard()
            throw pending.explain(error)
        }
    }

    private func importAll(_ reader: TraceBatches, _ first: [IMUReading], into s: TraceStore) throws -> IMUImportResult {
        let id = try s.importTrace(reader.info, hasAccel: reader.hasAccel) { append in
            var batch = first
            while !batch.isEmpty {
                try append(batch)
                if isCancelled { throw Self.cancelled }
                batch = try reader.nextBatch()
            }
        }
        // The trace is committed: what follows only describes it.
        guard let stats = try? TraceSource.store(s, trace: id).statistics(id) else {
            return IMUImportResult(trace: id, statistics: TraceStatistics.measure { _ in }, warning: nil)
        }
        var warning: String?
        if stats.gapCount > 0 {
            warning = "\(file): \(stats.gapCount) gap\(stats.gapCount == 1 ? "" : "s") (steps over twice the median \(secondsText(stats.medianInterval ?? 0)))"
            if let g = stats.gaps.first, let start = stats.first {
                warning! += "; the first at \(secondsText(g.start - start)), \(secondsText(g.length)) long"
            }
        }
        return IMUImportResult(trace: id, statistics: stats, warning: warning)
    }
}
