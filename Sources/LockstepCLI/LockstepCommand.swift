import ArgumentParser
import Lockstep

@main
struct LockstepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lockstep",
        abstract: "Frame-perfect multi-source video compositor with gyroscope sensor fusion.",
        subcommands: [
            CompositeCommand.self,
            ConcatCommand.self,
            FilterCommand.self,
            ReverseCommand.self,
            ThumbnailCommand.self,
            TestSourceCommand.self,
            SnakeCommand.self,
            CalibrateCommand.self,
            IMUCommand.self,
            ProbeCommand.self,
            VerifyCommand.self,
            KernelsCommand.self,
            FilterKernelsCommand.self,
            JoinSegmentsCommand.self,
        ])
}
