/// A failure that says how the command ends: the one line the user reads (its `description`,
/// printed after "Error: ") and the process's exit status. `LockstepCommand.main` is the one
/// place that turns it into that line and that status, as ArgumentParser does with its own
/// errors (a usage error's 64, `--help`'s 0); any other error is a failure of status 1 with its
/// description. A command that has printed its own report and only needs a status (a `verify`
/// that found violations) throws ArgumentParser's `ExitCode`.
public protocol CommandFailure: Error, CustomStringConvertible {
    var exitStatus: Int32 { get }
}

/// A failure with a status other than 1: an input `verify` or `probe` cannot read (2), a job
/// stopped by a signal (128 + the signal). The line is the error's own description.
public struct Failure: CommandFailure, Equatable {
    public var description: String
    public var exitStatus: Int32

    public init(_ description: String, exitStatus: Int32) {
        self.description = description; self.exitStatus = exitStatus
    }

    /// `error`'s own line (its description) with another status.
    public init(_ error: any Error, exitStatus: Int32) {
        self.init(String(describing: error), exitStatus: exitStatus)
    }
}

/// A failure of the job that is not FFmpeg's: bad input combinations, an output that cannot be
/// written, cancellation. Status 1.
public struct JobError: CommandFailure, Equatable, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
    public static let cancelled = JobError("cancelled")
    public var exitStatus: Int32 { 1 }
}
