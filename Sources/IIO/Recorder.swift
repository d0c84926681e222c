import CIIO
import Dispatch
import Foundation
import Motion
import NIOConcurrencyHelpers

/// Where recorded samples go: one `commit` per buffer refill, so whatever the device delivered
/// before a crash, a signal or a vanished server is already stored.
public protocol RecorderSink: AnyObject {
    func begin(_ info: TraceInfo, hasAccel: Bool) throws
    func commit(_ samples: [IMUReading]) throws
}

public struct RecorderOptions: Sendable {
    public var uri: String
    /// Gyro device by name or id; nil = the first device with anglvel_x/y/z.
    public var device: String?
    public var rateHz: Double?
    /// Seconds of sample time to record; nil = until stopped.
    public var duration: Double?
    public var accel = false
    public var sampleLimit: Int?
    /// Samples per buffer refill; nil = a tenth of a second at the device's rate.
    public var bufferSamples: Int?

    public init(
        uri: String, device: String? = nil, rateHz: Double? = nil, duration: Double? = nil, accel: Bool = false,
        sampleLimit: Int? = nil, bufferSamples: Int? = nil
    ) {
        self.uri = uri; self.device = device; self.rateHz = rateHz; self.duration = duration; self.accel = accel
        self.sampleLimit = sampleLimit; self.bufferSamples = bufferSamples
    }
}

public enum RecorderError: Error, Equatable, Sendable, CustomStringConvertible {
    case noGyro(String)
    case noDevice(String)
    case noAccel(String)
    public var description: String {
        switch self {
        case .noGyro(let s), .noDevice(let s), .noAccel(let s): s
        }
    }
}

/// Records a gyro (and optionally an accelerometer) through libiio into a sink, driven by
/// `RecorderStateMachine`. `stop(_:)` may be called from any thread (a signal handler's queue).
public final class Recorder: Sendable {
    public let options: RecorderOptions
    /// What another thread may touch: the stop asked for, and the open buffers to cancel.
    private struct Control: Sendable {
        var pendingStop: RecorderStateMachine.Stop?
        var buffers: [IIOBufferCanceller] = []
    }
    private let control = NIOLockedValueBox(Control())

    public init(options: RecorderOptions) { self.options = options }

    /// Asks the recording to end; a refill in progress is cancelled.
    public func stop(_ reason: RecorderStateMachine.Stop) {
        control.withLockedValue { c in
            if c.pendingStop == nil { c.pendingStop = reason }
            for b in c.buffers { b.cancel() }
        }
    }

    private var requestedStop: RecorderStateMachine.Stop? { control.withLockedValue { $0.pendingStop } }

    /// Runs until stopped, the duration or sample limit is reached, or the device or the sink
    /// fails. Returns why it stopped and how many samples the sink stored: a batch the sink
    /// refused (a full disk) is not counted, and makes the stop a failure even if it was the last.
    /// `progress` is called after each commit with the number of samples stored so far.
    public func run(into sink: RecorderSink, progress: (Int) -> Void = { _ in }) -> (stop: RecorderStateMachine.Stop, samples: Int) {
        // libiio's network backend writes to its socket without MSG_NOSIGNAL: a server that
        // vanished must be an error from the call, not SIGPIPE killing the process. Every libiio
        // call that writes to the socket is made on this thread (`stop()` cancels the buffers
        // from another, through libiio's own pipe), so SIGPIPE is blocked here alone: the
        // process's handlers and the other threads are left as they are.
        SIGPIPEBlocked.during { recordLoop(into: sink, progress: progress) }
    }

    private func recordLoop(into sink: RecorderSink, progress: (Int) -> Void) -> (stop: RecorderStateMachine.Stop, samples: Int) {
        var machine = RecorderStateMachine(duration: options.duration.map { Int64(($0 * 1e9).rounded()) }, sampleLimit: options.sampleLimit)
        var action = machine.start()
        var session: RecordingSession?
        // The machine counts what it asked to be committed; these are what the sink really took.
        var stored = 0
        var sinkFailure: RecorderStateMachine.Stop?
        while true {
            switch action {
            case .openDevice:
                do {
                    let s = try RecordingSession(options: options)
                    try sink.begin(s.info, hasAccel: s.accel != nil)
                    session = s
                    let early = control.withLockedValue { c in
                        c.buffers = s.buffers.map(IIOBufferCanceller.init)
                        return c.pendingStop
                    }
                    action = early.map { machine.stop($0) } ?? machine.deviceOpened()
                } catch {
                    action = machine.stop(requestedStop ?? .failed("\(error)"))
                }
            case .none:
                if let reason = requestedStop { action = machine.stop(reason); continue }
                do {
                    let batch = try session!.read()
                    action = machine.received(timestamps: batch.map(\.t))
                    if case .commit(let keep, _) = action, keep > 0 {
                        do {
                            try sink.commit(Array(batch.prefix(keep)))
                            stored += keep
                            progress(stored)
                        } catch {
                            sinkFailure = .failed("\(error)")
                            _ = machine.stop(sinkFailure!)
                            action = .closeDevice
                        }
                    }
                } catch {
                    action = machine.stop(requestedStop ?? .failed(Self.failure(error)))
                }
            case .commit(_, let thenClose):
                action = thenClose ? .closeDevice : .none
            case .closeDevice:
                control.withLockedValue { $0.buffers = [] }
                session = nil  // destroys the buffers, then the context
                action = machine.deviceClosed()
            case .finish(let stop, _):
                return (sinkFailure ?? stop, stored)
            }
        }
    }

    private static func failure(_ error: Error) -> String {
        guard let e = error as? IIOError else { return "\(error)" }
        return "the device stopped sending (\(e))"
    }
}

/// SIGPIPE blocked on the calling thread while `body` runs. A write to a closed socket raises
/// SIGPIPE in the thread that wrote; blocked, it stays pending and the write fails with EPIPE
/// instead. One left pending is taken before the thread's mask is put back, so it is never
/// delivered late. (What OpenSSL and libcurl do for the same reason.)
enum SIGPIPEBlocked {
    static func during<T>(_ body: () -> T) -> T {
        var pipe = sigset_t(), old = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipe, &old)
        defer {
            if sigismember(&old, SIGPIPE) == 0 {
                var pending = sigset_t()
                sigpending(&pending)
                if sigismember(&pending, SIGPIPE) == 1 {
                    var now = timespec(tv_sec: 0, tv_nsec: 0)
                    _ = sigtimedwait(&pipe, nil, &now)
                }
            }
            pthread_sigmask(SIG_SETMASK, &old, nil)
        }
        return body()
    }
}
