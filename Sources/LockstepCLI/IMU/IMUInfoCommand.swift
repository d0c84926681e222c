import ArgumentParser
import Foundation
import Lockstep

struct IMUInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Per trace: samples, duration, measured rate, jitter, gaps and clock.")

    @Argument(help: ArgumentHelp("A trace store, a .gcsv or .csv file, a blackbox log (one trace per log) or a camera file.", valueName: "store|file")) var path: String
    @Option(help: "Only this trace of the store.") var trace: Int64?
    @Flag(help: "A JSON document instead of text.") var json = false

    func run() throws {
        let source = try TraceSource.open(path: path, trace: trace)
        for w in source.warnings { FileHandle.standardError.write(Data("warning: \(w)\n".utf8)) }
        let reports = try IMUInfoJob.reports(source)
        if json { return print(try IMUInfoJob.json(reports)) }
        if reports.isEmpty { print("\(path): no traces") }
        for r in reports { print(r.text, terminator: "") }
    }
}
