import ArgumentParser
import Compositor
import Foundation
import Lockstep
import Media

struct CompositeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "composite",
        abstract: "Blend N movies frame by frame into one H.264/AAC movie.",
        discussion: """
        Every output frame is made of exactly one frame of every input; the output ends when an \
        input has no frame left for the next tick, and its audio (all inputs mixed) ends with its video.
          chromakey  FOREGROUND BACKGROUND: the foreground's key colour shows the background
          quad       2 to 4 inputs in a 2x2 grid, in reading order
          stack      2 to 4 inputs: the first is the bottom; each next one is keyed over it
          mix        2 to 4 inputs, weighted average
        """)

    @Option(help: "How the inputs are combined.")
    var blend: BlendMode

    @Option(help: ArgumentHelp("index: output frame k uses frame k of every input. time: the frame on screen at k/fps.", valueName: "index|time"))
    var sync: SyncMode = .index

    @Option(help: ArgumentHelp("Canvas size, even numbers (default: the first input's display size).", valueName: "WxH"))
    var size: Size?

    @Option(help: ArgumentHelp("Output frame rate (default: the first input's).", valueName: "N[/D]"))
    var fps: Rational?

    @Option(name: .customLong("key-color"), help: ArgumentHelp("Chroma key colour.", valueName: "RRGGBB"))
    var keyColor: RGB = RGB(r: 0, g: 255, b: 0)

    @Option(help: "Chroma distance under which a pixel is fully keyed (0 to 1).")
    var similarity: Double = 0.4

    @Option(help: "Width of the soft edge above --similarity (0 to 1).")
    var smoothness: Double = 0.1

    @Option(help: ArgumentHelp("Mix weights, one per input (default: equal).", valueName: "w1,w2,..."))
    var weights: NumberList?

    @Option(help: ArgumentHelp("Audio gain per input, linear (default: 1 each).", valueName: "g1,g2,..."))
    var gain: NumberList?

    @Option(help: ArgumentHelp("mix: every input's audio; none: no audio stream.", valueName: "mix|none"))
    var audio: AudioChoice = .mix

    @Option(help: "x264 constant rate factor (0 to 51).")
    var crf: Int = 18

    @Option(help: ArgumentHelp("x264 preset.", valueName: "ultrafast...veryslow"))
    var preset: String = "veryfast"

    @Option(name: .customLong("stall-timeout"), help: ArgumentHelp("Stop with an error when a stage makes no progress for this long.", valueName: "seconds"))
    var stallTimeout: Double = 30

    @Flag(help: "No progress on stderr.")
    var quiet = false

    @Flag(help: "Conceal decode errors in the inputs and go on, naming each damaged frame in a warning and in the output's provenance (by default a damaged input stops the job).")
    var conceal = false

    @Flag(name: .customLong("snake"), help: "Apply the video-snake effect last, driven by --imu.")
    var snakeEffect = false

    @OptionGroup(title: "Snake effect (with --snake)")
    var snake: SnakeArguments

    @Option(name: .shortAndLong, help: ArgumentHelp("Output movie (.mp4, .m4v or .mov).", valueName: "OUT"))
    var output: String

    @Argument(help: ArgumentHelp("Input movies.", valueName: "INPUT"))
    var inputs: [String] = []

    static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    func validate() throws {
        let range = blend.inputRange
        guard range.contains(inputs.count) else {
            let wanted = range.lowerBound == range.upperBound ? "exactly \(range.lowerBound) inputs (FOREGROUND BACKGROUND)" : "\(range.lowerBound) to \(range.upperBound) inputs"
            throw ValidationError("--blend \(blend.rawValue) takes \(wanted); got \(inputs.count).")
        }
        let ext = (output as NSString).pathExtension.lowercased()
        guard ["mp4", "m4v", "mov"].contains(ext) else {
            throw ValidationError("\(output): the output must end in .mp4, .m4v or .mov.")
        }
        if let size, size.width < 2 || size.height < 2 || size.width % 2 != 0 || size.height % 2 != 0 {
            throw ValidationError("--size \(size): width and height must be even numbers of at least 2.")
        }
        if let fps, fps.num <= 0 || fps.num > Int32.max || fps.den > Int32.max {
            throw ValidationError("--fps \(fps): the frame rate must be positive.")
        }
        guard (0...1).contains(similarity) else { throw ValidationError("--similarity must be between 0 and 1; got \(similarity).") }
        guard (0...1).contains(smoothness) else { throw ValidationError("--smoothness must be between 0 and 1; got \(smoothness).") }
        if let weights {
            guard weights.values.count == inputs.count else {
                throw ValidationError("--weights needs one weight per input: \(inputs.count) expected, \(weights.values.count) given.")
            }
            guard weights.values.allSatisfy({ $0 >= 0 }), weights.values.contains(where: { $0 > 0 }) else {
                throw ValidationError("--weights must be zero or positive, and not all zero.")
            }
        }
        if let gain {
            guard gain.values.count == inputs.count else {
                throw ValidationError("--gain needs one gain per input: \(inputs.count) expected, \(gain.values.count) given.")
            }
            guard gain.values.allSatisfy({ (0...16).contains($0) }) else { throw ValidationError("--gain values must be between 0 and 16.") }
        }
        if snakeEffect && snake.imu == nil { throw ValidationError("--snake needs --imu TRACE.") }
        guard stallTimeout > 0 && stallTimeout.isFinite else { throw ValidationError("--stall-timeout must be a positive number of seconds.") }
        guard (0...51).contains(crf) else { throw ValidationError("--crf must be between 0 and 51; got \(crf).") }
        guard Self.presets.contains(preset) else {
            throw ValidationError("--preset \(preset) is not an x264 preset; use one of \(Self.presets.joined(separator: ", ")).")
        }
        for input in inputs {
            var folder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &folder) else { throw ValidationError("\(input): no such file.") }
            guard !folder.boolValue else { throw ValidationError("\(input): is a folder, not a movie.") }
            guard FileManager.default.isReadableFile(atPath: input) else { throw ValidationError("\(input): permission denied.") }
        }
        let outDir = (URL(fileURLWithPath: output).deletingLastPathComponent().path)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: outDir, isDirectory: &isDir), isDir.boolValue else {
            throw ValidationError("\(output): the folder \(outDir) does not exist.")
        }
        let outReal = URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath().path
        if inputs.contains(where: { URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path == outReal }) {
            throw ValidationError("\(output) is also an input; write the output somewhere else.")
        }
    }

    func run() throws {
        var options = CompositeOptions(inputs: inputs, output: output, blend: blend)
        options.sync = sync
        options.size = size
        options.frameRate = fps
        options.keyColor = keyColor
        options.similarity = similarity
        options.smoothness = smoothness
        options.weights = weights?.values
        options.gains = gain?.values
        options.audio = audio == .mix
        options.encode = EncodeSettings(crf: crf, preset: preset)
        options.stallTimeout = stallTimeout
        options.conceal = conceal
        if snakeEffect { options.snake = try snake.options() }
        try runComposite(options, quiet: quiet)
    }
}
