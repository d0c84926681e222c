import Foundation
import Motion

/// A range is stored in plan.json as the text the CLI takes ("A:B").
extension FrameRange: Codable {
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        let parts = text.split(separator: ":")
        guard parts.count == 2, let a = Int64(parts[0]), let b = Int64(parts[1]), a >= 0, b > a else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a frame range A:B: \(text)")
        }
        self.init(start: a, end: b)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

/// A composite split into N segment renders and one join: the segments' frame ranges, the
/// command each segment task runs, and the text of the job scripts. Pure (no I/O): the plan is
/// a value, written as `plan.json` into the work folder so that the join task and `--resume`
/// read the same plan the submission made.
///
/// Segment boundaries fall on multiples of the GOP length G: the single pass has a keyframe
/// every G frames, so a segment starting at a multiple of G starts where the single pass has an
/// IDR frame, and the joined file's keyframes are the single pass's.
public struct ScaleOutPlan: Codable, Equatable, Sendable {
    /// Absolute path of the lockstep binary the tasks run (the one that made the plan).
    public var lockstep: String
    /// The subcommand the tasks run: `composite`, `snake` or `filter`.
    public var command: String
    /// The user's composite arguments without the output and the scale-out options.
    public var arguments: [String]
    /// Absolute path of the final output.
    public var output: String
    /// Where the submission ran; the tasks run there too, so relative inputs mean the same.
    public var workingDirectory: String
    public var totalFrames: Int64
    public var gop: Int64
    public var segments: [FrameRange]

    public init(
        lockstep: String, command: String = "composite", arguments: [String], output: String, workingDirectory: String,
        totalFrames: Int64, gop: Int64, segments count: Int
    ) throws {
        self.lockstep = lockstep
        self.command = command
        self.arguments = arguments
        self.output = output
        self.workingDirectory = workingDirectory
        self.totalFrames = totalFrames
        self.gop = gop
        self.segments = try Self.boundaries(frames: totalFrames, segments: count, gop: gop)
    }

    /// A plan.json as saved; one written before segment tasks could run `snake` or `filter` has
    /// no `command` and is a composite's (a join or a `--resume` after an upgrade read it as
    /// "not a readable scale-out plan").
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        lockstep = try c.decode(String.self, forKey: .lockstep)
        command = try c.decodeIfPresent(String.self, forKey: .command) ?? "composite"
        arguments = try c.decode([String].self, forKey: .arguments)
        output = try c.decode(String.self, forKey: .output)
        workingDirectory = try c.decode(String.self, forKey: .workingDirectory)
        totalFrames = try c.decode(Int64.self, forKey: .totalFrames)
        gop = try c.decode(Int64.self, forKey: .gop)
        segments = try c.decode([FrameRange].self, forKey: .segments)
    }

    /// The work folder beside the output: `.NAME.lockstep-work`. Hidden, and on the same
    /// (shared) file system as the output, so the join's rename into place is atomic.
    public static func workFolder(for output: String) -> String {
        let url = URL(fileURLWithPath: output)
        return url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".lockstep-work").path
    }

    public var work: String { Self.workFolder(for: output) }

    /// `segments` ranges covering [0, frames): whole GOPs shared out as evenly as possible (the
    /// first segments take the extra GOPs); only the last range may end off a multiple of G.
    public static func boundaries(frames: Int64, segments: Int, gop: Int64) throws -> [FrameRange] {
        guard segments >= 1 else { throw ScaleOutError.tooFewSegments(segments) }
        guard gop >= 1 else { throw ScaleOutError.gopTooShort(gop) }
        guard frames >= 1 else { throw ScaleOutError.noFrames }
        guard Int64(segments) <= frames else {
            throw ScaleOutError.moreSegmentsThanFrames(segments, frames: frames)
        }
        let gops = (frames + gop - 1) / gop
        guard Int64(segments) <= gops else {
            throw ScaleOutError.tooFewGOPs(segments: segments, frames: frames, gops: gops, gop: gop)
        }
        let n = Int64(segments)
        let cuts = (0...n).map { i in min(frames, gop * ((i * gops) / n)) }
        return (0..<segments).map { FrameRange(start: cuts[$0], end: $0 + 1 == segments ? frames : cuts[$0 + 1]) }
    }

    // MARK: Files in the work folder

    public static func segmentName(_ i: Int) -> String { String(format: "seg-%04d", i) }
    public func segmentFile(_ i: Int) -> String { work + "/" + Self.segmentName(i) + ".mkv" }
    /// Written (by rename) after the segment's file is complete: the segment is done.
    public func doneMarker(_ i: Int) -> String { work + "/" + Self.segmentName(i) + ".done" }
    public func segmentLog(_ i: Int) -> String { work + "/" + Self.segmentName(i) + ".log" }
    public var planFile: String { work + "/plan.json" }
    public var segmentScriptFile: String { work + "/segment.sh" }
    public var joinScriptFile: String { work + "/join.sh" }
    public var joinLog: String { work + "/join.log" }

    /// Whether `other` renders the same output the same way (its segments can be resumed or
    /// waited for as this plan's): the same subcommand, arguments, output and segments.
    public func isSameRender(as other: ScaleOutPlan) -> Bool {
        command == other.command && arguments == other.arguments && output == other.output && segments == other.segments
    }

    /// The command of segment `i`, as an argument vector (the binary first).
    public func segmentCommand(_ i: Int) -> [String] {
        [lockstep, command] + arguments + ["--frames", segments[i].description, "--audio-codec", "flac", "-o", segmentFile(i)]
    }

    // MARK: Scripts

    /// The array task script. The task index comes from Slurm (`SLURM_ARRAY_TASK_ID`) or from a
    /// Kubernetes Indexed Job (`JOB_COMPLETION_INDEX`); `LOCKSTEP` overrides the binary (a
    /// container has it on PATH, not at this machine's path). `indices` is the array's list
    /// (every segment, or the ones `--resume` reruns).
    public func segmentScript(indices: [Int], slurm: SlurmSettings) -> String {
        var s = scriptHead(
            job: "lockstep-seg", log: "seg-%4a.log", slurm: slurm,
            about: """
                task i renders its output frames A:B (below) into
                # seg-i.mkv in the work folder, then marks itself done by renaming seg-i.done into place.
                """, extra: "#SBATCH --array=\(Self.arraySpec(indices))\n")
        s += "i=${SLURM_ARRAY_TASK_ID:-${JOB_COMPLETION_INDEX:?neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set}}\n"
        s += "case $i in\n"
        for (i, r) in segments.enumerated() { s += "  \(i)) frames=\(r) ;;\n" }
        s += "  *) echo \"lockstep: no segment $i in this plan\" >&2; exit 64 ;;\n"
        s += "esac\n"
        s += "n=$(printf %04d \"$i\")\n"
        s += "work=\(Self.shellQuote(work))\n"
        s += "\"$lockstep\" \(command) \(arguments.map(Self.shellQuote).joined(separator: " ")) --frames \"$frames\" --audio-codec flac -o \"$work/seg-$n.mkv\"\n"
        s += "echo \"$frames\" > \"$work/seg-$n.done.tmp\"\n"
        s += "mv -f \"$work/seg-$n.done.tmp\" \"$work/seg-$n.done\"\n"
        return s
    }

    /// The join task's script (submitted with `--dependency=afterok:<array>`).
    public func joinScript(slurm: SlurmSettings) -> String {
        scriptHead(job: "lockstep-join", log: "join.log", slurm: slurm, about: "joins the segments by copy, verifies, renames into place.")
            + "exec \"$lockstep\" join-segments \(Self.shellQuote(work))\n"
    }

    /// What both scripts start with: the sbatch directives, strict bash, the binary to run.
    private func scriptHead(job: String, log: String, slurm: SlurmSettings, about: String, extra: String = "") -> String {
        var s = "#!/bin/bash\n"
        s += "# Lockstep scale-out of \(Self.comment(output)): \(about)\n"
        s += "#SBATCH --job-name=\(job)\n" + extra
        s += "#SBATCH --output=\(Self.sbatchQuote(Self.sbatchLiteral(work) + "/" + log))\n"
        s += "#SBATCH --chdir=\(Self.sbatchQuote(workingDirectory))\n"
        s += slurm.directives
        s += "set -euo pipefail\n"
        s += "lockstep=${LOCKSTEP:-\(Self.shellQuote(lockstep))}\n"
        return s
    }

    /// The sbatch arguments of the join, after the array's id is known.
    public static func joinSubmitArguments(afterArray id: String) -> [String] {
        ["--dependency=afterok:\(id)", "--kill-on-invalid-dep=yes"]
    }

    /// Slurm's `--array` list: runs of consecutive indices as `a-b`, the rest comma-separated.
    public static func arraySpec(_ indices: [Int]) -> String {
        var parts: [String] = []
        var i = 0
        let sorted = indices.sorted()
        while i < sorted.count {
            var j = i
            while j + 1 < sorted.count && sorted[j + 1] == sorted[j] + 1 { j += 1 }
            parts.append(i == j ? "\(sorted[i])" : "\(sorted[i])-\(sorted[j])")
            i = j + 1
        }
        return parts.joined(separator: ",")
    }

    /// A value for an `#SBATCH` line: as it is when that is safe, else double-quoted. sbatch
    /// takes a directive's argument up to white space or an unquoted `#` (the rest of the line is
    /// a comment); inside "..." or '...' spaces and `#` are kept, and a backslash takes the next
    /// character as it is (Slurm's sbatch/opt.c, `_get_argument`). No shell reads these lines:
    /// `$` and backquotes are plain characters there.
    public static func sbatchQuote(_ s: String) -> String {
        if !s.isEmpty && !s.contains(where: { $0.isWhitespace || "#\"'\\".contains($0) }) { return s }
        return "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// A path inside sbatch's `--output` filename pattern: `%` is its replacement symbol and
    /// `%%` a plain `%` (sbatch(1), "filename pattern").
    public static func sbatchLiteral(_ path: String) -> String { path.replacingOccurrences(of: "%", with: "%%") }

    /// Text for a `#` comment line: a newline in a file name would end the comment.
    static func comment(_ s: String) -> String {
        s.replacingOccurrences(of: "\n", with: "?").replacingOccurrences(of: "\r", with: "?")
    }

    /// Paths no job script or manifest can carry, whatever the target: the output's path and
    /// the submitting folder go into comments, `#SBATCH` lines and YAML, where a line break (or
    /// another control character) would end the line and start one bash or YAML reads.
    public func checkScriptPaths() throws {
        for (what, p) in [("-o", output), ("the current folder", workingDirectory)] where p.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw ScaleOutError.unscriptablePath(what: what, quoted: MessageText.quote(p, limit: 200))
        }
    }

    /// Paths `#SBATCH` lines cannot carry beyond `checkScriptPaths`'s: a backslash in
    /// `--output` turns off the `%a` that names each task's log (sbatch(1), "filename pattern").
    public func checkSlurmPaths() throws {
        try checkScriptPaths()
        if output.contains("\\") {
            throw ScaleOutError.backslashInOutput(output)
        }
    }

    /// A word for bash: as it is when it holds only safe characters, else single-quoted.
    public static func shellQuote(_ s: String) -> String {
        let safe = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%")
        if !s.isEmpty && s.unicodeScalars.allSatisfy({ safe.contains($0) }) { return s }
        return "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// What the user asked of Slurm beyond the defaults.
public struct SlurmSettings: Codable, Equatable, Sendable {
    public var partition: String?
    public var time: String?
    public init(partition: String? = nil, time: String? = nil) { self.partition = partition; self.time = time }

    /// A value that can stand after `#SBATCH --partition=` or `--time=` as one word.
    public static func isDirectiveWord(_ s: String) -> Bool {
        !s.isEmpty
            && s.unicodeScalars.allSatisfy { c in
                switch c {
                case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", ",", ":": return true;
                default: return false
                }
            }
    }

    var directives: String {
        var s = ""
        if let partition { s += "#SBATCH --partition=\(ScaleOutPlan.sbatchQuote(partition))\n" }
        if let time { s += "#SBATCH --time=\(ScaleOutPlan.sbatchQuote(time))\n" }
        return s
    }
}
