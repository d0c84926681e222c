import ArgumentParser
import Lockstep

/// The output movie and how it is written: `-o` and the output options every frame-producing
/// command shares, for the commands that write one movie from their inputs (concat, reverse),
/// with the checks that go with them.
struct EncodeArguments: ParsableArguments {
    @Option(name: .shortAndLong, help: ArgumentHelp("Output movie (.mp4, .m4v, .mov or .mkv; .mov for --codec prores or dnxhr).", valueName: "OUT"))
    var output: String

    @OptionGroup(title: "Output (the same in every command that writes a movie)")
    var out: OutputArguments

    var settings: EncodeSettings { out.settings }

    /// The command's own rules (`check`, which covers the output options through its library
    /// options), then each input readable, then the output's place (not one of the inputs): the
    /// first failure becomes a usage error with its sentence.
    func validate(inputs: [String], check: () throws -> Void) throws {
        try asUsage {
            try check()
            try OutputPath.check(output, inputs: [])
            for input in inputs { try OutputPath.checkInput(input) }
            try OutputPath.check(output, inputs: inputs)
        }
    }
}
