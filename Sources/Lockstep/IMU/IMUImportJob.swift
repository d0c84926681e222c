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

/// Appends a trace file to a store as one new trace (a blackbox file: one trace per log with
/// samples), as ONE transaction: a bad line, a full disk, a busy store or `cancel()` leave an
/// existing store exactly as it was, and a store that did not exist is made under a hidden
/// temporary name beside it (`OutputPath`) and linked into place only when complete, so a failed
/// first import leaves no file. Once the traces are committed the import has succeeded: nothing
/// after the commit reports a failure.
public struct IMUImportOptions: Sendable {
    /// The trace file: .gcsv, .csv, a blackbox or DataFlash log, a camera file with telemetry.
    public var file: String
    /// The file's format; nil: from its content (a log), else its extension (or a movie's track).
    public var format: TraceFormat?
    /// The store (made if absent).
    public var store: String
    /// Seconds a store another process holds is waited for before the import gives up.
    public var busyTimeout: Double
    public init(file: String, format: TraceFormat? = nil, store: String, busyTimeout: Double = TraceStore.defaultBusyTimeout) {
        self.file = file; self.format = format; self.store = store; self.busyTimeout = busyTimeout
    }

    /// What the file is (`MotionFiles.kind`): a trace file, a log, a movie with telemetry; a
    /// store or a file of no known kind is refused.
    func kind() throws -> MotionFileKind {
        let kind = MotionFiles.kind(path: file, format: format)
        if let refusal = MotionFiles.refusal(kind, path: file) { throw refusal }
        switch kind {
        case .traceStore, .insta360, .other: throw IMUJobError("\(file): \(IMUImportJob.unknownFormat)")
        case .blackbox, .blackboxCSV, .dataflash, .movie, .text: return kind
        }
    }
}

public final class IMUImportJob: Job {
    public let options: IMUImportOptions
    private var file: String { options.file }
    private var store: String { options.store }
    private var busyTimeout: Double { options.busyTimeout }
    private let cancellation = CancellationToken()

    /// Progress: readings imported over every trace (the total where the readers know it).
    private let events: JobEvents
    public init(options: IMUImportOptions, events: JobEvents = JobEvents()) { self.options = options; self.events = events }

    /// Why a file without a known extension or content is refused.
    public static let unknownFormat = "cannot tell the format (not a blackbox or DataFlash log, and not named .gcsv or .csv); add --format gcsv or --format csv."

    public static let cancelled = IMUJobError("interrupted: nothing was imported")

    /// Stops a running import from another thread (the CLI, on a stop signal): `run` throws
    /// `IMUImportJob.cancelled` at its next batch, after rolling back.
    public func cancel() { cancellation.cancel() }

    private var isCancelled: Bool { cancellation.isCancelled }

    public func run() throws -> IMUImportResult {
        let kind = try options.kind()
        // The store is the output: never one of the files read, under any spelling.
        do { try OutputPath.checkPlace(store, inputs: [file]) } catch let e as OutputPathError { throw IMUJobError(e.description) }
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
        var notes: [String] = []
        let readers: [TraceBatches]
        switch kind {
        case .blackbox:
            // Each log is decoded twice (counted, then handed to the store in batches) rather
            // than held: memory stays flat in the log's length.
            let blackbox = try BlackboxFileReader(path: file)
            readers = blackbox.traces.map { BlackboxTraceBatches(blackbox, $0) }
            notes = blackbox.skipped.map { "\(file): \($0)" } + blackbox.traces.flatMap(\.warnings)
        case .text(let format):
            readers = [try TraceFileReader(path: file, format: format)]
        case .movie:
            readers = [InMemoryTraceBatches(try EmbeddedTelemetry.read(path: file))]
        default:
            let source = try TraceSource.open(path: file)
            readers = (source.decodedTraces ?? []).map { InMemoryTraceBatches($0) }
            notes = source.warnings
        }
        // A file's first batches say whether it holds samples; a blackbox file's logs were counted
        // (and a first batch of each of its many logs would be held through the whole import).
        let first: [[IMUReading]?] = kind == .blackbox ? readers.map { _ in nil } : try readers.map { try $0.nextBatch() }
        guard !first.isEmpty, first.allSatisfy({ $0.map { !$0.isEmpty } ?? true }) else { throw IMUJobError("\(file): no samples") }
        if isCancelled { throw Self.cancelled }
        if exists && !isEmpty {
            let s = try TraceStore(path: store, mode: .create, busyTimeout: busyTimeout)
            let result: IMUImportResult
            do { result = try importAll(readers, first, notes, into: s) } catch { try? s.close(); throw error }
            try? s.close()  // after the commit: tidying only
            return result
        }
        return try importIntoNewStore(readers, first, notes, replacingEmptyFile: isEmpty)
    }

    /// A store the user cannot write (its mode, a read-only mount) is refused before SQLite
    /// opens it: opening it would make -wal/-shm files beside it and then fail.
    static func checkWritable(_ store: String) throws {
        let fd = open(store, O_WRONLY | O_CLOEXEC)
        if fd < 0 { throw TraceStoreError(path: store, "cannot be written (\(String(cString: strerror(errno)))); nothing was imported") }
        close(fd)
        let folder = URL(fileURLWithPath: store).deletingLastPathComponent().path
        if access(folder, W_OK) != 0 {
            throw TraceStoreError(
                path: store, "cannot be written: its folder \(folder) is not writable (\(String(cString: strerror(errno)))), and SQLite writes its journal there; nothing was imported")
        }
    }

    private func importIntoNewStore(_ readers: [TraceBatches], _ first: [[IMUReading]?], _ notes: [String], replacingEmptyFile: Bool) throws -> IMUImportResult {
        do {
            // Linked rather than renamed into place: a store made meanwhile under that name is
            // not replaced (only the empty file found at the start is).
            return try OutputPath.writing(to: store, landing: replacingEmptyFile ? .replacing : .whereNothingIs) { file in
                let s = try TraceStore(path: file.path, mode: .create, busyTimeout: busyTimeout)
                let result: IMUImportResult
                do { result = try importAll(readers, first, notes, into: s) } catch { try? s.close(); throw error }
                try? s.close()
                return result
            }
        } catch let taken as OutputPath.NameTaken {
            let why = taken.code == EEXIST ? "appeared while importing; import again to append to it" : String(cString: strerror(taken.code))
            throw TraceStoreError(path: store, "cannot be made (\(why))")
        }
    }

    private func importAll(_ readers: [TraceBatches], _ first: [[IMUReading]?], _ notes: [String], into s: TraceStore) throws -> IMUImportResult {
        let counts = readers.map(\.expectedReadings)
        let expected = counts.allSatisfy { $0 != nil } ? Int64(counts.reduce(0) { $0 + $1! }) : nil
        var done: Int64 = 0
        let ids = try s.importTraces(readers.map(\.trace)) { k, append in
            var batch = try first[k] ?? readers[k].nextBatch()
            while !batch.isEmpty {
                // The store would refuse these too, but naming itself: the file holds them.
                if let problem = IMUReading.firstProblem(in: batch) {
                    throw IMUJobError("\(file): \(problem); nothing was imported")
                }
                try append(batch)
                done += Int64(batch.count)
                events.progress?(done, expected)
                if isCancelled { throw Self.cancelled }
                batch = try readers[k].nextBatch()
            }
        }
        // The traces are committed: what follows only describes them.
        var traces: [(id: Int64, statistics: TraceStatistics)] = []
        var gapWarnings: [String] = []
        for id in ids {
            guard let stats = try? TraceSource.store(s, trace: id).statistics(id) else {
                traces.append((id, TraceStatistics.measure { _ in }))
                continue
            }
            traces.append((id, stats))
            if stats.gapCount > 0 {
                var w =
                    "\(file)\(ids.count > 1 ? " (trace \(id))" : ""): \(stats.gapCount) gap\(stats.gapCount == 1 ? "" : "s") (steps over twice the median \(secondsText(stats.medianInterval ?? 0)))"
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
}
