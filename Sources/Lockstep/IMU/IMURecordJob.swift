import Foundation
import IIO
import Motion
import TraceStore

/// `lockstep imu record`: records a gyro (and accelerometer) through libiio into a new trace of a
/// store, one transaction per buffer refill, until Ctrl-C, SIGTERM, SIGHUP, --duration or a failure.
public struct IMURecordOptions: Sendable {
    public var uri: String
    /// The gyro device by name or id; nil = the first with anglvel_x/y/z.
    public var device: String?
    /// Written to the device's sampling_frequency first.
    public var rateHz: Double?
    /// Seconds of sample time to record.
    public var duration: Double?
    public var accel = false
    /// The store (made if absent).
    public var output: String

    public init(uri: String, device: String? = nil, rateHz: Double? = nil, duration: Double? = nil, accel: Bool = false, output: String) {
        self.uri = uri; self.device = device; self.rateHz = rateHz; self.duration = duration; self.accel = accel; self.output = output
    }

    /// What is wrong with the options, as a sentence naming the option; nil when nothing is.
    public var problem: String? {
        if let rateHz, !(rateHz > 0 && rateHz.isFinite) { return "--rate must be a positive number of samples per second." }
        if let duration, !(duration > 0 && duration.isFinite && duration <= 9e9) { return "--duration must be a positive number of seconds." }
        if TraceFormat(path: output) != nil {
            return "\(output): the store is a SQLite file, not a .gcsv or .csv; name it e.g. trace.sqlite."
        }
        return nil
    }
}

/// Records until cancelled (the CLI stops it on SIGINT, SIGTERM and SIGHUP, and a recording ends
/// differently by signal: `stop(by:)`), --duration or a failure. Its notices are the opening
/// line; its progress the samples stored after each commit.
public final class IMURecordJob: Job {
    public let options: IMURecordOptions
    private let events: JobEvents
    private let stopRequest = StopRequest()

    public init(options: IMURecordOptions, events: JobEvents = JobEvents()) { self.options = options; self.events = events }

    /// An asked-for end, as Ctrl-C is.
    public func cancel() { stop(by: SIGINT) }

    /// Ends the recording cleanly, everything received kept; the outcome names the signal
    /// (Ctrl-C is an asked-for end, SIGTERM and SIGHUP are not).
    public func stop(by signal: Int32) { stopRequest.request(signal) }

    /// How a recording ended.
    public struct Outcome: Equatable, Sendable {
        public var stop: RecorderStateMachine.Stop
        /// Samples stored: every one of them is in the store.
        public var samples: Int
        /// The trace made, nil when recording never started.
        public var trace: Int64?
        public var output: String

        /// The closing line: "stopped by Ctrl-C: 812 samples in trace 1 of s.sqlite", or
        /// "Error: recording failed: why (812 samples in trace 1 of s.sqlite)".
        public var message: String {
            let kept = trace.map { "\(samples) samples in trace \($0) of \(output)" } ?? "nothing recorded"
            return stop.wasAskedFor ? "\(stop.sentence): \(kept)" : "Error: \(stop.sentence) (\(kept))"
        }
    }

    public func run() throws -> Outcome {
        let o = options, output = options.output
        if let problem = o.problem { throw IMUJobError(problem) }
        let store = try TraceStore(path: output, mode: .record)
        let sink = StoreSink(store: store, log: events.notice ?? { _ in })
        let recorder = Recorder(options: RecorderOptions(uri: o.uri, device: o.device, rateHz: o.rateHz, duration: o.duration, accel: o.accel))
        stopRequest.onRequest { sig in recorder.stop(Self.stop(for: sig)) }
        let progress = events.progress
        let (stop, samples) = recorder.run(into: sink) { progress?(Int64($0), nil) }
        // A failed checkpoint (a full disk) loses nothing: the committed samples are in the WAL.
        try? store.close()
        return Outcome(stop: stop, samples: samples, trace: sink.trace, output: output)
    }

    /// Why a stop signal ended the recording.
    static func stop(for signal: Int32) -> RecorderStateMachine.Stop {
        switch signal {
        case SIGINT: .interrupted
        case SIGHUP: .hungUp
        default: .terminated
        }
    }
}

/// The recorder's sink: each refill's samples in one transaction of the store.
final class StoreSink: RecorderSink {
    let store: TraceStore
    let log: @Sendable (String) -> Void
    private(set) var trace: Int64?
    init(store: TraceStore, log: @escaping @Sendable (String) -> Void) { self.store = store; self.log = log }

    func begin(_ info: TraceInfo, hasAccel: Bool) throws {
        let id = try store.createTrace(info, hasAccel: hasAccel)
        trace = id
        log("recording \(info.deviceName) from \(info.sourceURI) into \(store.path) as trace \(id)")
    }

    func commit(_ samples: [IMUReading]) throws {
        guard let trace else { return }
        try store.append(samples, to: trace)
    }
}
