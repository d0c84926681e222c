/// The segment tasks run the user's own `composite` arguments: the command line as typed, minus
/// the output and the scale-out options (which the plan replaces with `--frames`, `--audio-codec
/// flac` and `-o WORK/seg-NNNN.mkv`). Taken from the raw arguments rather than rebuilt from the
/// parsed options, so every composite option (present or added later) reaches the tasks as the
/// user wrote it. Pure.
public enum ScaleOutCommandLine {
    /// Options of ours that take a value.
    public static let valueOptions: Set<String> = ["--segments", "--partition", "--time", "--emit", "--image", "--volume-claim", "--wait-timeout", "-o", "--output"]
    /// Options of ours without a value.
    public static let flags: Set<String> = ["--slurm", "--dry-run", "--wait", "--resume"]
    /// Options a segment task sets itself: the user cannot give them with --segments.
    public static let reserved: Set<String> = ["--frames", "--audio-codec"]

    /// `arguments` are those after `composite`. Throws (one sentence) on a reserved option.
    public static func segmentArguments(_ arguments: [String]) throws -> [String] {
        var out: [String] = []
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--" { out += arguments[i...]; break }
            let name = a.hasPrefix("--") ? String(a.split(separator: "=", maxSplits: 1)[0]) : a
            if reserved.contains(name) { throw ScaleOutError.setByEachTask(option: name) }
            if flags.contains(a) { i += 1; continue }
            if valueOptions.contains(name) {
                i += a.contains("=") ? 1 : 2
                continue
            }
            if a.hasPrefix("-o") && a.count > 2 && !a.hasPrefix("--") { i += 1; continue }  // -oOUT
            out.append(a)
            i += 1
        }
        return out
    }
}
