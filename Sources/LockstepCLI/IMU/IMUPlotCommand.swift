import ArgumentParser
import Foundation
import Lockstep

struct IMUPlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw the three angular rates over time as SVG, gaps shaded.")

    @Argument(help: ArgumentHelp("A trace store, or a .gcsv or .csv file.", valueName: "store|file")) var path: String
    @Option(parsing: .unconditional, help: "The trace; needed when the store holds several.") var trace: Int64?
    @Option(name: .shortAndLong, help: ArgumentHelp("The picture to write (.svg).", valueName: "out.svg")) var output: String

    func validate() throws {
        try checkTrace(trace)
        try asUsage { try OutputPath.refuseStandardOutput(output) }
        guard output.lowercased().hasSuffix(".svg") else { throw ValidationError("\(output): the output must end in .svg.") }
        try asUsage { try OutputPath.checkPlace(output, inputs: [path]) }
    }

    func run() throws {
        try runJob(IMUPlotJob.self, IMUPlotOptions(path: path, trace: trace, output: output), grace: 5)
    }
}
