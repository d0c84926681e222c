import Engine
import Foundation

/// Why a scale-out (`--segments`, `join-segments`) cannot be planned, submitted, waited for or
/// joined. Each case renders the one line the user reads.
public enum ScaleOutError: JobFailure, Equatable {
    // Planning.
    case placesInputs
    case noFrameRate(String)
    case unknownLength(output: String)
    case tooFewSegments(Int)
    case gopTooShort(Int64)
    case noFrames
    case moreSegmentsThanFrames(Int, frames: Int64)
    case tooFewGOPs(segments: Int, frames: Int64, gops: Int64, gop: Int64)
    /// `what` ("-o", "the current folder") names a path, quoted, that a job script cannot carry.
    case unscriptablePath(what: String, quoted: String)
    case backslashInOutput(String)
    case setByEachTask(option: String)
    // The work folder.
    case underWay(work: String, output: String)
    case manifestsUnderWay(work: String, output: String)
    case cannotMakeWorkFolder(work: String, why: String)
    case nothingToResume(work: String)
    case plannedForAnother(work: String)
    case stillActive(work: String, job: String, state: String)
    case noPlan(path: String, work: String)
    case unreadablePlan(path: String)
    // Slurm.
    case sbatchNotFound
    case slurmNotInstalled
    /// `command` ("sbatch SCRIPT", "squeue", "scancel") failed; `why` is its last line or status.
    case slurmCommandFailed(command: String, why: String)
    case cannotRun(String, why: String)
    case timedOut(output: String, jobs: [String], after: Double)
    case segmentsFailed(output: String, failed: Int, of: Int)
    case joinFailed(output: String, why: String, work: String)
    // Joining.
    case segmentNotDone(file: String, index: Int, frames: String)
    case frameCountMismatch(output: String, joined: Int64, planned: Int64)
    case failsVerify(output: String, violations: Int, first: String)

    public var description: String {
        switch self {
        case .placesInputs:
            "--segments cannot be combined with --sync audio, --offsets, --drift, --trim or --longest: a segment render places inputs only from their first frames."
        case .noFrameRate(let file): "\(file): no frame rate in the file; give one with --fps."
        case .unknownLength(let output):
            "\(output): the inputs do not say how many frames the output will have, so it cannot be split into segments."
        case .tooFewSegments(let n): "--segments must be at least 1 (got \(n))."
        case .gopTooShort(let gop): "--gop must be at least 1 (got \(gop))."
        case .noFrames: "the output has no frame to split into segments."
        case .moreSegmentsThanFrames(let n, let frames): "--segments \(n) is more than the output's \(frames) frames."
        case .tooFewGOPs(let n, let frames, let gops, let gop):
            "--segments \(n): the output's \(frames) frames make only \(gops) GOPs of \(gop) frames and segments start on a GOP; use at most \(gops) (or a smaller --gop)."
        case .unscriptablePath(let what, let quoted):
            "\(what) \(quoted): a path with a line break or another control character cannot go into a job script; use another name."
        case .backslashInOutput(let output):
            "\(output): --slurm cannot use an output path with a backslash: sbatch then ignores the %a that names each task's log."
        case .setByEachTask(let option): "\(option) cannot be given with --segments: each segment task sets it."
        case .underWay(let work, let output):
            "\(work): a scale-out of \(output) is already under way or failed; add --resume to finish it, or remove the folder."
        case .manifestsUnderWay(let work, let output):
            "\(work): a scale-out of \(output) is already under way or failed; remove the folder to write new manifests."
        case .cannotMakeWorkFolder(let work, let why): "\(work): cannot make the work folder: \(why)"
        case .nothingToResume(let work): "\(work): no work folder to resume (the scale-out finished, or never started)."
        case .plannedForAnother(let work): "\(work) was planned for another command, other arguments or segments; remove it to start again."
        case .stillActive(let work, let job, let state):
            "\(work): job \(job) of this scale-out is still \(state); add --wait to wait for it, or scancel it before --resume."
        case .noPlan(let path, let work): "\(path): no scale-out plan there (is \(work) a work folder of lockstep composite --segments?)."
        case .unreadablePlan(let path): "\(path): not a readable scale-out plan."
        case .sbatchNotFound: "--slurm: sbatch not found on PATH."
        case .slurmNotInstalled: "--slurm: sbatch not found on PATH; install Slurm's client (slurm-client) or try scripts/tools/slurm-local up."
        case .slurmCommandFailed(let command, let why): "\(command) failed: \(why)"
        case .cannotRun(let exe, let why): "cannot run \(exe): \(why)"
        case .timedOut(let output, let jobs, let seconds):
            "\(output): not finished after --wait-timeout \(Self.seconds(seconds)) s; \(Self.names(jobs)) left running (squeue -j \(jobs.joined(separator: ","))); run the same command with --resume --wait to wait again."
        case .segmentsFailed(let output, let failed, let of):
            "\(output): \(failed) of \(of) segments failed and the join was cancelled; nothing was written under that name. Run the same command with --resume to render only those again."
        case .joinFailed(let output, let why, let work):
            "\(output): the join failed (\(why)); the segments are kept in \(work): run the same command with --resume to join again."
        case .segmentNotDone(let file, let index, let frames): "\(file): segment \(index) (frames \(frames)) is not done; nothing was joined."
        case .frameCountMismatch(let output, let joined, let planned):
            "\(output): the segments hold \(joined) frames, the plan \(planned); nothing was written."
        case .failsVerify(let output, let violations, let first):
            "\(output): the joined movie fails verify (\(violations) violations; first: \(first)); nothing was written."
        }
    }

    /// "job 42", "jobs 41 and 42", "jobs 40, 41 and 42".
    private static func names(_ jobs: [String]) -> String {
        jobs.count == 1 ? "job \(jobs[0])" : "jobs " + jobs.dropLast().joined(separator: ", ") + " and " + jobs.last!
    }

    /// 60 as "60", 1.5 as "1.5".
    private static func seconds(_ s: Double) -> String { s == s.rounded() ? String(Int(s)) : String(s) }
}
