import ArgumentParser
import Dispatch
import Foundation
import IIO
import Motion
import TraceStore

struct IMURecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a gyro (and accelerometer) through libiio into a new trace of a store.",
        discussion: """
            Samples are committed once per buffer refill, so Ctrl-C, SIGTERM or a vanished device lose nothing \
            already received. Exit status: 0 when stopped by Ctrl-C or --duration, 143 for SIGTERM, 1 when the \
            device failed.
            """)

    @Option(help: ArgumentHelp("A libiio URI: ip:HOST[:PORT], local:, usb:...", valueName: "uri")) var uri: String
    @Option(help: ArgumentHelp("The gyro device, by name or id (default: the first with anglvel_x/y/z).", valueName: "name")) var device: String?
    @Option(help: ArgumentHelp("Write this sampling_frequency to the device first.", valueName: "hz")) var rate: Double?
    @Option(help: ArgumentHelp("Stop after this many seconds of samples.", valueName: "s")) var duration: Double?
    @Flag(help: "Also record accel_x/y/z (from the gyro's device or another).") var accel = false
    @Option(name: .shortAndLong, help: ArgumentHelp("The store (made if absent).", valueName: "trace.sqlite")) var output: String

    func validate() throws {
        if let rate, !(rate > 0 && rate.isFinite) { throw ValidationError("--rate must be a positive number of samples per second.") }
        if let duration, !(duration > 0 && duration.isFinite) { throw ValidationError("--duration must be a positive number of seconds.") }
        if TraceFormat(path: output) != nil {
            throw ValidationError("\(output): the store is a SQLite file, not a .gcsv or .csv; name it e.g. trace.sqlite.")
        }
    }

    func run() throws {
        let store = try TraceStore(path: output, mode: .create)
        let sink = StoreSink(store: store)
        let recorder = Recorder(options: RecorderOptions(uri: uri, device: device, rateHz: rate, duration: duration, accel: accel))
        let queue = DispatchQueue(label: "lockstep.imu.signals")
        let signals = [(SIGINT, RecorderStateMachine.Stop.interrupted), (SIGTERM, .terminated)].map { sig, reason in
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            s.setEventHandler { recorder.stop(reason) }
            s.resume()
            return s
        }
        let (stop, samples) = recorder.run(into: sink)
        for s in signals { s.cancel() }
        try? store.close()
        let kept = sink.trace.map { "\(samples) samples in trace \($0) of \(output)" } ?? "nothing recorded"
        if stop.exitStatus == 0 {
            FileHandle.standardError.write("\(stop.sentence): \(kept)\n".data(using: .utf8)!)
            return
        }
        FileHandle.standardError.write("Error: \(stop.sentence) (\(kept))\n".data(using: .utf8)!)
        throw ExitCode(stop.exitStatus)
    }
}

/// Each refill's samples in one transaction of the store.
final class StoreSink: RecorderSink {
    let store: TraceStore
    var trace: Int64?
    init(store: TraceStore) { self.store = store }

    func begin(_ info: TraceInfo, hasAccel: Bool) throws {
        trace = try store.createTrace(info, hasAccel: hasAccel)
        FileHandle.standardError.write("recording \(info.deviceName) from \(info.sourceURI) into \(store.path) as trace \(trace!)\n".data(using: .utf8)!)
    }

    func commit(_ samples: [IMUReading]) throws { try store.append(samples, to: trace!) }
}
