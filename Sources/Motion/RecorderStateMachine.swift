/// The recorder's life as a pure state machine (after VideoSnake's capture session manager):
/// idle -> starting -> recording -> stopping -> idle. Events return the action the adapter must
/// take; nothing here touches a device, a clock or a file, so every path is tested without I/O.
public struct RecorderStateMachine: Sendable {
    public enum State: Equatable, Sendable {
        case idle, starting, recording
        case stopping(Stop)
    }

    /// Why recording ended. The first reason given wins.
    public enum Stop: Equatable, Sendable {
        /// Ctrl-C: the user's wish.
        case interrupted
        /// SIGTERM: someone other than the user at the keyboard ended it.
        case terminated
        /// SIGHUP: the terminal it ran in was closed (an ssh session dropped, a window shut).
        case hungUp
        case durationReached
        case sampleLimitReached
        /// The device failed or vanished; the message says how.
        case failed(String)

        /// Whether the end was the user's wish (Ctrl-C, --duration, the sample count); SIGTERM
        /// and SIGHUP ended it from elsewhere, and a failure is a failure.
        public var wasAskedFor: Bool {
            switch self {
            case .interrupted, .durationReached, .sampleLimitReached: true
            case .terminated, .hungUp, .failed: false
            }
        }

        public var sentence: String {
            switch self {
            case .interrupted: "stopped by Ctrl-C"
            case .terminated: "stopped by SIGTERM"
            case .hungUp: "stopped by SIGHUP"
            case .durationReached: "duration reached"
            case .sampleLimitReached: "sample count reached"
            case .failed(let why): "recording failed: \(why)"
            }
        }
    }

    public enum Action: Equatable, Sendable {
        case none
        /// Find the channels, enable them, create the buffer; then call `deviceOpened()` or `stop(.failed)`.
        case openDevice
        /// Store the first `keep` samples of the batch in one transaction; if `thenClose`, close the device next.
        case commit(keep: Int, thenClose: Bool)
        /// Release the buffer and context; then call `deviceClosed()`.
        case closeDevice
        /// Report and exit with the stop's status.
        case finish(Stop, samples: Int)
    }

    public private(set) var state: State = .idle
    public private(set) var committed = 0
    private var first: Int64?
    /// Sample time (nanoseconds from the first sample) after which recording stops.
    public let duration: Int64?
    public let sampleLimit: Int?

    public init(duration: Int64? = nil, sampleLimit: Int? = nil) {
        self.duration = duration; self.sampleLimit = sampleLimit
    }

    public mutating func start() -> Action {
        guard state == .idle else { return .none }
        state = .starting; committed = 0; first = nil
        return .openDevice
    }

    public mutating func deviceOpened() -> Action {
        guard state == .starting else { return .none }
        state = .recording
        return .none
    }

    /// A buffer refill delivered samples with these timestamps. Samples received while stopping
    /// (a refill that completed after Ctrl-C) are still stored: nothing received is lost.
    public mutating func received(timestamps: [Int64]) -> Action {
        switch state {
        case .recording, .stopping: break
        case .idle, .starting: return .none
        }
        if case .stopping(.durationReached) = state { return .none }
        if case .stopping(.sampleLimitReached) = state { return .none }
        if first == nil { first = timestamps.first }
        var keep = timestamps.count, limitHit: Stop?
        if let duration, let first, let cut = timestamps.firstIndex(where: { $0 - first >= duration }) {
            keep = cut; limitHit = .durationReached
        }
        if let sampleLimit, committed + keep >= sampleLimit {
            keep = sampleLimit - committed; limitHit = .sampleLimitReached
        }
        committed += keep
        guard let limitHit, state == .recording else { return .commit(keep: keep, thenClose: false) }
        state = .stopping(limitHit)
        return .commit(keep: keep, thenClose: true)
    }

    public mutating func stop(_ reason: Stop) -> Action {
        switch state {
        case .starting, .recording: state = .stopping(reason); return .closeDevice
        case .idle, .stopping: return .none
        }
    }

    public mutating func deviceClosed() -> Action {
        guard case .stopping(let reason) = state else { return .none }
        state = .idle
        return .finish(reason, samples: committed)
    }
}
