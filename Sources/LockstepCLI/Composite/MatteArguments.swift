import ArgumentParser
import Lockstep

extension MatteMode: ExpressibleByArgument {}

/// `--matte`, `--mix-factor`, `--matte-mode`, shared by `filter` and `composite`.
struct MatteArguments: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A greyscale movie (its luma, video range): the per-pixel weight of the filter (filter) or the foreground's alpha (composite --blend chromakey|stack). Read like one more input.",
            valueName: "MATTE"))
    var matte: String?

    @Option(name: .customLong("mix-factor"), parsing: .unconditional, help: ArgumentHelp("Scales the matte (0 to 1).", valueName: "F"))
    var mixFactor: Double?

    @Option(name: .customLong("matte-mode"), help: ArgumentHelp("composite: the matte replaces the key's alpha, or multiplies it.", valueName: "replace|multiply"))
    var matteMode: MatteMode?

    /// The library's options, nil without --matte.
    var options: MatteOptions? {
        guard let matte else { return nil }
        var o = MatteOptions(path: matte)
        if let mixFactor { o.mixFactor = mixFactor }
        if let matteMode { o.mode = matteMode }
        return o
    }

    func validate() throws {
        if matte == nil {
            if mixFactor != nil { throw ValidationError("--mix-factor scales the matte: it needs --matte MATTE.") }
            if matteMode != nil { throw ValidationError("--matte-mode needs --matte MATTE.") }
        }
    }

    /// The matte file exists and can be read (the library's sentence, with the option named).
    func checkFile() throws {
        guard let matte else { return }
        try asUsage("--matte") { try OutputPath.checkInput(matte) }
    }
}

/// `--key-alpha-and-color` (composite): an input with alpha is keyed by its alpha alone unless this is given.
struct AlphaArguments: ParsableArguments {
    @Flag(
        name: .customLong("key-alpha-and-color"),
        help: "An input that carries alpha (ProRes 4444, PNG or qtrle in MOV, FFV1) is keyed by its alpha times the key colour's matte, not by its alpha alone.")
    var keyAlphaAndColor = false
}
