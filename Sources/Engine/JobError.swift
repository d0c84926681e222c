/// Cancellation, and the one generic failure: a line a caller of the library states itself (a
/// test's own failure inside a writing scope). Lockstep's own failures are typed, one enum per
/// capability whose cases hold what the line names (`OutputPathError`, `CompositeOptionsError`,
/// `StallError`...); nothing in the sources but this file constructs a `JobError`. Its
/// `description` is the one line the user reads (after "Error: "); the exit status is the CLI's
/// to decide (`ExitStatus`), as for every error.
public struct JobError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
    public static let cancelled = JobError("cancelled")

    /// The same line with every `path` told as `other` (`OutputPath.explain`: a temporary's
    /// hidden name means nothing to the user).
    public func replacing(_ path: String, with other: String) -> JobError {
        JobError(description.replacingOccurrences(of: path, with: other))
    }
}

/// A failure a job states in one line (its `description`, after "Error: "): `JobError`, and the
/// typed errors of each capability, whose cases hold what the line names (`OutputPathError`).
/// The CLI ends every one the same way (`ExitStatus`); a check before any work becomes a usage
/// error (`asUsage`).
public protocol JobFailure: Error, CustomStringConvertible, Sendable {}

extension JobError: JobFailure {}
