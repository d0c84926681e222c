/// What a running job tells its caller, called on the job's own threads.
public struct JobEvents: Sendable {
    /// After each unit of work: (done, expected when known). Frames for the video jobs, samples
    /// or readings for the IMU ones.
    public var progress: (@Sendable (_ done: Int64, _ expected: Int64?) -> Void)?
    /// A line the user should see as soon as it is known: a notice (how an input was placed, a
    /// rate that differs) or a warning (a stated orientation the motion contradicts).
    public var notice: (@Sendable (String) -> Void)?

    public init(progress: (@Sendable (Int64, Int64?) -> Void)? = nil, notice: (@Sendable (String) -> Void)? = nil) {
        self.progress = progress
        self.notice = notice
    }
}

/// The one shape of Lockstep's jobs; every command runs one. A job is made from its options
/// (checked again by `run()`, so a library caller cannot skip the checks the CLI makes), runs
/// once on the caller's thread, and can be cancelled from any other thread at any time, before
/// or during `run()`: `run()` then throws (`JobError.cancelled`, the failure that came first, or
/// the job's own sentence: `IMUImportJob.cancelled`) and leaves nothing under the output's
/// name. Two jobs whose work is to run until stopped return their outcome instead (`imu
/// record`: what was kept; `imu serve`). A scale-out finishes a submission under way first.
///
/// `cancel()` only raises flags, closes queues and wakes waiters: it may be called from a signal
/// source's queue (never from a signal handler itself).
public protocol Job: AnyObject, Sendable {
    associatedtype Options: Sendable
    associatedtype Outcome
    init(options: Options, events: JobEvents)
    func run() throws -> Outcome
    func cancel()
}
