import Foundation

/// What an import made.
public struct IMUImportResult: Sendable {
    /// The first (usually the only) new trace.
    public var trace: Int64
    public var statistics: TraceStatistics
    /// A sentence about gaps in the trace, nil when there are none.
    public var warning: String?
    /// Every new trace in order (a blackbox file gives one per log) with its statistics.
    public var traces: [(id: Int64, statistics: TraceStatistics)] = []
    /// Every sentence for the user: gaps per trace, and what the reader skipped.
    public var warnings: [String] = []
}

/// Appends a `.gcsv` or `.csv` file to a store as one new trace (a blackbox file: one trace per
/// log with samples, all in the same transaction), as ONE transaction: a bad line,
/// a full disk or `cancel()` leave an existing store exactly as it was, and a store that did not
/// exist is made under a hidden temporary name beside it and linked into place only when
/// complete, so a failed first import leaves no file.
public final class IMUImportJob: @unchecked Sendable {   // `lock` guards the mutable state
    public let file: String
    /// nil for a camera file's telemetry track.
    public let format: TraceFormat?
    public let store: String
    private let lock = NSLock()
    private var cancelled = false
    private var temporary: String?

    /// Set when the file is read by its content (a blackbox log, a blackbox_decode CSV, a DataFlash log).
    private let byContent: Bool

    public init(file: String, format: TraceFormat? = nil, store: String) throws {
        var byContent = false
        if format == nil {
            let kind = MotionFiles.kind(path: file)
            if let refusal = MotionFiles.refusal(kind, path: file) { throw refusal }
            byContent = kind == .blackbox || kind == .blackboxCSV || kind == .dataflash
        }
        let f = byContent ? nil : format ?? TraceFormat(path: file)
        guard f != nil || byContent || EmbeddedTelemetry.isMovie(path: file) else {
            throw IMUJobError("\(file): \(Self.unknownFormat)")
        }
        self.file = file; self.format = f; self.store = store; self.byContent = byContent
    }

    /// Why a file without a known extension or content is refused.
    public static let unknownFormat = "cannot tell the format (not a blackbox or DataFlash log, and not named .gcsv or .csv); add --format gcsv or --format csv."


    public static let cancelled = IMUJobError("interrupted: nothing was imported")

    /// Stops a running import from another thread (a signal handler): `run` throws
    /// `IMUImportJob.cancelled` at its next batch, after rolling back.
    public func cancel() { lock.withLock { cancelled = true } }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    /// For a process about to exit without waiting for `run` (a read blocked on a FIFO): removes
    /// the temporary new store. An existing store needs nothing: SQLite rolls the open transaction
    /// back when the process dies.
    public func abandon() {
        if let t = lock.withLock({ temporary }) { Self.remove(t) }
    }

    public func run() throws -> IMUImportResult {
        var notes: [String] = []
        let readers: [TraceBatches]
        if byContent {
            let source = try TraceSource.open(path: file)
            readers = (source.decodedTraces ?? []).map(DecodedTraceBatches.init)
            notes = source.warnings
        } else {
            readers = [try format.map { try TraceFileReader(path: file, format: $0) } ?? CameraTraceBatches(try EmbeddedTelemetry.read(path: file))]
        }
        let first = try readers.map { try $0.nextBatch() }
        guard !first.isEmpty, first.allSatisfy({ !$0.isEmpty }) else { throw IMUJobError("\(file): no samples") }
        if isCancelled { throw Self.cancelled }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: store, isDirectory: &isDirectory)
        if exists && isDirectory.boolValue { throw TraceStoreError(path: store, "is a folder, not a trace store") }
        // An empty file (`touch store.sqlite`) holds nothing yet: it is replaced like a new store,
        // so a failure leaves it empty rather than holding a bare schema.
        let isEmpty = exists && ((try? FileManager.default.attributesOfItem(atPath: store)[.size] as? Int) ?? 0) == 0
        if exists && !isEmpty {
            let s = try TraceStore(path: store, mode: .create)
            do {
                let result = try importAll(readers, first, notes, into: s)
                try s.close()
                return result
            } catch {
                try? s.close()
                throw error
            }
        }
        return try importIntoNewStore(readers, first, notes, replacingEmptyFile: isEmpty)
    }

    private func importIntoNewStore(_ readers: [TraceBatches], _ first: [[IMUReading]], _ notes: [String], replacingEmptyFile: Bool) throws -> IMUImportResult {
        Self.removeStaleTemporaries(beside: store)
        let temp = Self.temporary(beside: store)
        lock.withLock { temporary = temp }
        defer { lock.withLock { temporary = nil } }
        do {
            let s = try TraceStore(path: temp, mode: .create)
            let result: IMUImportResult
            do { result = try importAll(readers, first, notes, into: s) } catch { try? s.close(); throw error }
            try s.close()     // checkpoints: the file is complete on its own, no -wal beside it
            // link(2) rather than rename(2): a store made meanwhile under that name is not replaced
            // (only the empty file found at the start is).
            guard (replacingEmptyFile ? rename(temp, store) : link(temp, store)) == 0 else {
                let why = errno == EEXIST ? "appeared while importing; import again to append to it" : String(cString: strerror(errno))
                throw TraceStoreError(path: store, "cannot be made (\(why))")
            }
            Self.remove(temp)
            return result
        } catch {
            Self.remove(temp)
            throw error
        }
    }

    private func importAll(_ readers: [TraceBatches], _ first: [[IMUReading]], _ notes: [String], into s: TraceStore) throws -> IMUImportResult {
        let ids = try s.importTraces(readers.map { ($0.info, $0.hasAccel) }) { k, append in
            var batch = first[k]
            while !batch.isEmpty {
                try append(batch)
                if isCancelled { throw Self.cancelled }
                batch = try readers[k].nextBatch()
            }
        }
        var traces: [(id: Int64, statistics: TraceStatistics)] = []
        var gapWarnings: [String] = []
        for id in ids {
            let stats = try TraceSource.store(s, trace: id).statistics(id)
            traces.append((id, stats))
            if stats.gapCount > 0 {
                var w = "\(file)\(ids.count > 1 ? " (trace \(id))" : ""): \(stats.gapCount) gap\(stats.gapCount == 1 ? "" : "s") (steps over twice the median \(secondsText(stats.medianInterval ?? 0)))"
                if let g = stats.gaps.first, let start = stats.first {
                    w += "; the first at \(secondsText(g.start - start)), \(secondsText(g.length)) long"
                }
                gapWarnings.append(w)
            }
        }
        var result = IMUImportResult(trace: ids[0], statistics: traces[0].statistics, warning: gapWarnings.first)
        result.traces = traces
        result.warnings = notes + gapWarnings
        return result
    }

    // MARK: temporary stores

    static let temporaryMark = ".lockstep-import-"

    /// `.NAME.lockstep-import-PID-RANDOM.tmp` in the store's folder.
    static func temporary(beside path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let name = ".\(url.lastPathComponent)\(temporaryMark)\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        return url.deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// A temporary store and its SQLite companions.
    static func remove(_ temp: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temp + suffix) }
    }

    /// Temporary stores of imports into `path` whose process is gone (killed with SIGKILL).
    static func removeStaleTemporaries(beside path: String) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent)\(temporaryMark)"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let rest = name.dropFirst(prefix.count)
            guard let pid = rest.split(separator: "-").first.flatMap({ Int32($0) }), pid > 0 else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { remove(folder.appendingPathComponent(name).path) }
        }
    }
}
