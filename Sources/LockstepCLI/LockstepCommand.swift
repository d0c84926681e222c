import ArgumentParser
import Lockstep

@main
struct LockstepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lockstep",
        abstract: "Frame-perfect multi-source video compositor with gyroscope sensor fusion.",
        subcommands: [CompositeCommand.self, ProbeCommand.self, VerifyCommand.self, SnakeCommand.self, CalibrateCommand.self, IMUCommand.self, FilterCommand.self, KernelsCommand.self, FilterKernelsCommand.self])
}
