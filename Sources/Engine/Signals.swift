import Dispatch
import Foundation
import Synchronization

/// Runs `body` with `signals` turned into calls of `handler` on a queue of their own (not in a
/// signal handler, so the handler may take locks and call libiio), restoring the default
/// actions afterwards. (The CLI now uses `handleSignals` once for the whole process; this stays
/// for callers of the library that want signals only around one call.)
///
/// On Linux a Dispatch signal source hears its signal through a signalfd that libdispatch's
/// manager thread registers *after* `resume()` returns, installing its own forwarding handler
/// only the first time a process registers that signal. So: no `SIG_IGN` first (a signal in
/// the gap would be dropped and the job would run on, the `imu serve` hang), `body` starts
/// only once every source is registered, and a later call in the same process puts back the
/// forwarding handler that the previous call's reset to `SIG_DFL` removed.
public func withSignals<T>(_ signals: [Int32], _ handler: @escaping @Sendable (Int32) -> Void, _ body: () throws -> T) rethrows -> T {
    let sources = registeredSources(signals, label: "lockstep.imu.signals", handler)
    defer {
        for s in sources { s.cancel() }
        for sig in signals { signal(sig, SIG_DFL) }
    }
    return try body()
}

/// Turns `signals` into calls of `handler` on a queue of its own for the rest of the process, as
/// `withSignals` does for a body, and never puts the default actions back: a signal that comes
/// after a job has finished (after its output was renamed into place, or between two signals
/// sent close together) must not kill the process with its default action. For the CLI, which
/// installs it once as it starts; no job of the library installs signal handling of its own
/// (they take a `StopRequest`).
public func handleSignals(_ signals: [Int32], _ handler: @escaping @Sendable (Int32) -> Void) {
    InstalledSources.shared.keep(registeredSources(signals, label: "lockstep.signals", handler))
}

/// One Dispatch signal source per signal on a queue of its own, returned only once libdispatch
/// has registered every one, with its forwarding handler in place (see `withSignals`).
private func registeredSources(_ signals: [Int32], label: String, _ handler: @escaping @Sendable (Int32) -> Void) -> [DispatchSourceSignal] {
    let queue = DispatchQueue(label: label)
    let registered = DispatchGroup()
    let sources = signals.map { sig -> DispatchSourceSignal in
        let s = DispatchSource.makeSignalSource(signal: sig, queue: queue)
        s.setEventHandler { handler(sig) }
        registered.enter()
        s.setRegistrationHandler { registered.leave() }
        s.resume()
        return s
    }
    registered.wait()
    for sig in signals { DispatchSignalHandlers.shared.ensureInstalled(sig) }
    return sources
}

/// The process-wide signal sources (`handleSignals`), kept alive for good.
private final class InstalledSources: @unchecked Sendable {  // `lock` guards `sources`
    package static let shared = InstalledSources()
    private let lock = NSLock()
    private var sources: [DispatchSourceSignal] = []
    package func keep(_ more: [DispatchSourceSignal]) { lock.withLock { sources += more } }
}

/// A request to stop a running job, made from another thread (the CLI turns stop signals into
/// it). The job says what stopping means for it with `onRequest`; a request made before that is
/// kept and acted on as soon as it does. The signal's number travels with the request: some
/// jobs end differently by signal (`imu record`: Ctrl-C is an asked-for end, SIGTERM is not).
public final class StopRequest: Sendable {
    private let state = Mutex<(requested: Int32?, action: (@Sendable (Int32) -> Void)?)>((nil, nil))

    public init() {}

    /// Asks the job to stop; only the first request counts.
    public func request(_ signal: Int32) {
        let act: (@Sendable (Int32) -> Void)? = state.withLock { state in
            guard state.requested == nil else { return nil }
            state.requested = signal
            return state.action
        }
        act?(signal)
    }

    /// The signal of the first request, if one was made.
    public var signal: Int32? { state.withLock { $0.requested } }

    /// What stopping means for the job (called on the requesting thread, once).
    public func onRequest(_ body: @escaping @Sendable (Int32) -> Void) {
        let pending: Int32? = state.withLock { state in
            state.action = body
            return state.requested
        }
        if let pending { body(pending) }
    }
}

/// libdispatch's forwarding handler per signal, as it installed it the first time.
package final class DispatchSignalHandlers: @unchecked Sendable {
    package static let shared = DispatchSignalHandlers()
    private let lock = NSLock()
    // Guarded by `lock`.
    private var installed: [Int32: sigaction] = [:]

    /// Remembers the handler now in place if it is libdispatch's; puts the remembered one back
    /// if the default or ignore is in place instead.
    package func ensureInstalled(_ sig: Int32) {
        lock.lock(); defer { lock.unlock() }
        var now = sigaction()
        guard sigaction(sig, nil, &now) == 0 else { return }
        if Self.isDefaultOrIgnore(now) {
            if var saved = installed[sig] { sigaction(sig, &saved, nil) }
        } else {
            installed[sig] = now
        }
    }

    /// Whether `sig` is now caught by a handler (neither `SIG_DFL` nor `SIG_IGN`).
    package static func isCaught(_ sig: Int32) -> Bool {
        var now = sigaction()
        return sigaction(sig, nil, &now) == 0 && !isDefaultOrIgnore(now)
    }

    private static func isDefaultOrIgnore(_ action: sigaction) -> Bool {
        // SIG_DFL is 0 and SIG_IGN is 1 (<signal.h>); a handler is an address.
        let address = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        return address == 0 || address == 1
    }
}
