import ArgumentParser
import Foundation
import Motion
import TraceStore

struct IMUExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a stored trace (or a time window of it) as .gcsv or .csv.")

    @Argument(help: ArgumentHelp("The trace store.", valueName: "store")) var store: String
    @Option(help: "The trace; needed when the store holds several.") var trace: Int64?
    @Option(help: ArgumentHelp("Start, in seconds from the trace's first sample.", valueName: "s")) var from: Double?
    @Option(help: ArgumentHelp("End (excluded), in seconds from the trace's first sample.", valueName: "s")) var to: Double?
    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write: .gcsv or .csv.", valueName: "file")) var output: String

    func validate() throws {
        guard TraceFormat(path: output) != nil else { throw ValidationError("\(output): the output must end in .gcsv or .csv.") }
        if let from, !(from >= 0 && from.isFinite) { throw ValidationError("--from must be zero or more seconds.") }
        if let to, !(to > 0 && to.isFinite) { throw ValidationError("--to must be a positive number of seconds.") }
        if let from, let to, to <= from { throw ValidationError("--to must be after --from.") }
    }

    func run() throws {
        let traces = try TraceStore(path: store, mode: .readOnly)
        let source = IMUTraceSource.store(traces)
        let t = try source.single(trace, path: store)
        guard let start = try traces.firstTimestamp(t.id) else { throw IMUFailure("\(store): trace \(t.id) has no samples") }
        let lo = from.map { start + Int64(($0 * 1e9).rounded()) }, hi = to.map { start + Int64(($0 * 1e9).rounded()) }
        let writer = try TraceFileWriter(path: output, format: TraceFormat(path: output)!, info: t.info, hasAccel: t.hasAccel)
        do {
            try source.forEachBatch(t.id, from: lo, to: hi) { try writer.write($0) }
            try writer.finish()
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw error
        }
        FileHandle.standardError.write("wrote \(writer.count) samples of trace \(t.id) to \(output)\n".data(using: .utf8)!)
    }
}
