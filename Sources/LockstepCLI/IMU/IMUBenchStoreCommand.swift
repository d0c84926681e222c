import ArgumentParser
import Foundation
import Lockstep

/// Hidden: times the store alone (scripts/bench/imu runs it).
struct IMUBenchStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-store", abstract: "Time inserting samples and reading a window back.", shouldDisplay: false)

    @Option(help: "Samples to insert.") var samples = 1_000_000
    @Option(help: "Sampling rate of the made-up trace, Hz.") var rate = 200.0
    @Option(help: "Window to read back, seconds.") var window = 10.0
    @Option(name: .shortAndLong, help: "The store to make (removed first).") var output: String

    func validate() throws {
        guard (1...100_000_000).contains(samples) else { throw ValidationError("--samples must be between 1 and 100000000; got \(samples).") }
        guard rate > 0 && rate <= 1_000_000 else { throw ValidationError("--rate must be above 0 and at most 1000000 Hz; got \(rate).") }
        guard window > 0 && window <= 1e6 else { throw ValidationError("--window must be above 0 and at most 1000000 seconds; got \(window).") }
    }

    func run() throws {
        let options = IMUStoreBench.Options(output: output, samples: samples, rate: rate, window: window)
        for line in try runJob(IMUStoreBench.self, options) { print(line) }
    }
}
