import Synchronization

/// Notes a job tells from its own threads (`JobEvents.notice`), kept in order until the job has
/// returned, so that a caller prints notes about an output only once it exists: a job that is
/// stopped or fails ends with its one error line (the CLI's `runOutputJob`).
public final class HeldNotes: Sendable {
    private let held: Mutex<[String]>

    /// `earlier`: notes made before the job started, kept first.
    public init(_ earlier: [String] = []) { held = Mutex(earlier) }

    @Sendable public func add(_ line: String) { held.withLock { $0.append(line) } }
    public var lines: [String] { held.withLock { $0 } }
}
