import ArgumentParser
import Lockstep

struct IMURecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a gyro (and accelerometer) through libiio into a new trace of a store.",
        discussion: """
            Samples are committed once per buffer refill, so Ctrl-C, SIGTERM, SIGHUP or a vanished device lose \
            nothing already received. Exit status: 0 when stopped by Ctrl-C or --duration, 143 for SIGTERM, 129 \
            for SIGHUP, 1 when the device failed.
            """)

    @Option(help: ArgumentHelp("A libiio URI: ip:HOST[:PORT], local:, usb:...", valueName: "uri")) var uri: String
    @Option(help: ArgumentHelp("The gyro device, by name or id (default: the first with anglvel_x/y/z).", valueName: "name")) var device: String?
    @Option(help: ArgumentHelp("Write this sampling_frequency to the device first.", valueName: "hz")) var rate: Double?
    @Option(help: ArgumentHelp("Stop after this many seconds of samples.", valueName: "s")) var duration: Double?
    @Flag(help: "Also record accel_x/y/z (from the gyro's device or another).") var accel = false
    @Option(name: .shortAndLong, help: ArgumentHelp("The store (made if absent).", valueName: "trace.sqlite")) var output: String

    var options: IMURecordOptions { IMURecordOptions(uri: uri, device: device, rateHz: rate, duration: duration, accel: accel, output: output) }

    func validate() throws {
        if let problem = options.problem { throw ValidationError(problem) }
    }

    func run() throws {
        // The last refill is committed before the recording ends: the grace is long.
        let outcome = try runJob(IMURecordJob.self, options, notice: standardErrorLine, grace: 60, stop: { job in { job.stop(by: $0) } })
        standardErrorLine(outcome.message)
        if !outcome.stop.wasAskedFor { throw CommandEnding.recording(outcome.stop) }
    }
}
