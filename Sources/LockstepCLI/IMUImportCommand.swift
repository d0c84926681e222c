import ArgumentParser
import Foundation
import Motion
import TraceStore

struct IMUImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Append a .gcsv or .csv trace to a store as a new trace; prints its id.")

    @Argument(help: ArgumentHelp("The trace file.", valueName: "file")) var file: String
    @Option(name: .shortAndLong, help: ArgumentHelp("The store (made if absent).", valueName: "store")) var output: String
    @Option(help: "The file's format; by default from its extension.") var format: TraceFormat?

    func validate() throws {
        if format == nil && TraceFormat(path: file) == nil {
            throw ValidationError("\(file): cannot tell the format from the extension; add --format gcsv or --format csv.")
        }
        if TraceFormat(path: output) != nil {
            throw ValidationError("\(output): the store is a SQLite file, not a .gcsv or .csv; name it e.g. traces.sqlite.")
        }
    }

    func run() throws {
        let reader = try TraceFileReader(path: file, format: format ?? TraceFormat(path: file)!)
        var batch = try reader.next()
        guard !batch.isEmpty else { throw IMUFailure("\(file): no samples") }
        let store = try TraceStore(path: output, mode: .create)
        let id = try store.createTrace(reader.info, hasAccel: reader.hasAccel)
        do {
            while !batch.isEmpty {
                try store.append(batch, to: id)    // one transaction per batch
                batch = try reader.next()
            }
        } catch {
            try? store.deleteTrace(id)
            throw error
        }
        let stats = try IMUTraceSource.store(store).statistics(id)
        try store.close()
        if stats.gapCount > 0 {
            var line = "warning: \(file): \(stats.gapCount) gap\(stats.gapCount == 1 ? "" : "s") (steps over twice the median \(seconds(stats.medianInterval ?? 0)))"
            if let g = stats.gaps.first { line += "; the first at \(seconds(g.start - stats.first!)), \(seconds(g.length)) long" }
            FileHandle.standardError.write((line + "\n").data(using: .utf8)!)
        }
        print(id)
    }
}
