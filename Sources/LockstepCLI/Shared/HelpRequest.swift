/// `--help` anywhere on the command line, also where an option's value was due. The options that
/// take a negative value (`--from`, `--smoothness`, every numeric option: commits 1998071 and
/// 90e57ce) are parsed `.unconditional`, so that "-3" reaches the option's own range check
/// instead of ArgumentParser's "Missing value"; they take the next argument whatever it is, and
/// `lockstep stabilise --smoothness --help` read "--help" as the smoothness. No value of Lockstep's
/// is "--help", "-help" or "-h": each asks for the command's help, as it does after any other option.
enum HelpRequest {
    static let names: Set<String> = ["--help", "-help", "-h"]

    /// The arguments that show the help asked for: the leading words (the subcommand's names,
    /// and any input before the first option) and `--help`; nil when no help is asked for
    /// (arguments after `--` are values, never help).
    static func arguments(_ arguments: [String]) -> [String]? {
        guard arguments.prefix(while: { $0 != "--" }).contains(where: names.contains) else { return nil }
        return Array(arguments.prefix { !$0.hasPrefix("-") }) + ["--help"]
    }
}
