import ArgumentParser
import Foundation
import Lockstep

extension ThumbnailSize: ExpressibleByArgument {
    /// "320x240", "320x", "x240"
    public init?(argument: String) { self.init(parsing: argument) }
}

struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Write a clip's thumbnail (PNG or JPEG), or a contact sheet of several clips.",
        discussion: """
            The thumbnail is never black, blank or a flat colour: from --at on, the first frame that \
            is not black, not flat and not part of a fade in from black. If the clip has none, a \
            warning says so and the most detailed frame is written. With --sheet: one tile per clip, \
            its name and duration under it.
            """)

    @Option(name: .shortAndLong, help: ArgumentHelp("Output image (.png, .jpg or .jpeg).", valueName: "OUT"))
    var output: String

    @Option(help: ArgumentHelp("Where to start looking, seconds from the start (default: a third of the way in).", valueName: "S"))
    var at: Double?

    @Option(help: ArgumentHelp("The picture's size, aspect kept: a box WxH, a width Wx or a height xH (default: the clip's display size; with --sheet, each tile's box, 320x180).", valueName: "WxH"))
    var size: ThumbnailSize?

    @Flag(help: "A contact sheet: one tile per clip, labelled with its name and duration.")
    var sheet = false

    @Argument(help: ArgumentHelp("The clip (with --sheet: the clips).", valueName: "CLIP"))
    var inputs: [String] = []

    var options: ThumbnailOptions { ThumbnailOptions(inputs: inputs, output: output, at: at, size: size, sheet: sheet) }

    func validate() throws {
        try asUsage {
            try options.check()
            for input in inputs { try OutputPath.checkInput(input) }
            try OutputPath.checkPlace(output, inputs: inputs)
        }
    }

    func run() throws {
        // A ThumbnailOptionError ends the command as a usage error (ExitStatus).
        let result = try runJob(ThumbnailJob.self, options)
        for w in result.warnings { printWarning(w) }
        if sheet {
            print("wrote \(output): \(result.size), \(result.picks.count) clips")
            for p in result.picks { print("  \(p.input): frame at \(String(format: "%.3f", p.time)) s") }
        } else if let p = result.picks.first {
            print("wrote \(output): \(result.size), frame at \(String(format: "%.3f", p.time)) s of \(p.input)")
        }
    }
}
