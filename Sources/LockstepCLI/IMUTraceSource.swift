import ArgumentParser
import Foundation
import Motion
import TraceStore

extension TraceFormat: ExpressibleByArgument {}

/// A `STORE|FILE` argument: a trace store, or one trace in a .gcsv/.csv file, read the same way.
enum IMUTraceSource {
    case file(String, TraceFormat)
    case store(TraceStore)

    init(path: String) throws {
        if let format = TraceFormat(path: path) { self = .file(path, format) } else { self = .store(try TraceStore(path: path, mode: .readOnly)) }
    }

    /// The traces to look at: all of a store's, or the one asked for; a file holds one (id 1).
    func traces(_ id: Int64?) throws -> [StoredTrace] {
        switch self {
        case .file(let path, let format):
            if let id, id != 1 { throw IMUFailure("\(path) holds one trace (1); there is no trace \(id)") }
            let reader = try TraceFileReader(path: path, format: format)
            _ = try reader.next(max: 1)   // the columns say whether there is acceleration
            return [StoredTrace(id: 1, info: reader.info, hasAccel: reader.hasAccel)]
        case .store(let store):
            if let id { return [try store.trace(id)] }
            return try store.traces()
        }
    }

    /// Exactly one trace: the one asked for, or the only one there is.
    func single(_ id: Int64?, path: String) throws -> StoredTrace {
        let all = try traces(id)
        guard all.count == 1 else {
            if all.isEmpty { throw IMUFailure("\(path) holds no trace") }
            throw IMUFailure("\(path) holds \(all.count) traces (\(all.map { String($0.id) }.joined(separator: ", "))): pick one with --trace")
        }
        return all[0]
    }

    /// Streams a trace's samples with from <= t < to (absolute nanoseconds), in batches.
    func forEachBatch(_ trace: Int64, from: Int64? = nil, to: Int64? = nil, _ body: ([IMUReading]) throws -> Void) throws {
        switch self {
        case .store(let store): try store.forEachBatch(of: trace, from: from, to: to, body)
        case .file(let path, let format):
            let reader = try TraceFileReader(path: path, format: format)
            while true {
                let batch = try reader.next()
                if batch.isEmpty { return }
                let kept = (from == nil && to == nil) ? batch : batch.filter { $0.t >= (from ?? .min) && $0.t < (to ?? .max) }
                if !kept.isEmpty { try body(kept) }
            }
        }
    }

    func statistics(_ trace: Int64) throws -> TraceStatistics {
        try TraceStatistics.measure { visit in
            try forEachBatch(trace) { batch in for s in batch { visit(s.t) } }
        }
    }
}

/// A failure reported as one line, "Error: ...", exit status 1.
struct IMUFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Seconds with milliseconds, for people.
func seconds(_ ns: Int64) -> String { String(format: "%.3f s", Double(ns) / 1e9) }
