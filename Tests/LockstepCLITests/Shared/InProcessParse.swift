import ArgumentParser

@testable import LockstepCLI

/// A command line refused while it is parsed (ArgumentParser reading a value, then each
/// command's `validate()`), checked in-process: the status and text `lockstep ARGS` would end
/// with, from `LockstepCommand.ending(for:)`, the function its `main` prints from. A launch of
/// the binary costs 0.1-0.2 CPU-s; tests with dozens of such refusals keep a few real launches
/// for the wiring from argv to the printed line.
struct Refusal: Error, Equatable {
    var status: Int32
    /// The first line of what would be printed (the rest is the usage).
    var line: String
    /// Refused by ArgumentParser or a `validate()` (a `ValidationError`), not by a library error
    /// that ends the process with `ExitStatus`'s line.
    var byParser: Bool
}

/// The parsed command, or how `lockstep` ends for `args`.
func parsed(_ args: [String]) -> Result<any ParsableCommand, Refusal> {
    do { return .success(try LockstepCommand.parseAsRoot(args)) } catch {
        let (code, text) = LockstepCommand.ending(for: error)
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return .failure(Refusal(status: code.rawValue, line: line, byParser: ExitStatus.of(error) == nil))
    }
}
