import Dispatch
import Foundation

/// Runs `body` with `signals` turned into calls of `handler` on a queue of their own (not in a
/// signal handler, so the handler may take locks and call libiio), restoring the default
/// actions afterwards.
///
/// On Linux a Dispatch signal source hears its signal through a signalfd that libdispatch's
/// manager thread registers *after* `resume()` returns, installing its own forwarding handler
/// only the first time a process registers that signal. So: no `SIG_IGN` first (a signal in
/// the gap would be dropped and the job would run on, the `imu serve` hang), `body` starts
/// only once every source is registered, and a later call in the same process puts back the
/// forwarding handler that the previous call's reset to `SIG_DFL` removed.
public func withSignals<T>(_ signals: [Int32], _ handler: @escaping @Sendable (Int32) -> Void, _ body: () throws -> T) rethrows -> T {
    let queue = DispatchQueue(label: "lockstep.imu.signals")
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
    defer {
        for s in sources { s.cancel() }
        for sig in signals { signal(sig, SIG_DFL) }
    }
    return try body()
}

/// libdispatch's forwarding handler per signal, as it installed it the first time.
final class DispatchSignalHandlers: @unchecked Sendable {
    static let shared = DispatchSignalHandlers()
    private let lock = NSLock()
    // Guarded by `lock`.
    private var installed: [Int32: sigaction] = [:]

    /// Remembers the handler now in place if it is libdispatch's; puts the remembered one back
    /// if the default or ignore is in place instead.
    func ensureInstalled(_ sig: Int32) {
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
    static func isCaught(_ sig: Int32) -> Bool {
        var now = sigaction()
        return sigaction(sig, nil, &now) == 0 && !isDefaultOrIgnore(now)
    }

    private static func isDefaultOrIgnore(_ action: sigaction) -> Bool {
        // SIG_DFL is 0 and SIG_IGN is 1 (<signal.h>); a handler is an address.
        let address = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        return address == 0 || address == 1
    }
}
