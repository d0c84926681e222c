import Foundation
import Synchronization

/// Slurm's command-line tools are its interface for users and programs alike: submission and
/// queries go through `sbatch`, `squeue` and `scancel`, run as processes (no scheduler of our own).
public struct SlurmSubmitter: Sendable {
    public let sbatch: String
    public let squeue: String
    public let scancel: String

    /// Finds the tools on PATH; a one-sentence error when Slurm's client is not installed.
    public init(path: String? = ProcessInfo.processInfo.environment["PATH"]) throws {
        func find(_ name: String) -> String? {
            for dir in (path ?? "").split(separator: ":") {
                let candidate = String(dir) + "/" + name
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
            return nil
        }
        guard let sbatch = find("sbatch"), let squeue = find("squeue"), let scancel = find("scancel") else {
            throw ScaleOutError.slurmNotInstalled
        }
        self.sbatch = sbatch; self.squeue = squeue; self.scancel = scancel
    }

    /// Submits `script` with extra sbatch arguments; returns the job id (`--parsable` prints
    /// `ID` or `ID;CLUSTER`).
    public func submit(_ script: String, arguments: [String] = []) throws -> String {
        let r = try Self.run(sbatch, ["--parsable"] + arguments + [script])
        let id = r.stdout.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        guard r.status == 0, !id.isEmpty, id.allSatisfy(\.isNumber) else {
            throw ScaleOutError.slurmCommandFailed(command: "sbatch \(script)", why: Self.lastLine(r.stderr) ?? "exit status \(r.status)")
        }
        return id
    }

    /// States of the jobs (array tasks each a line) still known to slurmctld, as `(id, state)`.
    /// Finished jobs leave the list after MinJobAge; an unknown id is an empty answer.
    public func states(of ids: [String]) throws -> [(id: String, state: String)] {
        let r = try Self.run(squeue, ["-h", "-j", ids.joined(separator: ","), "-o", "%i %T"])
        if r.status != 0 {
            if r.stderr.contains("Invalid job id") { return [] }
            throw ScaleOutError.slurmCommandFailed(command: "squeue", why: Self.lastLine(r.stderr) ?? "exit status \(r.status)")
        }
        return r.stdout.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }
    }

    /// States in which a job may still run (or a pending join may still start).
    public static let activeStates: Set<String> = [
        "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED",
        "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED"
    ]

    /// Whether any of the jobs is still pending or running.
    public func anyActive(_ ids: [String]) throws -> Bool {
        try states(of: ids).contains { Self.activeStates.contains($0.state) }
    }

    public func cancel(_ ids: [String]) throws {
        let r = try Self.run(scancel, ids)
        guard r.status == 0 else { throw ScaleOutError.slurmCommandFailed(command: "scancel", why: Self.lastLine(r.stderr) ?? "exit status \(r.status)") }
    }

    static func lastLine(_ text: String) -> String? {
        text.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Runs a short-lived tool to its end; its output is small (ids, a few states).
    static func run(_ exe: String, _ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        p.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        do { try p.run() } catch { throw ScaleOutError.cannotRun(exe, why: error.localizedDescription) }
        // stderr is read on another thread so that neither pipe can fill while we wait on the other.
        let errText = ErrorText()
        let errHandle = err.fileHandleForReading
        let errReader = Worker(name: "lockstep.slurm.stderr") {
            errText.set(String(decoding: errHandle.readDataToEndOfFile(), as: UTF8.self))
        }
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        errReader.join()
        p.waitUntilExit()
        return (p.terminationStatus, stdout, errText.get())
    }
}

/// The text read by `run`'s stderr thread, handed over under a lock.
private final class ErrorText: Sendable {
    private let text = Mutex("")
    func set(_ s: String) { text.withLock { $0 = s } }
    func get() -> String { text.withLock { $0 } }
}
