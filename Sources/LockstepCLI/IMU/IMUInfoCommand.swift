import ArgumentParser
import Foundation
import Lockstep

struct IMUInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Per trace: samples, duration, measured rate, jitter, gaps and clock.")

    @Argument(help: ArgumentHelp("A trace store, a .gcsv or .csv file, a blackbox log (one trace per log) or a camera file.", valueName: "store|file")) var path: String
    @Option(parsing: .unconditional, help: "Only this trace of the store.") var trace: Int64?
    @Flag(help: "A JSON document instead of text.") var json = false

    func validate() throws { try checkTrace(trace) }

    func run() throws {
        let reports = try runJob(IMUInfoJob.self, IMUInfoOptions(path: path, trace: trace), notice: printWarning, grace: 5)
        if json { return print(try IMUInfoJob.json(reports)) }
        if reports.isEmpty { print("\(path): no traces") }
        for r in reports { print(r.text, terminator: "") }
    }
}
