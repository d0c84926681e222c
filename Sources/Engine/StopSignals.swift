import Dispatch
import Foundation
import Synchronization

/// The signals that end a command with cleanup: Ctrl-C, kill, a closed terminal, Ctrl-\\ (which
/// would otherwise dump core: a user who presses it wants the job gone, not a half file), and
/// every other signal whose default action ends the process and that can be caught without
/// harm (SIGUSR1 left the temporary file of any job). Not SIGPIPE (a write to a closed pipe
/// would then fail in Foundation's write, a trap) nor SIGXFSZ (ignored instead: the write that
/// passes the size limit fails with EFBIG and the job says so), and not the faults (SIGSEGV and
/// the like: a crash's temporary is removed by the next run, as a SIGKILL's).
package let stopSignals: [Int32] =
    [
        SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
        SIGPWR, SIGSTKFLT, SIGIO
    ] + Array(SIGRTMIN...SIGRTMAX)

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
public struct StopPolicy: Equatable, Sendable {
    public enum Phase: Equatable, Sendable { case idle, running, finished }
    public enum Action: Equatable, Sendable {
        /// End the process now, stopped by this signal (the status is the CLI's, `install`).
        case exit(signal: Int32)
        /// Ask the running job to stop.
        case cancel(Int32)
        case ignore
    }
    public private(set) var phase = Phase.idle
    /// The signal that names the exit status: the first one heard.
    public private(set) var first: Int32?

    public init() {}

    public mutating func heard(_ sig: Int32) -> Action {
        switch phase {
        case .idle:
            if first == nil { first = sig }
            return .exit(signal: first!)
        case .running:
            guard first == nil else { return .ignore }
            first = sig
            return .cancel(sig)
        case .finished:
            return .ignore
        }
    }

    /// A job starts; a signal already heard (between installing and starting) cancels it at once.
    public mutating func start() -> Action {
        phase = .running
        return first.map { .cancel($0) } ?? .ignore
    }

    public mutating func finish() { phase = .finished }
}

/// The process's one signal handling, for a command-line program: installed once as the process
/// starts (`install`, which the CLI calls; no job installs it), never removed, turning stop
/// signals into `StopPolicy`'s actions. It lives here rather than in the CLI because it needs a
/// thread and a lock, which only the library's engine makes.
public enum StopSignals {
    private struct Job {
        package var cancel: @Sendable (Int32) -> Void
        /// Seconds the job may take to stop before the process ends anyway.
        package var grace: Double
        /// The line printed when it does not stop in time ("Error: ..." is added).
        package var stuck: String
    }
    private static let state = Mutex<(policy: StopPolicy, job: Job?)>((StopPolicy(), nil))
    /// The exit status of a process ended by a signal, as the program decides it (`install`).
    private static let status = Mutex<(@Sendable (Int32) -> Int32)?>(nil)

    /// `statusOfSignal`: the status a process stopped by a signal ends with (the CLI's one place
    /// that decides statuses).
    public static func install(statusOfSignal: @escaping @Sendable (Int32) -> Int32) {
        status.withLock { $0 = statusOfSignal }  // before any handler can need it
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
        case .exit(let sig):
            // Before a job has started (a command still opening its inputs, e.g. blocked on a
            // FIFO): nothing was written; say so in the line every stopped job ends with.
            FileHandle.standardError.write(Data("Error: cancelled\n".utf8))
            OutputPath.discardAll()
            _exit(status.withLock { $0 }!(sig))
        case .cancel(let sig):
            guard let job else { return }
            job.cancel(sig)
            // A job stuck where no cancellation reaches (a read blocked on a FIFO or a dead
            // mount) is not waited for beyond its grace: its temporaries go, the process ends.
            DispatchQueue.global().asyncAfter(deadline: .now() + job.grace) {
                guard state.withLock({ $0.policy.phase == .running }) else { return }
                FileHandle.standardError.write(Data("Error: \(job.stuck)\n".utf8))
                OutputPath.discardAll()
                _exit(status.withLock { $0 }!(sig))
            }
        }
    }

    /// Runs `body` as the job a stop signal cancels (see `StopPolicy`).
    public static func running<T>(grace: Double, stuck: String, _ cancel: @escaping @Sendable (Int32) -> Void, _ body: () throws -> T) rethrows -> T {
        let (action, job) = state.withLock { s -> (StopPolicy.Action, Job) in
            let job = Job(cancel: cancel, grace: grace, stuck: stuck)
            s.job = job
            return (s.policy.start(), job)
        }
        act(action, job)
        defer {
            state.withLock { s in
                s.policy.finish(); s.job = nil
            }
            holdForTests()
        }
        return try body()
    }

    /// Tests only: LOCKSTEP_TEST_HOLD_AFTER_JOB=S keeps the process S seconds (at most 60)
    /// after its job has returned, before it exits, so a test can send a signal then and see
    /// that it changes nothing (the moment is otherwise a few milliseconds long).
    private static func holdForTests() {
        guard let text = ProcessInfo.processInfo.environment["LOCKSTEP_TEST_HOLD_AFTER_JOB"], let s = Double(text),
            s > 0, s <= 60
        else { return }
        Thread.sleep(forTimeInterval: s)
    }

    /// The signal that stopped the job, for the exit status (128 + signal).
    public static var first: Int32? { state.withLock { $0.policy.first } }
}
