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

    @OptionGroup(title: "Matte") var matte: MatteArguments

    @Option(help: ArgumentHelp("Decode once, write one file per chain into the folder -o names (named after the chain).", valueName: "CHAIN[;CHAIN...]"))
    var variants: String?

    @Option(help: ArgumentHelp("mix: the input's audio; none: no audio stream.", valueName: "mix|none"))
    var audio: AudioChoice = .mix

    @Flag(help: "No progress on stderr.") var quiet = false
    @OptionGroup(title: "Output (the same in every command that writes a movie)") var out: OutputArguments
    @OptionGroup(title: "Timeline and cuts") var timeline: TimelineArguments
    @OptionGroup(title: "Segment renders") var segment: SegmentArguments
    @OptionGroup(title: "Scale-out (segments on a Slurm job array, or Kubernetes manifests)") var scaleOut: ScaleOutArguments

    @Option(name: .shortAndLong, help: ArgumentHelp("Output movie (.mp4, .m4v, .mov or .mkv; .mov for --codec prores or dnxhr).", valueName: "OUT"))
    var output: String?

    @Argument(help: ArgumentHelp("The movie.", valueName: "INPUT"))
    var input: String?

    func validate() throws {
        if list { return }
        guard let input else { throw ValidationError("an input movie is needed (or --list).") }
        guard let output else { throw ValidationError("-o OUT is needed.") }
        if let variants {
            guard filters.isEmpty else { throw ValidationError("--variants cannot be combined with --filter or --filter-at; each variant is a whole chain.") }
            guard matte.matte == nil else { throw ValidationError("--variants cannot be combined with --matte.") }
            guard !scaleOut.requested else { throw ValidationError("--variants cannot be combined with --segments: each variant is a render of its own.") }
            // Each variant keeps the input's timeline, in SDR (the filters' working signal).
            if out.fps != nil { throw ValidationError("--variants cannot honour --fps: each variant keeps the input's timeline at its own rate.") }
            if let hdr = out.hdr {
                throw ValidationError("--variants cannot honour --hdr \(hdr.rawValue): filters work on the SDR working signal (8-bit BT.709).")
            }
            try asUsage {
                try variantOptions(input: input, folder: output, text: variants).check()
                try OutputPath.checkInput(input)
            }
            return
        }
        try out.check(output: output, segments: scaleOut.requested)
        guard !filters.isEmpty else { throw ValidationError("--filter CHAIN or --filter-at T=CHAIN is needed; `lockstep filter --list` prints the presets.") }
        // The mode says what the matte does to a key's alpha: filter has no key, so it was ignored (exit 0).
        if matte.matteMode != nil { throw ValidationError("--matte-mode goes with composite's keyed blends; filter weights its filter by the matte.") }
        try asUsage {
            try options(input: input, output: output).check()
            try OutputPath.checkInput(input)
            try matte.checkFile()
            try OutputPath.check(output, inputs: [input])
        }
    }

    func options(input: String, output: String) throws -> CompositeOptions {
        var options = CompositeOptions.filter(input: input, output: output, schedule: try filters.schedule() ?? FilterSchedule(initial: .none))
        options.audio = audio == .mix
        options.matte = matte.options
        out.apply(to: &options)
        segment.apply(to: &options)
        timeline.apply(to: &options)
        return options
    }

    func variantOptions(input: String, folder: String, text: String) throws -> FilterVariantsOptions {
        var options = FilterVariantsOptions(input: input, folder: folder, chains: try FilterVariantsOptions.parse(text))
        options.audio = audio == .mix
        if timeline.keepFrames { options.sync = .index }
        options.frames = segment.range
        options.cut = timeline.cut
        options.encode = out.settings
        options.size = out.size
        options.toneCurve = out.tone
        options.deinterlace = out.deinterlace ?? .frame
        return options
    }

    func run() throws {
        if list { print(FilterChainSpec.listing); return }
        if let variants {
            try runVariants(variantOptions(input: input!, folder: output!, text: variants), quiet: quiet)
            return
        }
        let options = try options(input: input!, output: output!)
        if scaleOut.requested { return try scaleOut.run(options, command: "filter", gopGiven: segment.gop != nil) }
        try runComposite(options, quiet: quiet)
    }
}

/// Prints one line per variant written and one error line per variant lost; exit 1 if any was lost.
func runVariants(_ options: FilterVariantsOptions, quiet: Bool) throws {
    let result = try runOutputJob(FilterVariantsJob.self, options, quiet: quiet)
    let seconds = (result.frameRate.inverse * result.frames).seconds
    let audioNote = result.audioSamples.map { String(format: ", audio %.3f s", Double($0) / 48_000) } ?? ", no audio"
    for v in result.variants {
        if let failure = v.failure {
            FileHandle.standardError.write(Data("Error: variant \"\(v.chain)\" failed, \(v.output) not written: \(failure)\n".utf8))
        } else {
            print("wrote \(v.output): \(result.frames) frames, \(result.canvas) at \(result.frameRate) fps, \(String(format: "%.3f", seconds)) s\(audioNote)")
        }
    }
    if !result.failed.isEmpty { throw CommandEnding.reported }
}
