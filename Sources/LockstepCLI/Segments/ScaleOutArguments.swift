import ArgumentParser
import Foundation
import Lockstep

enum EmitTarget: String, CaseIterable, ExpressibleByArgument {
    case k8s
}

/// `composite`'s scale-out options: N segment renders on a Slurm job array (or Kubernetes
/// manifests), then one join.
struct ScaleOutArguments: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Render in N segments (cut on multiples of --gop), each a task of its own, then join them by copy.", valueName: "N"))
    var segments: Int?

    @Flag(help: "Submit the segments as a Slurm job array and the join as a job that runs after it (the output's folder must be on storage every node shares).")
    var slurm = false

    @Option(help: ArgumentHelp("--slurm: the partition to submit to.", valueName: "P"))
    var partition: String?

    @Option(help: ArgumentHelp("--slurm: each task's time limit, as sbatch takes it.", valueName: "T"))
    var time: String?

    @Flag(name: .customLong("dry-run"), help: "Print the job scripts (or manifests) and submit nothing.")
    var dryRun = false

    @Flag(help: "--slurm: wait for the join and report (exit 1 when a segment or the join failed).")
    var wait = false

    @Option(
        name: .customLong("wait-timeout"), parsing: .unconditional,
        help: ArgumentHelp("--wait: stop waiting after SECONDS and exit 1, leaving the jobs running (--resume --wait waits again).", valueName: "SECONDS"))
    var waitTimeout: Double?

    @Flag(help: "--slurm: submit again only the segments not done, then the join.")
    var resume = false

    @Option(help: ArgumentHelp("Write Kubernetes manifests (an Indexed Job and a join Job) instead of submitting.", valueName: "k8s"))
    var emit: EmitTarget?

    @Option(help: ArgumentHelp("--emit k8s: a container image with lockstep on its PATH.", valueName: "IMAGE"))
    var image: String = KubernetesSettings().image

    @Option(name: .customLong("volume-claim"), help: ArgumentHelp("--emit k8s: the PersistentVolumeClaim mounted at the output's folder.", valueName: "NAME"))
    var volumeClaim: String = KubernetesSettings().volumeClaim

    var requested: Bool { segments != nil || slurm || emit != nil }

    func validate() throws {
        guard requested else {
            for (given, name) in [
                (partition != nil, "--partition"), (time != nil, "--time"), (dryRun, "--dry-run"), (wait, "--wait"),
                (waitTimeout != nil, "--wait-timeout"), (resume, "--resume")
            ] where given {
                throw ValidationError("\(name) needs --segments N with --slurm.")
            }
            return
        }
        guard let segments else { throw ValidationError("\(slurm ? "--slurm" : "--emit k8s") needs --segments N.") }
        guard segments >= 1 else { throw ValidationError("--segments must be at least 1 (got \(segments)).") }
        if slurm && emit != nil { throw ValidationError("--slurm and --emit k8s exclude each other: submit, or write manifests.") }
        guard slurm || emit != nil else { throw ValidationError("--segments needs --slurm or --emit k8s.") }
        if emit != nil {
            for (given, name) in [
                (partition != nil, "--partition"), (time != nil, "--time"), (wait, "--wait"),
                (waitTimeout != nil, "--wait-timeout"), (resume, "--resume")
            ] where given {
                throw ValidationError("\(name) goes with --slurm, not --emit k8s.")
            }
        }
        if wait && dryRun { throw ValidationError("--wait and --dry-run exclude each other: a dry run submits nothing.") }
        // Both go into the scripts as `#SBATCH --partition=P` lines: a line break would start a
        // line bash runs, a space would cut the directive.
        if let partition, !SlurmSettings.isDirectiveWord(partition) {
            throw ValidationError("--partition must be a Slurm partition name (letters, digits, - _ . , only), found '\(MessageText.quote(partition))'.")
        }
        if let time, !SlurmSettings.isDirectiveWord(time) {
            throw ValidationError("--time must be a Slurm time limit such as 2:00:00 or 1-12 (letters, digits, - _ . , : only), found '\(MessageText.quote(time))'.")
        }
        if let waitTimeout {
            guard wait else { throw ValidationError("--wait-timeout needs --wait.") }
            guard waitTimeout.isFinite, waitTimeout > 0 else {
                throw ValidationError("--wait-timeout must be a positive number of seconds (got \(waitTimeout)).")
            }
        }
    }

    var target: ScaleOutTarget {
        if emit == .k8s { return .kubernetes(KubernetesSettings(image: image, volumeClaim: volumeClaim)) }
        return .slurm(SlurmSettings(partition: partition, time: time))
    }

    /// Runs the scale-out of `options`; the segment tasks run `command` (`composite`, `snake`,
    /// `filter`) with the user's own arguments.
    func run(_ options: CompositeOptions, command: String = "composite", gopGiven: Bool) throws {
        let raw = Array(CommandLine.arguments.dropFirst())
        let arguments = raw.first == command ? Array(raw.dropFirst()) : raw
        var request = ScaleOutRequest(
            composite: options, arguments: arguments, segments: segments ?? 1, target: target,
            lockstep: ScaleOutJob.currentExecutable())
        request.command = command
        request.dryRun = dryRun
        request.wait = wait
        request.waitTimeout = waitTimeout
        request.resume = resume
        request.gopGiven = gopGiven
        try runJob(
            ScaleOutJob.self, request, notice: { print($0) },
            cancelledLine: "cancelled; jobs already submitted keep running (squeue shows them; --resume --wait waits for them again)")
    }
}

/// The join task of a scale-out (run by the job scripts, not by people).
struct JoinSegmentsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join-segments",
        abstract: "Join a scale-out's segments by copy, verify, and rename the result into place.",
        shouldDisplay: false)

    @Argument(help: ArgumentHelp("The work folder beside the output.", valueName: "WORK"))
    var work: String

    func run() throws {
        let r = try runJob(SegmentJoinJob.self, SegmentJoinOptions(work: work))
        let audio = r.audioSamples.map { String(format: ", audio %.3f s", Double($0) / 48_000) } ?? ", no audio"
        print("joined \(r.output): \(r.frames) frames from \(r.segments) segments\(audio), verify clean")
    }
}
