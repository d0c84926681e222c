import ArgumentParser
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

/// The signals that end a command with cleanup: Ctrl-C, kill, a closed terminal, Ctrl-\\ (which
/// would otherwise dump core: a user who presses it wants the job gone, not a half file), and
/// every other signal whose default action ends the process and that can be caught without
/// harm (SIGUSR1 left the temporary file of any job). Not SIGPIPE (a write to a closed pipe
/// would then fail in Foundation's write, a trap) nor SIGXFSZ (ignored instead: the write that
/// passes the size limit fails with EFBIG and the job says so), and not the faults (SIGSEGV and
/// the like: a crash's temporary is removed by the next run, as a SIGKILL's).
let stopSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
                            SIGPWR, SIGSTKFLT, SIGIO] + Array(SIGRTMIN...SIGRTMAX)

/// glibc's SIGRTMIN and SIGRTMAX are functions in C (NPTL keeps the first two for itself);
/// Swift does not import them.
private var SIGRTMIN: Int32 { __libc_current_sigrtmin() }
private var SIGRTMAX: Int32 { __libc_current_sigrtmax() }

/// What a stop signal means at each point of a command's life. Pure (`StopSignals` acts on it):
/// - before a job runs (options, opening files) nothing needs undoing: the process ends at once
///   with 128 + the signal, every temporary removed;
/// - while a job runs, the first signal cancels it (later ones only repeat the request): the
///   job removes its temporary and the command exits 128 + the first signal;
/// - once the job has returned, its output is in place (or its failure reported): a signal
///   then changes nothing, and the command ends as the job did (SIGINT just after the final
///   rename was reported as "killed" with the complete output in place).
struct StopPolicy: Equatable {
    enum Phase: Equatable { case idle, running, finished }
    enum Action: Equatable {
        /// End the process now with this status.
        case exit(Int32)
        /// Ask the running job to stop.
        case cancel(Int32)
        case ignore
    }
    private(set) var phase = Phase.idle
    /// The signal that names the exit status: the first one heard.
    private(set) var first: Int32?

    mutating func heard(_ sig: Int32) -> Action {
        switch phase {
        case .idle:
            if first == nil { first = sig }
            return .exit(128 + first!)
        case .running:
            guard first == nil else { return .ignore }
            first = sig
            return .cancel(sig)
        case .finished:
            return .ignore
        }
    }

    /// A job starts; a signal already heard (between installing and starting) cancels it at once.
    mutating func start() -> Action {
        phase = .running
        return first.map { .cancel($0) } ?? .ignore
    }

    mutating func finish() { phase = .finished }
}

/// The CLI's one signal handling: installed once as the process starts (`install`), never
/// removed, turning stop signals into `StopPolicy`'s actions. The library installs none.
enum StopSignals {
    private struct Job {
        var cancel: @Sendable (Int32) -> Void
        /// Seconds the job may take to stop before the process ends anyway.
        var grace: Double
        /// The line printed when it does not stop in time ("Error: ..." is added).
        var stuck: String
    }
    private static let state = Mutex<(policy: StopPolicy, job: Job?)>((StopPolicy(), nil))

    static func install() {
        // SIGXFSZ: a write past the file-size limit fails with EFBIG, which the writer reports.
        signal(SIGXFSZ, SIG_IGN)
        // SIGPROF cannot be heard through a Dispatch signal source on Linux: libdispatch never
        // blocks it in its threads (`_dispatch_sigmask` leaves it to profilers), so the handler
        // that forwards a signal to its manager thread finds it unblocked there too and raises
        // it again, for ever: the job ran on to its end with a core spinning, and the signal
        // was lost (issue 26). It is blocked here, before any other thread exists (threads
        // inherit the mask, and libdispatch only adds to it), and waited for on a thread of its own.
        var profiling = sigset_t()
        sigemptyset(&profiling)
        sigaddset(&profiling, SIGPROF)
        pthread_sigmask(SIG_BLOCK, &profiling, nil)
        let waited = profiling
        let waiter = Thread {
            var set = waited, sig: Int32 = 0
            while true { if sigwait(&set, &sig) == 0 { heard(sig) } }
        }
        waiter.name = "lockstep.sigprof"
        waiter.start()
        handleSignals(stopSignals.filter { $0 != SIGPROF }, heard)
    }

    private static func heard(_ sig: Int32) {
        let (action, job) = state.withLock { s in (s.policy.heard(sig), s.job) }
        act(action, job)
    }

    private static func act(_ action: StopPolicy.Action, _ job: Job?) {
        switch action {
        case .ignore: break
        case .exit(let status):
            // Before a job has started (a command still opening its inputs, e.g. blocked on a
            // FIFO): nothing was written; say so in the line every stopped job ends with.
            sayCancelled()
            OutputPath.discardAll()
            _exit(status)
        case .cancel(let sig):
            guard let job else { return }
            job.cancel(sig)
            // A job stuck where no cancellation reaches (a read blocked on a FIFO or a dead
            // mount) is not waited for beyond its grace: its temporaries go, the process ends.
            DispatchQueue.global().asyncAfter(deadline: .now() + job.grace) {
                guard state.withLock({ $0.policy.phase == .running }) else { return }
                FileHandle.standardError.write(Data("Error: \(job.stuck)\n".utf8))
                OutputPath.discardAll()
                _exit(128 + sig)
            }
        }
    }

    /// Runs `body` as the job a stop signal cancels (see `StopPolicy`).
    static func running<T>(grace: Double, stuck: String, _ cancel: @escaping @Sendable (Int32) -> Void, _ body: () throws -> T) rethrows -> T {
        let (action, job) = state.withLock { s -> (StopPolicy.Action, Job) in
            let job = Job(cancel: cancel, grace: grace, stuck: stuck)
            s.job = job
            return (s.policy.start(), job)
        }
        act(action, job)
        defer {
            state.withLock { s in s.policy.finish(); s.job = nil }
            holdForTests()
        }
        return try body()
    }

    /// Tests only: LOCKSTEP_TEST_HOLD_AFTER_JOB=S keeps the process S seconds (at most 60)
    /// after its job has returned, before it exits, so a test can send a signal then and see
    /// that it changes nothing (the moment is otherwise a few milliseconds long).
    private static func holdForTests() {
        guard let text = ProcessInfo.processInfo.environment["LOCKSTEP_TEST_HOLD_AFTER_JOB"], let s = Double(text),
              s > 0, s <= 60 else { return }
        Thread.sleep(forTimeInterval: s)
    }

    /// The signal that stopped the job, for the exit status (128 + signal).
    static var first: Int32? { state.withLock { $0.policy.first } }
}

/// The signal that stopped the job, for the exit status (128 + signal).
func lastStopSignal() -> Int32? { StopSignals.first }

/// The line every stopped command ends with.
func sayCancelled() { FileHandle.standardError.write(Data("Error: cancelled\n".utf8)) }

/// A stopped job's end: its line, and the status shells give a command a signal ended
/// (128 + the signal; SIGINT's 130 when none was heard).
func cancelledExit() -> ExitCode {
    sayCancelled()
    return ExitCode(128 + (lastStopSignal() ?? SIGINT))
}

/// Runs `body` with the stop signals turned into a call to `cancel`, so the job can remove its
/// temporary file and say so, instead of dying half-way. Signals are heard on a queue of their
/// own (no Swift runs in signal context), installed once for the whole process.
///
/// Once a stop signal was heard, whatever the job throws on its way out is the cancellation: a
/// job stopped while opening a FIFO with no writer threw its reader's "PATH: cancelled" and
/// exited 1 instead of 128 + the signal (concat, reverse). A job that returns has succeeded,
/// whatever signal came after.
func withCancellation<T>(grace: Double = 10, stuck: String? = nil, _ cancel: @escaping @Sendable (Int32) -> Void, _ body: () throws -> T) throws -> T {
    let stuck = stuck ?? "cancelled (the job did not stop within \(Int(grace)) s of the signal)"
    do {
        return try StopSignals.running(grace: grace, stuck: stuck, cancel, body)
    } catch where lastStopSignal() != nil {
        throw JobError.cancelled
    }
}

func withCancellation<T>(grace: Double = 10, stuck: String? = nil, _ cancel: @escaping @Sendable () -> Void, _ body: () throws -> T) throws -> T {
    try withCancellation(grace: grace, stuck: stuck, { (_: Int32) in cancel() }, body)
}
