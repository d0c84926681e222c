import ArgumentParser
import Foundation
import Lockstep

struct ConcatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "concat",
        abstract: "Join clips end to end into one movie (H.264/AAC unless --codec or --hdr says otherwise).",
        discussion: """
            Each clip keeps its duration and its sync: clip k+1 starts where clip k's time ends, and \
            every output frame shows the clip's frame on screen at that instant (frames dropped or \
            repeated as time says, each recorded in the provenance); each clip fitted to the canvas (the \
            first clip's size and nominal rate unless given). Each clip's audio lies on its own picture \
            to the sample (silence where it is short or missing, cut where it is long). --keep-frames \
            shows every frame of every clip once instead (a clip at another rate plays faster or slower). With \
            --max-duration the output stops at the last whole frame at or before it, audio too. \
            --copy joins the compressed video without re-encoding when every clip has the same codec \
            parameters and starts with a keyframe (the audio is re-encoded once).
            """)

    @Option(name: .customLong("max-duration"), parsing: .unconditional, help: ArgumentHelp("Stop at the last whole frame at or before this many seconds.", valueName: "S"))
    var maxDuration: Rational?

    @Option(name: .customLong("crossfade-ms"), parsing: .unconditional, help: ArgumentHelp("Crossfade the audio over this many ms centred on each join, equal power (default: none).", valueName: "MS"))
    var crossfadeMs: Int?

    @Flag(help: "Join the compressed video by packet copy (same codec parameters, each clip starting with a keyframe).")
    var copy = false

    @OptionGroup(title: "Timeline and cuts") var timeline: TimelineArguments
    @Option(help: SegmentArguments.framesHelp) var frames: String?
    @OptionGroup var layout: GOPAndAudioCodecArguments

    @Option(name: .customLong("stall-timeout"), parsing: .unconditional, help: ArgumentHelp("Stop with an error when a stage makes no progress for this long.", valueName: "seconds"))
    var stallTimeout: Double = 30

    @Flag(help: "No progress on stderr.")
    var quiet = false

    @OptionGroup(title: "Filters (on every clip's fitted picture, at output times)")
    var filters: FilterArguments

    @OptionGroup var encoding: EncodeArguments
    var output: String { encoding.output }

    @Argument(help: ArgumentHelp("The clips, in order.", valueName: "CLIP"))
    var clips: [String] = []

    var options: ConcatOptions {
        var options = ConcatOptions(clips: clips, output: output)
        options.maxDuration = maxDuration
        let out = encoding.out
        options.size = out.size
        options.frameRate = out.fps
        options.signal = out.signal
        options.toneCurve = out.tone
        options.deinterlace = out.deinterlace ?? .frame
        options.crossfadeMs = crossfadeMs
        options.copy = copy
        options.keepFrames = timeline.keepFrames
        options.cut = timeline.cut
        options.frames = frames.flatMap { try? FrameRange(parsing: $0) }
        options.encode = encoding.settings
        layout.apply(to: &options.encode)
        options.stallTimeout = stallTimeout
        // A chain that does not parse is refused by `filters.validate()` with its own sentence.
        options.filter = try? filters.schedule()
        return options
    }

    func validate() throws {
        if copy {
            let out = encoding.out
            for (given, name) in [
                (out.deinterlace != nil, "--deinterlace"), (out.toneCurve != nil, "--tonemap"), (out.crf != nil, "--crf"), (out.preset != nil, "--preset"),
                (layout.gop != nil, "--gop")
            ] where given {
                throw ValidationError("--copy cannot be combined with \(name): copied video is not decoded or re-encoded.")
            }
        }
        if let frames { try asUsage { _ = try FrameRange(parsing: frames) } }
        try encoding.validate(inputs: clips) { try options.check() }
    }

    func run() throws {
        let result = try runOutputJob(ConcatJob.self, options, quiet: quiet)
        let seconds = (result.frameRate.inverse * result.frames).seconds
        let audioNote = result.audioSamples.map { String(format: ", audio %.6f s", Double($0) / 48_000) } ?? ", no audio"
        print(
            "wrote \(output): \(result.frames) frames (\(result.clipFrames.map(String.init).joined(separator: " + "))), "
                + "\(result.canvas) at \(result.frameRate) fps, \(String(format: "%.6f", seconds)) s\(audioNote)")
    }
}
