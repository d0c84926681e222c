import ArgumentParser
import Dispatch
import Foundation
import Lockstep

struct IMUImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Append a trace file to a store as a new trace (a blackbox file: one per log); prints the new ids.",
        discussion: """
            The import is one transaction: a bad line, a failure or Ctrl-C/SIGTERM/SIGHUP leave the store as it was \
            (and make no store when there was none). Exit status 130, 143 or 129 after a signal.
            """)

    @Argument(help: ArgumentHelp("The trace file: .gcsv, .csv, a Betaflight/INAV blackbox log (.bbl, .bfl, .txt) or blackbox_decode CSV, or a GoPro/CAMM movie.", valueName: "file")) var file: String
    @Option(name: .shortAndLong, help: ArgumentHelp("The store (made if absent).", valueName: "store")) var output: String
    @Option(help: "The file's format; by default from its content (blackbox), else its extension.") var format: TraceFormat?

    func validate() throws {
        if format == nil && TraceFormat(path: file) == nil && !EmbeddedTelemetry.isMovie(path: file) && MotionFiles.kind(path: file) == .other {
            throw ValidationError("\(file): \(IMUImportJob.unknownFormat)")
        }
        if TraceFormat(path: output) != nil {
            throw ValidationError("\(output): the store is a SQLite file, not a .gcsv or .csv; name it e.g. traces.sqlite.")
        }
    }

    func run() throws {
        let job = try IMUImportJob(file: file, format: format, store: output)
        let result = try withImportSignals(job) { try job.run() }
        for warning in result.warnings { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
        for t in result.traces { print(t.id) }
    }
}

/// Runs the import with SIGINT, SIGTERM and SIGHUP turned into `job.cancel()`: the import rolls
/// back and the process exits 128 + the signal. A read blocked where no batch ends (a FIFO with no
/// writer) is not waited for beyond five seconds: the job's temporary store is removed and the
/// process exits (SQLite rolls back an open transaction of a process that is gone).
private func withImportSignals<T>(_ job: IMUImportJob, _ body: () throws -> T) throws -> T {
    let queue = DispatchQueue(label: "lockstep.imu.import.signals")
    let caught = FirstSignal()
    let sources = [SIGINT, SIGTERM, SIGHUP].map { sig -> DispatchSourceSignal in
        signal(sig, SIG_IGN)
        let s = DispatchSource.makeSignalSource(signal: sig, queue: queue)
        s.setEventHandler {
            caught.record(sig)
            job.cancel()
            queue.asyncAfter(deadline: .now() + 5) {
                job.abandon()
                FileHandle.standardError.write(Data("Error: \(IMUImportJob.cancelled)\n".utf8))
                _exit(128 + sig)
            }
        }
        s.resume()
        return s
    }
    defer { for s in sources { s.cancel() } }
    do {
        return try body()
    } catch let e as IMUJobError where e == IMUImportJob.cancelled {
        FileHandle.standardError.write(Data("Error: \(e)\n".utf8))
        throw ExitCode(128 + (caught.number ?? SIGINT))
    }
}

/// The first signal that arrived (set on the signal queue, read on the main thread).
private final class FirstSignal: @unchecked Sendable {   // `lock` guards `first`
    private let lock = NSLock()
    private var first: Int32?
    func record(_ sig: Int32) { lock.withLock { if first == nil { first = sig } } }
    var number: Int32? { lock.withLock { first } }
}
