import ArgumentParser
import Lockstep

/// The output movie and how it is encoded: the block every command that writes one H.264/AAC
/// movie from its inputs shares (concat, reverse), with the checks that go with it.
struct EncodeArguments: ParsableArguments {
    @Option(name: .shortAndLong, help: ArgumentHelp("Output movie (.mp4, .m4v or .mov).", valueName: "OUT"))
    var output: String

    @Option(help: "x264 constant rate factor (0 to 51).")
    var crf: Int = 18

    @Option(help: ArgumentHelp("x264 preset.", valueName: "ultrafast...veryslow"))
    var preset: String = "veryfast"

    var settings: EncodeSettings { EncodeSettings(crf: crf, preset: preset) }

    /// The command's own rules (`check`, which covers --crf and --preset through its options),
    /// then each input readable, then the output's place (not one of the inputs): the first
    /// failure becomes a usage error with its sentence.
    func validate(inputs: [String], check: () throws -> Void) throws {
        try asUsage {
            try check()
            try OutputPath.check(output, inputs: [])
            for input in inputs { try OutputPath.checkInput(input) }
            try OutputPath.check(output, inputs: inputs)
        }
    }
}
