import Foundation

/// A failure of an IMU job, as one line naming the file (or store) and the cause.
public struct IMUJobError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Where a trace's samples come from, read the same way whatever it is. What the file is, is
/// `MotionFiles.kind`'s one answer (content first, then the name):
/// - a trace store: one trace of it, or all;
/// - a `.gcsv` or `.csv` file: trace 1, streamed;
/// - a movie with its own telemetry (GoPro GPMF, Google CAMM): trace 1, its samples on the
///   video's clock (ns from the first frame), decoded once when opened;
/// - a blackbox log (`.bbl`, `.bfl`, `.txt`, or any name): one trace per log with samples,
///   numbered by the log's place in the file (`--trace 3` is the third log, as blackbox_decode
///   --index counts); a blackbox_decode CSV: trace 1; an ArduPilot DataFlash log: one trace per
///   IMU (`--trace 1` is IMU 0); an Insta360 file is refused naming its format.
/// Every trace is a `MotionTrace`; `traces()` describes them, the readings calls stream them.
public enum TraceSource {
    case store(TraceStore, trace: Int64?)
    case gcsv(String)
    case csv(String)
    /// A movie's own telemetry, decoded whole (its readings, orientation records and stated axes).
    case camera(MotionTrace)
    /// Traces decoded whole from a file (all of them; `trace` picks one), and sentences about
    /// what the reader skipped (corrupt frames, truncation, empty logs).
    case decoded(path: String, traces: [MotionTrace], trace: Int64?, notes: [String])

    /// A `STORE|FILE` path, read as `MotionFiles.kind(path:format:)` says; a store is opened
    /// read-only. `trace` picks one trace of a store or log; a file holding one has only trace 1.
    /// `readMovie` decodes a movie's telemetry: a command that also needs the movie's records
    /// hands in its own, so the movie is decoded once per run (`MotionInputs`).
    public static func open(
        path: String, trace: Int64? = nil, format: TraceFormat? = nil,
        readMovie: (String) throws -> MotionTrace = EmbeddedTelemetry.read(path:)
    ) throws -> TraceSource {
        let kind = MotionFiles.kind(path: path, format: format)
        if let refusal = MotionFiles.refusal(kind, path: path) { throw refusal }
        func one() throws {
            if let trace, trace != 1 { throw IMUJobError("\(path) holds one trace (1); there is no trace \(trace)") }
        }
        switch kind {
        case .blackbox:
            let (traces, skipped) = try MotionFiles.readBlackbox(path: path)
            if let trace, !traces.contains(where: { $0.id == trace }) {
                throw IMUJobError("\(path) has no trace \(trace) (its logs with samples: \(traces.map { String($0.id) }.joined(separator: ", ")))")
            }
            return .decoded(path: path, traces: traces, trace: trace, notes: skipped.map { "\(path): \($0)" })
        case .dataflash:
            let (traces, notes) = try MotionFiles.readDataFlash(path: path)
            if let trace, !traces.contains(where: { $0.id == trace }) {
                throw IMUJobError("\(path) has no trace \(trace) (its IMUs with samples: \(traces.map { String($0.id) }.joined(separator: ", ")); trace N is IMU N-1)")
            }
            return .decoded(path: path, traces: traces, trace: trace, notes: notes)
        case .blackboxCSV:
            try one()
            return .decoded(path: path, traces: [try MotionFiles.readBlackboxCSV(path: path)], trace: nil, notes: [])
        case .movie:
            try one()
            return .camera(try readMovie(path))
        case .text(let f):
            try one()
            guard FileManager.default.fileExists(atPath: path) else { throw TraceFileError(path: path, "no such file") }
            return f == .gcsv ? .gcsv(path) : .csv(path)
        case .traceStore, .insta360, .other:
            return .store(try TraceStore(path: path, mode: .readOnly), trace: trace)
        }
    }

    public var path: String {
        switch self {
        case .store(let s, _): s.path
        case .gcsv(let p), .csv(let p): p
        case .camera(let t): t.info.sourceURI
        case .decoded(let p, _, _, _): p
        }
    }

    /// What the reader skipped or assumed, one sentence each naming the file (empty for most sources).
    public var warnings: [String] {
        guard case .decoded(_, let traces, let trace, let notes) = self else { return [] }
        return notes + traces.filter { trace == nil || $0.id == trace }.flatMap(\.warnings)
    }

    /// The decoded traces a file holds (the logs of a blackbox file), nil for other sources.
    public var decodedTraces: [MotionTrace]? {
        guard case .decoded(_, let traces, let trace, _) = self else { return nil }
        return traces.filter { trace == nil || $0.id == trace }
    }

    /// A trace file read front to back; nil for the sources that are not a trace file.
    private func fileReader() throws -> TraceFileReader? {
        switch self {
        case .gcsv(let p): try TraceFileReader(path: p, format: .gcsv)
        case .csv(let p): try TraceFileReader(path: p, format: .csv)
        case .store, .camera, .decoded: nil
        }
    }

    /// The samples of a trace already in memory (a camera file's track, a decoded log): handed
    /// out as they are, never cut into batches to be joined again. nil for a store or a trace
    /// file, which are read in batches.
    private func inMemory(_ trace: Int64) throws -> [IMUReading]? {
        switch self {
        case .camera(let t):
            guard trace == 1 else { throw IMUJobError("\(t.info.sourceURI) holds one trace (1); there is no trace \(trace)") }
            return try checked(t.readings)
        case .decoded(let path, let traces, _, _):
            guard let t = traces.first(where: { $0.id == trace }) else { throw IMUJobError("\(path) has no trace \(trace)") }
            return try checked(t.readings)
        case .store, .gcsv, .csv: return nil
        }
    }

    /// `readings`, if every one is a sample (`IMUReading.problem`, the rule `imu import` and the
    /// store apply): whatever a trace is read from and by whichever command, a value that is not
    /// a finite number or is past any sensor is refused naming the file, the time and the value
    /// (a camera track holding inf was exported as "inf,inf,inf,-nan", and fed calibrate a
    /// search that matched nothing).
    private func checked<C: Collection>(_ readings: C) throws -> C where C.Element == IMUReading {
        if let problem = IMUReading.firstProblem(in: readings) { throw IMUJobError("\(path): \(problem)") }
        return readings
    }

    /// The traces to look at, described (their samples are streamed by the calls below): the one
    /// asked for, or all of a store's; a file holds one (id 1).
    public func traces() throws -> [MotionTrace] {
        switch self {
        case .store(let store, let id):
            if let id { return [try store.trace(id)] }
            return try store.traces()
        case .gcsv, .csv:
            // The format the case holds (`open` decided it), not the name again.
            let reader = try fileReader()!
            _ = try reader.next(max: 1)  // the columns say whether there is acceleration
            return [reader.trace]
        case .camera(let t):
            return [t.described]
        case .decoded:
            return decodedTraces!.map(\.described)
        }
    }

    /// Exactly one trace: the one asked for, or the only one there is.
    public func single() throws -> MotionTrace {
        let all = try traces()
        guard all.count == 1 else {
            if all.isEmpty { throw IMUJobError("\(path) holds no trace") }
            throw IMUJobError("\(path) holds \(all.count) traces (\(all.map { String($0.id) }.joined(separator: ", "))): pick one with --trace")
        }
        return all[0]
    }

    /// Streams a trace's samples with from <= t < to (absolute nanoseconds), in batches.
    /// (A trace in memory is handed out in batches of 4096 too, so that a consumer's memory
    /// and cancellation checks do not depend on the source.)
    public func forEachBatch(_ trace: Int64, from: Int64? = nil, to: Int64? = nil, _ body: ([IMUReading]) throws -> Void) throws {
        let lo = from ?? .min, hi = to ?? .max, whole = from == nil && to == nil
        if case .store(let store, _) = self { return try store.forEachBatch(of: trace, from: from, to: to) { try body(try checked($0)) } }
        if let all = try inMemory(trace) {
            for start in stride(from: 0, to: all.count, by: 4096) {
                let batch = all[start..<min(all.count, start + 4096)]
                let kept = whole ? Array(batch) : batch.filter { $0.t >= lo && $0.t < hi }
                if !kept.isEmpty { try body(kept) }
            }
            return
        }
        let reader = try fileReader()!
        while true {
            let batch = try checked(try reader.next())
            if batch.isEmpty { return }
            let kept = whole ? batch : batch.filter { $0.t >= lo && $0.t < hi }
            if !kept.isEmpty { try body(kept) }
        }
    }

    /// Every sample of `trace` in one array: as it is for a trace in memory, streamed for a store
    /// or a file.
    public func readings(of trace: Int64) throws -> [IMUReading] {
        if let all = try inMemory(trace) { return all }
        var all: [IMUReading] = []
        try forEachBatch(trace) { all += $0 }
        return all
    }

    /// The first sample's time of a trace, if it has any.
    public func firstTimestamp(_ trace: Int64) throws -> Int64? {
        switch self {
        case .store(let store, _): return try store.firstTimestamp(trace)
        case .decoded(_, let traces, _, _): return traces.first { $0.id == trace }?.readings.first?.t
        case .camera(let t): return t.readings.first?.t
        case .gcsv, .csv: return try fileReader()!.next().first?.t
        }
    }

    /// Rate, jitter and gaps of a trace (two streaming passes).
    public func statistics(_ trace: Int64) throws -> TraceStatistics {
        try TraceStatistics.measure { visit in
            try forEachBatch(trace) { batch in for s in batch { visit(s.t) } }
        }
    }

    /// All samples of the one trace, for fusion (snake, calibrate): at least two.
    public func readings() throws -> [IMUReading] {
        let all = try readings(of: try single().id)
        guard all.count >= 2 else { throw IMUJobError("\(path): fewer than two samples") }
        return all
    }

    /// The one trace's samples with `window.lowerBound <= t <= window.upperBound` (its own clock,
    /// ns): what a clip needs of a long trace. A store reads the range by its index; a file is
    /// streamed and only the window kept, so memory follows the window, not the trace (a 2 s
    /// snake took 1 GB with a 1-hour trace). nil: every sample.
    public func readings(within window: ClosedRange<Int64>?) throws -> [IMUReading] {
        guard let window else { return try readings() }
        let chosen = try single()
        // The same samples as the stream below keeps: t <= upperBound, or t < .max for "no end".
        let end = window.upperBound == .max ? Int64.max : window.upperBound + 1
        if let all = try inMemory(chosen.id) { return all.filter { $0.t >= window.lowerBound && $0.t < end } }
        var kept: [IMUReading] = []
        try forEachBatch(chosen.id, from: window.lowerBound, to: end) { kept += $0 }
        return kept
    }

    /// The first and last readings of the one trace (one streaming pass for a file).
    public func ends() throws -> (first: IMUReading, last: IMUReading)? {
        let chosen = try single()
        if let all = try inMemory(chosen.id) {
            guard let first = all.first, let last = all.last, first.t < last.t else { return nil }
            return (first, last)
        }
        var first: IMUReading?, last: IMUReading?
        try forEachBatch(chosen.id) { batch in
            if first == nil { first = batch.first }
            if let r = batch.last { last = r }
        }
        guard let first, let last, first.t < last.t else { return nil }
        return (first, last)
    }

    /// `open(path:trace:).readings()`: the whole-trace loader of snake and calibrate.
    public static func readings(_ path: String, trace: Int64?) throws -> [IMUReading] {
        try open(path: path, trace: trace).readings()
    }
}

/// Seconds with milliseconds, for people.
func secondsText(_ ns: Int64) -> String { String(format: "%.3f s", Double(ns) / 1e9) }
