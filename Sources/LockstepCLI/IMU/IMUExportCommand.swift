import ArgumentParser
import Foundation
import Lockstep

struct IMUExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a stored trace (or a time window of it) as .gcsv or .csv.")

    @Argument(help: ArgumentHelp("The trace store.", valueName: "store")) var store: String
    @Option(parsing: .unconditional, help: "The trace; needed when the store holds several.") var trace: Int64?
    @Option(parsing: .unconditional, help: ArgumentHelp("Start, in seconds from the trace's first sample.", valueName: "s")) var from: Double?
    @Option(parsing: .unconditional, help: ArgumentHelp("End (excluded), in seconds from the trace's first sample.", valueName: "s")) var to: Double?
    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write: .gcsv or .csv.", valueName: "file")) var output: String

    func validate() throws {
        try checkTrace(trace)
        try asUsage { try OutputPath.refuseStandardOutput(output) }
        guard TraceFormat(path: output) != nil else { throw ValidationError("\(output): the output must end in .gcsv or .csv.") }
        if let from, !(from >= 0 && from.isFinite) { throw ValidationError("--from must be zero or more seconds.") }
        if let to, !(to > 0 && to.isFinite) { throw ValidationError("--to must be a positive number of seconds.") }
        if let from, let to, to <= from { throw ValidationError("--to must be after --from.") }
        // Before anything is read: the output is never the trace it exports, under any spelling.
        try asUsage { try OutputPath.checkPlace(output, inputs: [store]) }
    }

    func run() throws {
        let r = try runJob(IMUExportJob.self, IMUExportOptions(store: store, trace: trace, from: from, to: to, output: output), grace: 5)
        FileHandle.standardError.write(Data("wrote \(r.count) samples of trace \(r.trace) to \(output)\n".utf8))
    }
}
