import ArgumentParser
import Dispatch
import Foundation
import IIO
import Motion
import TraceStore

struct IMUServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Replay a trace as a virtual IIO gyro over libiio's network protocol (iiod, libiio 0.24).",
        discussion: "Each buffer a client opens replays the trace from its first sample, paced by the timestamps.")

    @Argument(help: ArgumentHelp("A trace store, or a .gcsv or .csv file.", valueName: "trace")) var path: String
    @Option(help: "The trace; needed when the store holds several.") var trace: Int64?
    @Option(help: ArgumentHelp("The IPv4 address to listen on.", valueName: "address")) var host = "127.0.0.1"
    @Option(help: ArgumentHelp("The TCP port; 0 picks a free one.", valueName: "port")) var port: Int = 30431
    @Option(help: ArgumentHelp("Replay speed: 2 = twice as fast; 0 = as fast as clients read.", valueName: "factor")) var speed = 1.0
    @Flag(help: "Start again from the first sample after the last (timestamps keep increasing).") var loop = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535; got \(port).") }
        guard speed >= 0 && speed.isFinite else { throw ValidationError("--speed must be 0 (as fast as possible) or a positive factor; got \(speed).") }
    }

    func run() throws {
        let source = try IMUTraceSource(path: path)
        let t = try source.single(trace, path: path)
        var samples: [IMUReading] = []
        try source.forEachBatch(t.id) { samples += $0 }
        guard !samples.isEmpty else { throw IMUFailure("\(path): trace \(t.id) has no samples") }
        let device = ReplayDevice(info: t.info, samples: samples, hasAccel: t.hasAccel)
        let server: IIODServer
        do {
            server = try IIODServer(device: device, options: .init(host: host, port: UInt16(port), speed: speed, loop: loop))
        } catch { throw IMUFailure("\(error)") }
        let done = DispatchSemaphore(value: 0)
        let signals = [SIGINT, SIGTERM].map { sig in
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { done.signal() }
            s.resume()
            return s
        }
        server.start()
        FileHandle.standardError.write("serving \(path) on \(host):\(server.port) (device \(device.name), \(device.sampleCount) samples)\n".data(using: .utf8)!)
        done.wait()
        for s in signals { s.cancel() }
        server.stop()
    }
}
