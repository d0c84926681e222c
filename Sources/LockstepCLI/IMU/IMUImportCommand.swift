import ArgumentParser
import Foundation
import Lockstep

struct IMUImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Append a trace file to a store as a new trace (a blackbox file: one per log); prints the new ids.",
        discussion: """
            The import is one transaction: a bad line, a failure, a busy store or a stop signal (Ctrl-C, SIGTERM, \
            SIGHUP, ...) leave the store as it was (and make no store when there was none). A store another \
            process is using (an import, a recording, a long read) is waited for up to --busy-timeout seconds, \
            then the import stops storing nothing. Once the id is printed the trace is stored. A file that is \
            not a Lockstep store (another program's SQLite database) is refused untouched. Exit status 128 + \
            the signal after a signal (130 for Ctrl-C).
            """)

    @Argument(help: ArgumentHelp("The trace file: .gcsv, .csv, a Betaflight/INAV blackbox log (.bbl, .bfl, .txt) or blackbox_decode CSV, or a GoPro/CAMM movie.", valueName: "file")) var file: String
    @Option(name: .shortAndLong, help: ArgumentHelp("The store (made if absent).", valueName: "store")) var output: String
    @Option(help: "The file's format; by default from its content (blackbox), else its extension.") var format: TraceFormat?
    @Option(name: .customLong("busy-timeout"), help: ArgumentHelp("Seconds to wait for a store another process holds (0 to 3600).", valueName: "s"))
    var busyTimeout: Double = TraceStore.defaultBusyTimeout

    @Flag(help: "No progress on stderr.") var quiet = false

    func validate() throws {
        if MotionFiles.kind(path: file, format: format) == .other {
            throw ValidationError("\(file): \(IMUImportJob.unknownFormat)")
        }
        if TraceFormat(path: output) != nil {
            throw ValidationError("\(output): the store is a SQLite file, not a .gcsv or .csv; name it e.g. traces.sqlite.")
        }
        guard (0...3600).contains(busyTimeout) else {
            throw ValidationError("--busy-timeout must be between 0 and 3600 seconds; got \(busyTimeout).")
        }
        try asUsage { try OutputPath.checkPlace(output, inputs: [file]) }
    }

    func run() throws {
        // A read blocked where no batch ends (a FIFO with no writer) is not waited for beyond
        // five seconds: the temporary store goes and the process exits (SQLite rolls back an
        // open transaction of a process that is gone).
        let result = try runJob(
            IMUImportJob.self, IMUImportOptions(file: file, format: format, store: output, busyTimeout: busyTimeout),
            quiet: quiet, unit: .readings, grace: 5, stuck: IMUImportJob.cancelled.description, cancelledLine: IMUImportJob.cancelled.description)
        for warning in result.warnings { printWarning(warning) }
        for t in result.traces { print(t.id) }
    }
}
