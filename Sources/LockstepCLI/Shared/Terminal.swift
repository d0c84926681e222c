import Dispatch
import Foundation
import Synchronization
import Lockstep

/// "frame 120/300  40%  45.1 fps  ETA 0:04" on one line of stderr, redrawn at most 10 times a second.
/// Updated from the compositor thread, finished from the caller's.
final class ProgressMeter: Sendable {
    private let enabled: Bool
    private let start = DispatchTime.now().uptimeNanoseconds
    private let drawn = Mutex<(last: UInt64, any: Bool)>((0, false))

    init(enabled: Bool) { self.enabled = enabled }

    func update(done: Int64, total: Int64?) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard drawn.withLock({ d in
            guard now > d.last && now - d.last > 100_000_000 else { return false }
            d = (now, true); return true
        }) else { return }
        let elapsed = Double(now - start) / 1e9
        let fps = elapsed > 0 ? Double(done) / elapsed : 0
        var line = "frame \(done)"
        if let total, total > 0 {
            let left = fps > 0 ? Int((Double(max(0, total - done)) / fps).rounded()) : 0
            line += "/\(total)  \(min(100, done * 100 / total))%  " + String(format: "%.1f fps", fps)
                + "  ETA \(left / 60):" + String(format: "%02d", left % 60)
        } else {
            line += "  " + String(format: "%.1f fps", fps)
        }
        FileHandle.standardError.write(("\r\u{1B}[K" + line).data(using: .utf8)!)
    }

    func finish() { if drawn.withLock({ $0.any }) { FileHandle.standardError.write("\r\u{1B}[K".data(using: .utf8)!) } }
}

/// The signals that stop a job with cleanup: Ctrl-C, kill, a closed terminal, Ctrl-\\ (which
/// would otherwise dump core: a user who presses it wants the job gone, not a half file).
let stopSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

/// The signal that stopped the job, for the exit status (128 + signal).
private let stopSignal = Atomic<Int32>(0)
func lastStopSignal() -> Int32? { let s = stopSignal.load(ordering: .acquiring); return s == 0 ? nil : s }

/// Runs `body` with the stop signals turned into a call to `cancel`, so the job can remove its
/// temporary file and say so, instead of dying half-way. Dispatch signal sources deliver them on
/// a queue (no Swift runs in signal context); `withSignals` starts `body` only once every source
/// is registered, so no signal falls into a gap and is lost.
///
/// Once a stop signal was heard, whatever the job throws on its way out is the cancellation: a
/// job stopped while opening a FIFO with no writer threw its reader's "PATH: cancelled" and
/// exited 1 instead of 128 + the signal (concat, reverse).
func withCancellation<T>(_ cancel: @escaping @Sendable () -> Void, _ body: () throws -> T) throws -> T {
    do {
        return try withSignals(stopSignals, { sig in
            // The first signal names the exit status; later ones only repeat the request.
            _ = stopSignal.compareExchange(expected: 0, desired: sig, ordering: .acquiringAndReleasing)
            cancel()
        }, body)
    } catch where lastStopSignal() != nil {
        throw JobError.cancelled
    }
}
