import ArgumentParser
import Lockstep

/// `--keep-frames`, `--from T` and `--to T`, shared by every command that makes frames, so that
/// each keeps time, cuts and refuses the same way: every input's timeline is kept (dropped
/// frames, variable rates, edit lists) unless `--keep-frames` asks for every frame once.
struct TimelineArguments: ParsableArguments {
    @Flag(
        name: .customLong("keep-frames"),
        help:
            "Show every frame of each input once, at the output's rate, whatever its timestamps say (dropped frames, a variable rate, another rate): the old frame-by-frame behaviour. By default each input keeps its timeline and its sound stays on its picture."
    )
    var keepFrames = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Start the output at this time: the frame on screen then is its first (seconds, or HH:MM:SS.mmm).", valueName: "T"))
    var from: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("End the output at this time: its last frame is the one on screen just before (seconds, or HH:MM:SS.mmm).", valueName: "T"))
    var to: String?

    /// The cut asked for, nil without `--from` and `--to` (validate() has refused a bad one).
    var cut: TimeCut? {
        guard from != nil || to != nil else { return nil }
        return try? TimeCut(from: from, to: to)
    }

    func validate() throws {
        guard from != nil || to != nil else { return }
        try asUsage { _ = try TimeCut(from: from, to: to) }
    }

    func apply(to options: inout CompositeOptions) {
        if keepFrames { options.sync = .index }
        options.cut = cut
    }
}
