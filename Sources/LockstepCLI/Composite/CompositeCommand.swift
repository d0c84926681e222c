import ArgumentParser
import Foundation
import Lockstep

struct CompositeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "composite",
        abstract: "Blend N movies frame by frame into one movie (H.264/AAC unless --codec or --hdr says otherwise).",
        discussion: """
            Every output frame is made of exactly one frame of every input: by default the frame on \
            screen at that instant (each input keeps its speed and its sound stays on its picture, \
            whatever the rates; --sync index takes frame k of every input instead; --sync audio first \
            finds where each input lies on the first one's clock from their sound, for cameras that \
            started at different moments, as `lockstep align` does). The output ends \
            when an input has no frame left for the next tick (a still picture is shown throughout; \
            --hold-last, --longest say otherwise), and its audio (all inputs mixed) ends with its video.
              chromakey  FOREGROUND BACKGROUND: the foreground's key colour shows the background
              quad       2 to 4 inputs in a 2x2 grid, in reading order
              grid       2 to 64 inputs in a grid (--layout RxC), in reading order
              pip        the first input on the whole canvas, 1 to 3 more in insets in a corner
              stack      2 to 4 inputs: the first is the bottom; each next one is keyed over it
              mix        2 to 4 inputs, weighted average
            """)

    @Option(help: "How the inputs are combined.")
    var blend: BlendMode

    @Option(
        help: ArgumentHelp(
            "time: the frame of each input on screen at k/fps (the default). index: output frame k uses frame k of every input. audio: time sync, each input placed on the first one's clock by its sound (offset and drift, as `lockstep align` finds them).",
            valueName: "index|time|audio"))
    var sync: SyncChoice = .time

    @OptionGroup(title: "Time placement (--sync time or audio)")
    var placement: PlacementArguments

    @Option(name: .customLong("key-color"), help: ArgumentHelp("Chroma key colour.", valueName: "RRGGBB"))
    var keyColor: RGB = RGB(r: 0, g: 255, b: 0)

    @Option(parsing: .unconditional, help: "--keyer gpuimage: chroma distance under which a pixel is fully keyed (0 to 1).")
    var similarity: Double = 0.4

    @Option(parsing: .unconditional, help: "--keyer gpuimage: width of the soft edge above --similarity (0 to 1).")
    var smoothness: Double = 0.1

    @OptionGroup(title: "Grid, quad and picture-in-picture")
    var cells: GridArguments

    @OptionGroup(title: "Placing a keyed foreground (chromakey)")
    var keyed: KeyPlacementArguments

    @OptionGroup(title: "Keyer (chromakey and stack)")
    var keying: KeyerArguments

    @Option(parsing: .unconditional, help: ArgumentHelp("Mix weights, one per input (default: equal).", valueName: "w1,w2,..."))
    var weights: NumberList?

    @Option(parsing: .unconditional, help: ArgumentHelp("Audio gain per input, linear (default: 1 each).", valueName: "g1,g2,..."))
    var gain: NumberList?

    @Option(help: ArgumentHelp("mix: every input's audio; none: no audio stream.", valueName: "mix|none"))
    var audio: AudioChoice = .mix

    @Option(
        name: .customLong("audio-from"), parsing: .unconditional,
        help: ArgumentHelp("Only this input's sound (1 is the first): one camera's microphone, not a mix of several, which combs.", valueName: "N"))
    var audioFrom: Int?

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Bring the output's sound to this integrated loudness (EBU R128): r128 for -23 LUFS, or a target in LUFS (--loudness=-16).", valueName: "r128|LUFS")
    )
    var loudness: LoudnessTarget?

    @Option(name: .customLong("stall-timeout"), parsing: .unconditional, help: ArgumentHelp("Stop with an error when a stage makes no progress for this long.", valueName: "seconds"))
    var stallTimeout: Double = 30

    @Flag(help: "No progress on stderr.")
    var quiet = false

    @Flag(help: "Conceal decode errors in the inputs and go on, naming each damaged frame in a warning and in the output's provenance (by default a damaged input stops the job).")
    var conceal = false

    @OptionGroup(title: "Filters (after the blend, before --snake)")
    var filters: FilterArguments

    @OptionGroup(title: "Matte (chromakey and stack)")
    var matte: MatteArguments

    @OptionGroup var alpha: AlphaArguments

    @OptionGroup(title: "Output (the same in every command that writes a movie)")
    var out: OutputArguments

    @Flag(name: .customLong("snake"), help: "Apply the video-snake effect last, driven by --imu.")
    var snakeEffect = false

    @OptionGroup(title: "Snake effect (with --snake)")
    var snake: SnakeArguments

    @Option(
        name: .customLong("stabilise"),
        help: ArgumentHelp("Stabilise these inputs from their own gyro (GPMF, CAMM) after they are fitted, before the blend: all, or input numbers (1 is the first).", valueName: "all|N,..."))
    var stabiliseInputs: String?

    @OptionGroup(title: "Timeline and cuts") var timeline: TimelineArguments
    @OptionGroup(title: "Segment renders")
    var segment: SegmentArguments

    @OptionGroup(title: "Scale-out (segments on a Slurm job array, or Kubernetes manifests)")
    var scaleOut: ScaleOutArguments

    @Option(name: .shortAndLong, help: ArgumentHelp("Output movie (.mp4, .m4v, .mov or .mkv).", valueName: "OUT"))
    var output: String

    @Argument(help: ArgumentHelp("Input movies.", valueName: "INPUT"))
    var inputs: [String] = []

    /// The options as the library takes them (without the snake's trace, read only in `run`).
    var options: CompositeOptions {
        var options = CompositeOptions(inputs: inputs, output: output, blend: blend)
        options.sync = sync == .index ? .index : .time
        options.clocksFromSound = sync == .audio
        placement.apply(to: &options)
        options.keyColor = keyColor
        options.similarity = similarity
        options.smoothness = smoothness
        options.keyer = keying.keyer
        options.keying = keying.settings
        options.weights = weights?.values
        options.gains = gain?.values
        options.audio = audio == .mix
        options.audioFrom = audioFrom.map { $0 - 1 }
        options.loudness = loudness?.lufs
        options.grid = cells.spec(inputs: inputs)
        options.keyPlacement = keyed.placement
        options.stallTimeout = stallTimeout
        options.conceal = conceal
        options.matte = matte.options
        options.keyAlphaAndColor = alpha.keyAlphaAndColor
        out.apply(to: &options)
        segment.apply(to: &options)
        timeline.apply(to: &options)
        if let stabiliseInputs {
            options.stabilise = StabiliseRequest(inputs: try? StabiliseRequest.parseInputs(stabiliseInputs, count: inputs.count), options: StabiliseOptions())
        }
        return options
    }

    func validate() throws {
        // The rules live in the library (a Swift caller gets the same sentences); here they
        // become usage errors (exit 64).
        if timeline.keepFrames && sync != .time {
            throw ValidationError("--keep-frames is --sync index; it cannot be combined with --sync \(sync.rawValue).")
        }
        try placement.check(inputs: inputs.count)
        let options = try asUsage {
            // Before `options`, which counts inputs from 0: -9223372036854775808 - 1 would trap.
            if let audioFrom { try CompositeOptions.check(audioFrom: Int128(audioFrom), inputs: inputs.count) }
            if let stabiliseInputs { _ = try StabiliseRequest.parseInputs(stabiliseInputs, count: inputs.count) }
            if stabiliseInputs != nil && scaleOut.requested { throw StabiliseError.notInSegments }
            let options = self.options
            try options.check()
            try OutputPath.check(output, inputs: [])
            if snakeEffect && snake.imu == nil { throw ValidationError("--snake needs --imu TRACE.") }
            for input in inputs { try OutputPath.checkInput(input) }
            try matte.checkFile()
            // Every movie read (the matte too), and with --snake the trace and the profile: -o
            // must not replace them.
            try OutputPath.check(output, inputs: options.readerPaths + (snakeEffect ? snake.readFiles : []))
            return options
        }
        try out.check(output: output, segments: scaleOut.requested)
        if snakeEffect { try snake.checkReport(inputs: options.readerPaths, output: output, scaledOut: scaleOut.requested) }
    }

    func run() throws {
        var options = self.options
        options.filter = try filters.schedule()
        if snakeEffect { options.snake = try snake.options(video: inputs[0]) }
        if scaleOut.requested { return try scaleOut.run(options, gopGiven: segment.gop != nil) }
        try runComposite(options, quiet: quiet)
    }
}
