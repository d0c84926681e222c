import ArgumentParser
import Foundation
import Motion
import TraceStore

struct IMUPlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw the three angular rates over time as SVG, gaps shaded.")

    @Argument(help: ArgumentHelp("A trace store, or a .gcsv or .csv file.", valueName: "store|file")) var path: String
    @Option(help: "The trace; needed when the store holds several.") var trace: Int64?
    @Option(name: .shortAndLong, help: ArgumentHelp("The picture to write (.svg).", valueName: "out.svg")) var output: String

    func validate() throws {
        guard output.lowercased().hasSuffix(".svg") else { throw ValidationError("\(output): the output must end in .svg.") }
    }

    func run() throws {
        let source = try IMUTraceSource(path: path)
        let t = try source.single(trace, path: path)
        let stats = try source.statistics(t.id)
        guard let first = stats.first, let last = stats.last else { throw IMUFailure("\(path): trace \(t.id) has no samples") }
        var plot = SVGPlot(start: first, end: last, gaps: stats.gaps, medianInterval: stats.medianInterval)
        try source.forEachBatch(t.id) { for s in $0 { plot.add(s) } }
        let title = "\(t.info.deviceName.isEmpty ? "trace \(t.id)" : t.info.deviceName): \(stats.count) samples, "
            + String(format: "%.3f s, %.1f Hz", Double(stats.duration) / 1e9, stats.rate ?? 0)
            + (stats.gapCount > 0 ? ", \(stats.gapCount) gap\(stats.gapCount == 1 ? "" : "s")" : "")
        do { try plot.render(title: title).write(toFile: output, atomically: true, encoding: .utf8) } catch {
            throw IMUFailure("\(output): cannot be written (\(error.localizedDescription))")
        }
    }
}
