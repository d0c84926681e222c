import ArgumentParser
import Foundation
import Lockstep

extension TraceFormat: ExpressibleByArgument {}

/// The old CLI-side `STORE|FILE` reader, now a thin wrapper of the library's `TraceSource`, kept
/// only so `imu serve` (IMUServeCommand.swift, moving into the library separately) builds as is.
struct IMUTraceSource {
    let path: String
    init(path: String) throws {
        self.path = path
        _ = try TraceSource.open(path: path)    // fail now, as before, on a missing file or a non-store
    }

    func single(_ id: Int64?, path: String) throws -> StoredTrace { try TraceSource.open(path: self.path, trace: id).single() }

    func forEachBatch(_ trace: Int64, from: Int64? = nil, to: Int64? = nil, _ body: ([IMUReading]) throws -> Void) throws {
        try TraceSource.open(path: path, trace: trace).forEachBatch(trace, from: from, to: to, body)
    }
}

/// A failure reported as one line, "Error: ...", exit status 1.
struct IMUFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
