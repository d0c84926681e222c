import Foundation
import Media
import Verify

/// What the join made.
public struct SegmentJoinResult: Sendable {
    public var output: String
    public var frames: Int64
    public var segments: Int
    public var audioSamples: Int64?
}

/// The join task of a scale-out (`lockstep join-segments WORK`): joins the segments by copy
/// (`ConcatCopy.join`: video packets copied, the segments' FLAC decoded once and AAC encoded
/// once, so there is one priming at the start and every join is sample-exact), runs `verify` on
/// the result, renames it into place and removes the work folder. On any failure the output's
/// name is untouched and the work folder stays for `--resume`.
public struct SegmentJoinOptions: Sendable {
    /// The work folder beside the output.
    public var work: String
    public init(work: String) { self.work = work }
}

public final class SegmentJoinJob: Job {
    public let options: SegmentJoinOptions
    private let cancellation = CancellationToken()

    /// A join tells nothing while it runs: `events` is not used.
    public init(options: SegmentJoinOptions, events: JobEvents = JobEvents()) { self.options = options }

    /// Stops it before the copy or during the verify pass (the copy is short); the output's name
    /// stays untouched and the work folder stays for `--resume`.
    public func cancel() { cancellation.cancel() }

    public func run() throws -> SegmentJoinResult {
        let work = options.work
        let plan = try ScaleOutStore.loadPlan(work: work)
        for i in plan.segments.indices where !FileManager.default.fileExists(atPath: plan.doneMarker(i)) {
            throw ScaleOutError.segmentNotDone(file: plan.segmentFile(i), index: i, frames: "\(plan.segments[i])")
        }
        if cancellation.isCancelled { throw JobError.cancelled }
        let joined = try OutputPath.writing(to: plan.output) { file in
            let clips = plan.segments.indices.map(plan.segmentFile)
            let joined = try ConcatCopy.join(clips, into: file.path, container: OutputPath.container(for: plan.output), provenance: .kept)
            guard joined.frames == plan.totalFrames else {
                throw ScaleOutError.frameCountMismatch(output: plan.output, joined: joined.frames, planned: plan.totalFrames)
            }
            let report = Checks.run(try VerifyJob.scan(file.path, cancellation: cancellation))
            guard report.ok else {
                let first = report.violations.first.map { "\($0.kind.rawValue): \($0.message)" } ?? ""
                throw ScaleOutError.failsVerify(output: plan.output, violations: report.violations.count, first: first)
            }
            return joined
        }
        // The work folder goes last: its absence tells a waiting submitter the join succeeded.
        try? FileManager.default.removeItem(atPath: work)
        return SegmentJoinResult(output: plan.output, frames: joined.frames, segments: plan.segments.count, audioSamples: joined.audioSamples)
    }
}

/// The plan and the submitted job ids, as files in the work folder.
public enum ScaleOutStore {
    static func jobsFile(_ work: String) -> String { work + "/jobs.json" }

    public static func loadPlan(work: String) throws -> ScaleOutPlan {
        let path = work + "/plan.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScaleOutError.noPlan(path: path, work: work)
        }
        do { return try JSONDecoder().decode(ScaleOutPlan.self, from: data) } catch {
            throw ScaleOutError.unreadablePlan(path: path)
        }
    }

    static func save(_ plan: ScaleOutPlan) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try write(try encoder.encode(plan), to: plan.planFile)
    }

    static func loadJobs(work: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: jobsFile(work)) else { return [] }
        return (try? JSONDecoder().decode([String].self, from: data)) ?? []
    }

    static func saveJobs(_ ids: [String], work: String) throws {
        try write(try JSONEncoder().encode(ids), to: jobsFile(work))
    }

    /// Writes through `OutputPath` (a hidden temporary renamed into place), so a reader never
    /// sees half a file and a stopped run leaves none.
    static func write(_ data: Data, to path: String, executable: Bool = false) throws {
        try OutputPath.writing(to: path) { file in
            try file.writeAll(data)
            if executable { chmod(file.path, 0o755) }
        }
    }
}
