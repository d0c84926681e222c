import Dispatch
import Foundation
import IIO
import Motion
import TraceStore

/// `lockstep imu serve`: replays one trace of a store (or a trace file, a log, a camera file) as
/// a virtual IIO gyro over libiio's network protocol until cancelled.
public struct IMUServeOptions: Sendable {
    public var path: String
    /// The trace; needed when the store holds several.
    public var trace: Int64?
    public var host = "127.0.0.1"
    public var port = 30431
    public var speed = 1.0
    public var loop = false
    public var maxConnections = 256
    public var idleTimeout = 300.0

    /// A positive --speed must lie in here: slower than a thousandth of real time is a stalled
    /// client's timeout, faster than a thousand times is "as fast as possible", which 0 says.
    public static let speedRange = 0.001...1000.0
    public static let maxConnectionsRange = 1...10_000

    public init(
        path: String, trace: Int64? = nil, host: String = "127.0.0.1", port: Int = 30431, speed: Double = 1,
        loop: Bool = false, maxConnections: Int = 256, idleTimeout: Double = 300
    ) {
        self.path = path; self.trace = trace; self.host = host; self.port = port; self.speed = speed; self.loop = loop
        self.maxConnections = maxConnections; self.idleTimeout = idleTimeout
    }

    /// What is wrong with the options, as a sentence naming the option; nil when nothing is.
    public var problem: IMUJobError? {
        guard (0...65535).contains(port) else { return .portOutOfRange(port) }
        guard speed >= 0 && speed.isFinite else { return .speedNotAFactor(speed) }
        guard speed == 0 || Self.speedRange.contains(speed) else {
            return .speedOutOfRange(speed, lowest: Self.speedRange.lowerBound, highest: Int(Self.speedRange.upperBound))
        }
        guard Self.maxConnectionsRange.contains(maxConnections) else {
            return .maxConnectionsOutOfRange(maxConnections, highest: Self.maxConnectionsRange.upperBound)
        }
        guard idleTimeout.isFinite && idleTimeout >= 0.1 && idleTimeout <= 86400 else { return .idleTimeoutOutOfRange(idleTimeout) }
        return nil
    }

}

/// Serves until cancelled (the CLI stops it on SIGINT, SIGTERM or SIGHUP); its notices are the
/// opening line and what the server saw.
public final class IMUServeJob: Job {
    public let options: IMUServeOptions
    private let events: JobEvents
    private let stopRequest = StopRequest()
    private var path: String { options.path }
    private var host: String { options.host }

    public init(options: IMUServeOptions, events: JobEvents = JobEvents()) { self.options = options; self.events = events }

    public func cancel() { stop(by: SIGINT) }

    /// Stops the server, however asked (a serve ends the same way for every signal).
    public func stop(by signal: Int32) { stopRequest.request(signal) }

    /// The trace as a device: read whole through the TraceStore API (or the file reader),
    /// checked for values a device cannot send.
    func loadDevice() throws -> ReplayDevice {
        let (id, info, hasAccel, samples) = try loadTrace()
        do {
            return try ReplayDevice(info: info, samples: samples, hasAccel: hasAccel)
        } catch ReplayDeviceError.noSamples {
            throw IMUJobError.traceHasNoSamples(path, trace: id)
        } catch {
            throw IMUJobError.notReplayable(path, trace: id, why: "\(error)")
        }
    }

    private func loadTrace() throws -> (id: Int64, info: TraceInfo, hasAccel: Bool, samples: [IMUReading]) {
        // A store, a trace file or a blackbox log alike (TraceSource tells them apart by content,
        // then by extension): one trace, the one asked for or the only one.
        let source = try TraceSource.open(path: path, trace: options.trace)
        let t = try source.single()
        return (t.id, t.info, t.hasAccel, try source.readings(of: t.id))
    }

    /// The server for `device` with these options, listening (not yet accepting).
    func makeServer(_ device: ReplayDevice) throws -> IIODServer {
        let o = options
        do {
            return try IIODServer(
                device: device,
                options: .init(
                    host: o.host, port: UInt16(o.port), speed: o.speed, loop: o.loop,
                    maxConnections: o.maxConnections, idleTimeout: o.idleTimeout))
        } catch let e as IIODServerError {
            throw IMUJobError.serverFailed(e.description)
        }
    }

    /// Loads the trace, serves it, and returns once cancelled with every connection closed,
    /// saying what the server saw.
    public func run() throws {
        if let problem = options.problem { throw problem }
        let log = events.notice ?? { _ in }
        let device = try loadDevice()
        let server = try makeServer(device)
        let done = DispatchSemaphore(value: 0)
        stopRequest.onRequest { _ in done.signal() }
        server.start()
        let address = host.contains(":") ? "[\(host)]" : host
        log("serving \(path) on \(address):\(server.port) (device \(device.name), \(device.sampleCount) samples)")
        done.wait()
        server.stop()
        let s = server.statistics
        log(
            "stopped: connections served \(s.accepted), refused over --max-connections \(s.refused), closed idle \(s.idleClosed); "
                + "lines too long \(s.linesTooLong); accept errors \(s.acceptErrors)")
    }
}

/// Writes one line to stderr: what the CLI gives `imu record` and `imu serve` as their notices
/// (the library itself prints nothing).
@Sendable public func standardErrorLine(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
