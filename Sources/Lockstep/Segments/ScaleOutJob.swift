import Compositor
import Foundation
import Media

/// Where a scale-out goes.
public enum ScaleOutTarget: Sendable, Equatable {
    case slurm(SlurmSettings)
    case kubernetes(KubernetesSettings)
}

/// `lockstep composite ... -o OUT --segments N --slurm|--emit k8s`.
public struct ScaleOutRequest: Sendable {
    public var composite: CompositeOptions
    /// The subcommand the segment tasks run (`composite`, `snake`, `filter`): each renders
    /// through the composite pipeline.
    public var command = "composite"
    /// The user's arguments after the subcommand, as typed.
    public var arguments: [String]
    public var segments: Int
    public var target: ScaleOutTarget
    public var dryRun = false
    public var wait = false
    /// With `wait`: stop waiting after this many seconds (the jobs go on).
    public var waitTimeout: Double?
    public var resume = false
    /// Whether the user gave --gop. Without it the GOP is chosen so that the output's frames
    /// make `segments` segments (at most the default 250), said, and passed to the tasks.
    public var gopGiven = true
    /// Absolute path of the lockstep binary the tasks run.
    public var lockstep: String
    public init(composite: CompositeOptions, arguments: [String], segments: Int, target: ScaleOutTarget, lockstep: String) {
        self.composite = composite; self.arguments = arguments; self.segments = segments; self.target = target; self.lockstep = lockstep
    }
}

/// Plans a scale-out, writes its work folder beside the output and submits it to Slurm (or
/// writes Kubernetes manifests). Its notices are the lines a person reads (job ids, the scripts
/// of a dry run, the outcome of `--wait`). `cancel()` stops it before anything is submitted, or
/// stops a `--wait` (the jobs go on); a submission under way is finished first.
public final class ScaleOutJob: Job {
    public let options: ScaleOutRequest
    private let events: JobEvents
    private let stopped = Alarm()

    public init(options: ScaleOutRequest, events: JobEvents = JobEvents()) { self.options = options; self.events = events }

    public func cancel() { stopped.ring() }

    public func run() throws {
        try Self.run(options, stopped: stopped, say: events.notice ?? { _ in })
    }

    /// The running binary, by absolute path (what the tasks run on every node).
    public static func currentExecutable() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    static func run(_ request: ScaleOutRequest, stopped: Alarm, say: (String) -> Void) throws {
        let plan = try makePlan(request)
        if stopped.isRung { throw JobError.cancelled }
        if !request.gopGiven && plan.gop != Int64(request.composite.encode.gop) {
            say("# --gop \(plan.gop) chosen (not given): the output's \(plan.totalFrames) frames in \(request.segments) segments that start on a GOP")
        }
        switch request.target {
        case .slurm(let settings): try runSlurm(plan, settings: settings, request: request, stopped: stopped, say: say)
        case .kubernetes(let settings): try emitKubernetes(plan, settings: settings, request: request, say: say)
        }
    }

    /// Counts the output's frames the way the single pass does (`CompositeJob.expectedFrames`:
    /// the shortest input, from MP4's sample table where there is one) and splits them.
    static func makePlan(_ request: ScaleOutRequest) throws -> ScaleOutPlan {
        let options = request.composite
        try options.check()
        // Every file the tasks read, the matte too: the join must not replace any of them.
        try OutputPath.check(options.output, inputs: options.readerPaths)
        var arguments = try ScaleOutCommandLine.segmentArguments(request.arguments)
        var gop = Int64(options.encode.gop)
        if options.placesInputsInTime {
            throw ScaleOutError.placesInputs
        }
        let readers = try options.inputs.map { try MovieReader(path: $0, audio: false) }
        // The single pass's default rate (the first input's nominal rate), so the plan's count is its.
        guard let frameRate = options.frameRate ?? CompositeJob.defaultFrameRate(readers) else {
            throw ScaleOutError.noFrameRate(options.inputs.first ?? options.output)
        }
        guard let frames = CompositeJob.expectedFrames(readers, sync: options.sync, frameRate: frameRate) else {
            throw ScaleOutError.unknownLength(output: options.output)
        }
        if !request.gopGiven, request.segments >= 1, frames / Int64(request.segments) < gop {
            // 60 frames in 4 segments: a GOP of 15, not "only 1 GOPs of 250 frames".
            gop = max(1, frames / Int64(request.segments))
            let flag = ["--gop", String(gop)]
            if let i = arguments.firstIndex(of: "--") { arguments.insert(contentsOf: flag, at: i) } else { arguments += flag }
        }
        let cwd = FileManager.default.currentDirectoryPath
        let output = URL(fileURLWithPath: options.output, relativeTo: URL(fileURLWithPath: cwd, isDirectory: true)).standardizedFileURL.path
        let plan = try ScaleOutPlan(
            lockstep: request.lockstep, command: request.command, arguments: arguments, output: output, workingDirectory: cwd,
            totalFrames: frames, gop: gop, segments: request.segments)
        try plan.checkScriptPaths()
        return plan
    }

    // MARK: Slurm

    static func runSlurm(_ fresh: ScaleOutPlan, settings: SlurmSettings, request: ScaleOutRequest, stopped: Alarm, say: (String) -> Void) throws {
        try fresh.checkSlurmPaths()
        let submitter: SlurmSubmitter? = request.dryRun ? try? SlurmSubmitter() : try SlurmSubmitter()
        let work = fresh.work
        var plan = fresh
        var todo = Array(plan.segments.indices)
        if request.resume {
            // A scale-out whose jobs still run (a `--wait` that timed out): wait for them again.
            if request.wait, !request.dryRun, let submitter, let jobs = try stillRunning(fresh, submitter: submitter) {
                say("waiting again for jobs \(jobs.joined(separator: ", ")) of this scale-out")
                return try waitAndReport(
                    try ScaleOutStore.loadPlan(work: work), jobs: jobs, submitter: submitter,
                    timeout: request.waitTimeout, stopped: stopped, say: say)
            }
            plan = try resumablePlan(fresh, submitter: submitter)
            todo = plan.segments.indices.filter { !FileManager.default.fileExists(atPath: plan.doneMarker($0)) }
        } else if FileManager.default.fileExists(atPath: work) {
            throw ScaleOutError.underWay(work: work, output: plan.output)
        }
        let segmentScript = plan.segmentScript(indices: todo, slurm: settings)
        let joinScript = plan.joinScript(slurm: settings)
        if request.dryRun {
            say("# \(plan.segments.count) segment\(plan.segments.count == 1 ? "" : "s") of \(plan.totalFrames) frames (GOP \(plan.gop)): \(plan.segments.map(\.description).joined(separator: " "))")
            if !todo.isEmpty {
                say("# sbatch --parsable \(plan.segmentScriptFile)")
                say(segmentScript)
            }
            say("# sbatch --parsable \(todo.isEmpty ? "" : ScaleOutPlan.joinSubmitArguments(afterArray: "<array id>").joined(separator: " ") + " ")\(plan.joinScriptFile)")
            say(joinScript)
            return
        }
        guard let submitter else { throw ScaleOutError.sbatchNotFound }
        // The last moment a cancel leaves nothing behind; from here the submission is not cut
        // in half (an array without its join), only the wait can be stopped.
        if stopped.isRung { throw JobError.cancelled }
        if !request.resume {
            do { try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: false) } catch {
                throw ScaleOutError.cannotMakeWorkFolder(work: work, why: error.localizedDescription)
            }
            try ScaleOutStore.save(plan)
        }
        for i in todo { unlink(plan.segmentLog(i)) }
        try ScaleOutStore.write(Data(segmentScript.utf8), to: plan.segmentScriptFile, executable: true)
        try ScaleOutStore.write(Data(joinScript.utf8), to: plan.joinScriptFile, executable: true)
        var ids: [String] = []
        var joinArguments: [String] = []
        if !todo.isEmpty {
            let array = try submitter.submit(plan.segmentScriptFile)
            ids.append(array)
            joinArguments = ScaleOutPlan.joinSubmitArguments(afterArray: array)
            say("submitted segments \(ScaleOutPlan.arraySpec(todo)) of \(plan.segments.count) as job array \(array)")
        }
        let join: String
        do { join = try submitter.submit(plan.joinScriptFile, arguments: joinArguments) } catch {
            if !ids.isEmpty { try? submitter.cancel(ids) }
            throw error
        }
        ids.append(join)
        try ScaleOutStore.saveJobs(ids, work: work)
        say("submitted the join as job \(join)" + (todo.isEmpty ? "" : " (after job \(ids[0]) succeeds)"))
        if request.wait { try waitAndReport(plan, jobs: ids, submitter: submitter, timeout: request.waitTimeout, stopped: stopped, say: say) }
    }

    /// The plan in the work folder, when it is the same render as the one asked for and none
    /// of its jobs still runs.
    static func resumablePlan(_ fresh: ScaleOutPlan, submitter: SlurmSubmitter?) throws -> ScaleOutPlan {
        guard FileManager.default.fileExists(atPath: fresh.work) else {
            throw ScaleOutError.nothingToResume(work: fresh.work)
        }
        let saved = try ScaleOutStore.loadPlan(work: fresh.work)
        guard saved.isSameRender(as: fresh) else {
            throw ScaleOutError.plannedForAnother(work: fresh.work)
        }
        if let submitter {
            let jobs = ScaleOutStore.loadJobs(work: fresh.work)
            if !jobs.isEmpty, let active = try submitter.states(of: jobs).first(where: { SlurmSubmitter.activeStates.contains($0.state) }) {
                throw ScaleOutError.stillActive(work: fresh.work, job: active.id, state: active.state.lowercased())
            }
        }
        return saved
    }

    /// The saved jobs of the scale-out in `fresh`'s work folder that are still pending or
    /// running, nil if none (or no work folder, or another render's).
    static func stillRunning(_ fresh: ScaleOutPlan, submitter: SlurmSubmitter) throws -> [String]? {
        guard FileManager.default.fileExists(atPath: fresh.planFile),
            let saved = try? ScaleOutStore.loadPlan(work: fresh.work),
            saved.isSameRender(as: fresh)
        else { return nil }
        let jobs = ScaleOutStore.loadJobs(work: fresh.work)
        guard !jobs.isEmpty, try submitter.anyActive(jobs) else { return nil }
        return jobs
    }

    /// Polls squeue until no job of the scale-out is pending or running, then says what happened.
    /// After `timeout` seconds it stops waiting, leaves the jobs running and throws a sentence
    /// naming them (`--resume --wait` waits again); cancelled, it stops waiting (the jobs go on).
    static func waitAndReport(
        _ plan: ScaleOutPlan, jobs: [String], submitter: SlurmSubmitter, timeout: Double? = nil,
        stopped: Alarm = Alarm(), poll: Double = 0.5, say: (String) -> Void
    ) throws {
        let start = ProcessInfo.processInfo.systemUptime  // monotonic: a clock change cannot end the wait
        while try submitter.anyActive(jobs) {
            if stopped.isRung { throw JobError.cancelled }
            let waited = ProcessInfo.processInfo.systemUptime - start
            if let timeout, waited >= timeout { throw ScaleOutError.timedOut(output: plan.output, jobs: jobs, after: timeout) }
            // Woken at once by `cancel()`: a stop does not sit out the poll.
            stopped.wait(min(poll, timeout.map { max(0.001, $0 - waited) } ?? poll))
        }
        if !FileManager.default.fileExists(atPath: plan.work) && FileManager.default.fileExists(atPath: plan.output) {
            say("joined \(plan.output): \(plan.totalFrames) frames from \(plan.segments.count) segments, verify clean")
            return
        }
        let failed = plan.segments.indices.filter { !FileManager.default.fileExists(atPath: plan.doneMarker($0)) }
        for i in failed {
            let why = lastLine(of: plan.segmentLog(i)) ?? "no log"
            say("segment \(i) (frames \(plan.segments[i])) failed: \(why)")
        }
        if !failed.isEmpty {
            throw ScaleOutError.segmentsFailed(output: plan.output, failed: failed.count, of: plan.segments.count)
        }
        throw ScaleOutError.joinFailed(output: plan.output, why: lastLine(of: plan.joinLog) ?? "no log", work: plan.work)
    }

    /// What a task's log says went wrong: its last "Error:" line (a usage error is followed by
    /// the usage text), else its last line.
    static func lastLine(of path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        return (lines.last { $0.hasPrefix("Error:") } ?? lines.last).map(String.init)
    }

    // MARK: Kubernetes

    static func emitKubernetes(_ plan: ScaleOutPlan, settings: KubernetesSettings, request: ScaleOutRequest, say: (String) -> Void) throws {
        let work = plan.work
        let segmentsFile = work + "/k8s-segments.yaml", joinFile = work + "/k8s-join.yaml", readmeFile = work + "/README-k8s.txt"
        let segments = plan.kubernetesSegmentsJob(settings), join = plan.kubernetesJoinJob(settings)
        let readme = plan.kubernetesReadme(segmentsFile: segmentsFile, joinFile: joinFile)
        if request.dryRun {
            say("# \(segmentsFile)\n\(segments)---\n# \(joinFile)\n\(join)")
            return
        }
        if FileManager.default.fileExists(atPath: work) {
            throw ScaleOutError.manifestsUnderWay(work: work, output: plan.output)
        }
        do { try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: false) } catch {
            throw ScaleOutError.cannotMakeWorkFolder(work: work, why: error.localizedDescription)
        }
        try ScaleOutStore.save(plan)
        try ScaleOutStore.write(
            Data(plan.segmentScript(indices: Array(plan.segments.indices), slurm: SlurmSettings()).utf8),
            to: plan.segmentScriptFile, executable: true)
        try ScaleOutStore.write(Data(segments.utf8), to: segmentsFile)
        try ScaleOutStore.write(Data(join.utf8), to: joinFile)
        try ScaleOutStore.write(Data(readme.utf8), to: readmeFile)
        say("wrote \(segmentsFile), \(joinFile) and \(readmeFile)")
        say(readme)
    }
}
