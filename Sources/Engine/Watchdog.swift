import Foundation
import NIOConcurrencyHelpers

/// What one stage is doing and since when. A stage is `busy` when it is working on its own
/// (decoding, encoding); waiting for another stage is not busy, so a stall is blamed on the
/// stage that is stuck, not on the ones queued behind it. Set by its stage, read by the watchdog.
/// A pthread mutex (NIO's lock), not `Synchronization.Mutex`: on Linux the standard library's
/// futex lock is invisible to ThreadSanitizer, which then reports every access as a race.
package final class ThreadClock: Sendable {
    package let name: String
    private let current = NIOLockedValueBox<(activity: String, busy: Bool, since: UInt64)>(("starting", false, DispatchTime.now().uptimeNanoseconds))

    package init(name: String) { self.name = name }

    package func set(_ activity: String, busy: Bool) {
        let now = DispatchTime.now().uptimeNanoseconds
        current.withLockedValue { $0 = (activity, busy, now) }
    }

    package var state: (activity: String, busy: Bool, since: UInt64) { current.withLockedValue { $0 } }
}

/// Never a hang (GPUImage #744, VidClips' frozen writer): a thread that looks at every stage
/// four times a second and, when one has been busy with the same thing for longer than the
/// timeout, or nothing at all has moved for that long, stops the job with a sentence naming
/// the stage.
package final class Watchdog: Sendable {
    private let clocks: [ThreadClock]
    private let timeout: Double
    private let onStall: @Sendable (StallError) -> Void
    private let stopped = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    package init(clocks: [ThreadClock], timeout: Double, onStall: @escaping @Sendable (StallError) -> Void) {
        self.clocks = clocks; self.timeout = timeout; self.onStall = onStall
    }

    package func start() {
        let t = Thread { [self] in
            defer { finished.signal() }
            while stopped.wait(timeout: .now() + 0.25) == .timedOut {
                if let stall = Watchdog.stall(
                    in: clocks.map { ($0.name, $0.state) }, timeout: timeout,
                    now: DispatchTime.now().uptimeNanoseconds)
                {
                    onStall(stall)
                    return
                }
            }
        }
        t.name = "lockstep.watchdog"
        t.start()
    }

    package func stop() { stopped.signal(); finished.wait() }

    /// The stall to report, if any: a busy stage past the timeout first; else, if no stage has
    /// changed state for that long, the pipeline as a whole.
    package static func stall(
        in states: [(name: String, state: (activity: String, busy: Bool, since: UInt64))],
        timeout: Double, now: UInt64
    ) -> StallError? {
        // Total for any timeout: a limit past UInt64 is never reached (1e11 s trapped here).
        let nanoseconds = timeout * 1e9
        let limit = !(nanoseconds > 0) ? 0 : nanoseconds >= 1.8e19 ? UInt64.max : UInt64(nanoseconds)
        let seconds = timeout == timeout.rounded() && abs(timeout) < 1e15 ? String(Int(timeout)) : String(timeout)
        // A stage may set its clock after `now` was read: that is no time at all, not a wrap.
        func age(_ since: UInt64) -> UInt64 { now > since ? now - since : 0 }
        for (name, s) in states where s.busy && age(s.since) > limit {
            return .stageStuck(stage: name, seconds: seconds, activity: s.activity)
        }
        if let latest = states.map(\.state.since).max(), age(latest) > limit {
            return .nothingMoved(seconds: seconds, stages: states.map { "\($0.name) \($0.state.activity)" })
        }
        return nil
    }
}
