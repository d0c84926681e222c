/// A failure of the job that is not FFmpeg's: bad input combinations, an output that cannot be
/// written, cancellation. Its `description` is the one line the user reads (after "Error: ");
/// the exit status is the CLI's to decide (`ExitStatus`), as for every error.
public struct JobError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
    public static let cancelled = JobError("cancelled")
}

/// A failure a job states in one line (its `description`, after "Error: "): `JobError`, and the
/// typed errors of each capability, whose cases hold what the line names (`OutputPathError`).
/// The CLI ends every one the same way (`ExitStatus`); a check before any work becomes a usage
/// error (`asUsage`).
public protocol JobFailure: Error, CustomStringConvertible, Sendable {}

extension JobError: JobFailure {}
