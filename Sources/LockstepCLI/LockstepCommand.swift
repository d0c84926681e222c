import ArgumentParser
import Foundation
import Lockstep

@main
struct LockstepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lockstep",
        abstract: "Frame-perfect multi-source video compositor with gyroscope sensor fusion.",
        version: LockstepVersion.text,
        subcommands: [
            CompositeCommand.self,
            AlignCommand.self,
            ConcatCommand.self,
            FilterCommand.self,
            ReverseCommand.self,
            ThumbnailCommand.self,
            TestSourceCommand.self,
            SnakeCommand.self,
            StabiliseCommand.self,
            CalibrateCommand.self,
            IMUCommand.self,
            ProbeCommand.self,
            VerifyCommand.self,
            KernelsCommand.self,
            FilterKernelsCommand.self,
            JoinSegmentsCommand.self
        ])

    /// ArgumentParser's own `main`, except that the library's failures and the commands' endings
    /// end the process with the status and line `ExitStatus` gives them, and that a message
    /// line of more than 500 characters, or with control characters, is shortened and escaped: a value that fails to parse is echoed
    /// whole (a 100 KB `--garbage polygon:...` was a 100 KB error line; an escape sequence in a
    /// value reached the terminal).
    static func main() {
        StandardOutput.install()
        StopSignals.install(statusOfSignal: ExitStatus.stopped(by:))
        do {
            var command = try parseAsRoot(HelpRequest.arguments(Array(CommandLine.arguments.dropFirst())))
            try command.run()
            if let line = StandardOutput.failure() { fail(line, status: ExitStatus.failure) }
        } catch {
            let (code, text) = ending(for: error)
            if code == .success {
                // --help and --version: many lines, printed as they are.
                if !text.isEmpty { print(text) }
                if let line = StandardOutput.failure() { fail(line, status: ExitStatus.failure) }
                Foundation.exit(code.rawValue)
            }
            // A report printed before a failing status (verify's violations) that did not reach
            // standard output: said too, the status kept.
            if let line = StandardOutput.failure() { FileHandle.standardError.write(Data("Error: \(line)\n".utf8)) }
            if !text.isEmpty { FileHandle.standardError.write(Data((text + "\n").utf8)) }
            Foundation.exit(code.rawValue)
        }
    }

    /// How the process ends for `error`: the status, and the text for stderr (for stdout when
    /// the status is 0: --help, --version). The library's failures and the commands' endings get
    /// `ExitStatus`'s status and line; the parser's errors and anything else, ArgumentParser's.
    /// The command-line tests check refusals decided while parsing through this, in-process.
    static func ending(for error: any Error) -> (code: ExitCode, text: String) {
        let ending = ExitStatus.of(error)
        let code = ending.map { ExitCode($0.status) } ?? exitCode(for: error)
        var text = ending.map { e in e.line.map { "Error: \($0)" } ?? "" } ?? fullMessage(for: error)
        guard code != .success else { return (code, text) }
        // The message itself (a path or value the user gave may hold a line break) is
        // escaped whole before the text is cut into lines: it stays one line, the usage after it.
        let message = ending.map { $0.line ?? "" } ?? self.message(for: error)
        if message.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }) {
            text = text.replacingOccurrences(of: message, with: MessageText.quote(message, limit: 500))
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.count > 500 || line.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" })
                ? MessageText.quote(line, limit: 500) : String(line)
        }
        return (code, lines.joined(separator: "\n"))
    }

    /// Ends the process with "Error: LINE" on stderr and `status`.
    static func fail(_ line: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data("Error: \(line)\n".utf8))
        Foundation.exit(status)
    }
}
