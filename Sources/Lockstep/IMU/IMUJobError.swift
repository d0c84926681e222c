import Engine
import Foundation

/// A failure of an IMU job (`imu import`, `export`, `plot`, `serve`, `record`) or of reading a
/// trace for any command (`TraceSource`), as one line naming the file (or store) and the cause.
public enum IMUJobError: JobFailure, Equatable {
    // Choosing a trace.
    /// A file that holds one trace (1), asked for trace `asked`.
    case oneTraceOnly(String, asked: Int64)
    case noSuchTrace(String, trace: Int64)
    /// A blackbox log without log `trace`; `logs`: the logs with samples.
    case noSuchLog(String, trace: Int64, logs: [Int64])
    /// A DataFlash log without trace `trace` (IMU trace-1); `imus`: its traces with samples.
    case noSuchIMU(String, trace: Int64, imus: [Int64])
    case noTraces(String)
    case severalTraces(String, traces: [Int64])
    // Its samples.
    /// `problem`: the first reading that is not a sample (`IMUReading.firstProblem`).
    case notASample(String, problem: String)
    case tooFewSamples(String)
    case traceHasNoSamples(String, trace: Int64)
    // import.
    case unknownFormat(String)
    case noSamples(String)
    case notASampleNothingImported(String, problem: String)
    case importInterrupted
    // export and plot.
    case notATraceFileName(String)
    /// `window` ("--from 30 --to 40") holds no sample of trace `trace` of `store`; `span`, where
    /// known, is how long the trace runs (s).
    case emptyWindow(window: String, trace: Int64, store: String, span: Double?)
    // serve and record.
    case notReplayable(String, trace: Int64, why: String)
    /// The server could not start (its own line).
    case serverFailed(String)
    case portOutOfRange(Int)
    case speedNotAFactor(Double)
    case speedOutOfRange(Double, lowest: Double, highest: Int)
    case maxConnectionsOutOfRange(Int, highest: Int)
    case idleTimeoutOutOfRange(Double)
    case rateNotPositive
    case durationNotPositive
    case storeNamedAsTraceFile(String)

    public var description: String {
        switch self {
        case .oneTraceOnly(let path, let asked): "\(path) holds one trace (1); there is no trace \(asked)"
        case .noSuchTrace(let path, let trace): "\(path) has no trace \(trace)"
        case .noSuchLog(let path, let trace, let logs): "\(path) has no trace \(trace) (its logs with samples: \(Self.list(logs)))"
        case .noSuchIMU(let path, let trace, let imus): "\(path) has no trace \(trace) (its IMUs with samples: \(Self.list(imus)); trace N is IMU N-1)"
        case .noTraces(let path): "\(path) holds no trace"
        case .severalTraces(let path, let traces): "\(path) holds \(traces.count) traces (\(Self.list(traces))): pick one with --trace"
        case .notASample(let path, let problem): "\(path): \(problem)"
        case .tooFewSamples(let path): "\(path): fewer than two samples"
        case .traceHasNoSamples(let path, let trace): "\(path): trace \(trace) has no samples"
        case .unknownFormat(let file): "\(file): \(IMUImportJob.unknownFormat)"
        case .noSamples(let file): "\(file): no samples"
        case .notASampleNothingImported(let file, let problem): "\(file): \(problem); nothing was imported"
        case .importInterrupted: "interrupted: nothing was imported"
        case .notATraceFileName(let output): "\(output): the output must end in .gcsv or .csv."
        case .emptyWindow(let window, let trace, let store, let span):
            "\(window): trace \(trace) of \(store) has no samples there\(span.map { String(format: "; it runs from 0 to %.3f s", $0) } ?? ""); nothing was written"
        case .notReplayable(let path, let trace, let why): "\(path): trace \(trace): \(why)"
        case .serverFailed(let why): why
        case .portOutOfRange(let port): "--port must be between 0 and 65535; got \(port)."
        case .speedNotAFactor(let speed): "--speed must be 0 (as fast as possible) or a positive factor; got \(speed)."
        case .speedOutOfRange(let speed, let lowest, let highest):
            "--speed must be 0 (as fast as possible) or between \(lowest) and \(highest); got \(speed)."
        case .maxConnectionsOutOfRange(let n, let highest): "--max-connections must be between 1 and \(highest); got \(n)."
        case .idleTimeoutOutOfRange(let t): "--idle-timeout must be between 0.1 and 86400 seconds; got \(t)."
        case .rateNotPositive: "--rate must be a positive number of samples per second."
        case .durationNotPositive: "--duration must be a positive number of seconds."
        case .storeNamedAsTraceFile(let output): "\(output): the store is a SQLite file, not a .gcsv or .csv; name it e.g. trace.sqlite."
        }
    }

    /// "1, 3, 4".
    private static func list(_ traces: [Int64]) -> String { traces.map { String($0) }.joined(separator: ", ") }
}
