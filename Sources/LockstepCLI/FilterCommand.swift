import ArgumentParser
import Foundation
import Lockstep

struct FilterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filter",
        abstract: "Render a movie through a chain of filter presets, switching chains mid-stream if asked.",
        discussion: """
        A chain is NAME[:k=v[:k=v]][,NAME...], applied left to right (`lockstep filter --list` \
        prints the presets and their parameters). --filter-at switches chains at the first output \
        frame whose time is at or after each T; `none` is no filter. Audio passes through.
        """)

    @Flag(help: "Print the presets with their parameters and exit.")
    var list = false

    @OptionGroup var filters: FilterArguments

    @Option(help: ArgumentHelp("mix: the input's audio; none: no audio stream.", valueName: "mix|none"))
    var audio: AudioChoice = .mix

    @Option(help: "x264 constant rate factor (0 to 51).") var crf = 18
    @Option(help: ArgumentHelp("x264 preset.", valueName: "ultrafast...veryslow")) var preset = "veryfast"
    @Flag(help: "No progress on stderr.") var quiet = false
    @OptionGroup(title: "Segment renders") var segment: SegmentArguments

    @Option(name: .shortAndLong, help: ArgumentHelp("Output movie (.mp4, .m4v or .mov).", valueName: "OUT"))
    var output: String?

    @Argument(help: ArgumentHelp("The movie.", valueName: "INPUT"))
    var input: String?

    func validate() throws {
        if list { return }
        guard let input else { throw ValidationError("an input movie is needed (or --list).") }
        guard let output else { throw ValidationError("-o OUT is needed.") }
        guard !filters.isEmpty else { throw ValidationError("--filter CHAIN or --filter-at T=CHAIN is needed; `lockstep filter --list` prints the presets.") }
        do {
            try options(input: input, output: output).check()
            try OutputPath.checkInput(input)
            try OutputPath.check(output, inputs: [input])
        } catch let error as JobError {
            throw ValidationError(error.description)
        }
    }

    func options(input: String, output: String) throws -> CompositeOptions {
        var options = CompositeOptions.filter(input: input, output: output, schedule: try filters.schedule() ?? FilterSchedule(initial: .none))
        options.audio = audio == .mix
        options.encode = EncodeSettings(crf: crf, preset: preset)
        segment.apply(to: &options)
        return options
    }

    func run() throws {
        if list { print(FilterChainSpec.listing); return }
        try runComposite(options(input: input!, output: output!), quiet: quiet)
    }
}
