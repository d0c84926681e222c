import Foundation

/// Per trace: samples, duration, measured rate, jitter, gaps and clock (`lockstep imu info`).
public struct IMUTraceReport: Encodable, Equatable, Sendable {
    public var id: Int64, device: String, source: String, clock: String?
    public var samples: Int, durationS: Double, rateHz: Double?, declaredRateHz: Double?
    public var medianIntervalNs: Int64?, jitterUs: Double?, gapCount: Int, gaps: [Gap], accel: Bool
    public var firstNs: Int64?, lastNs: Int64?, orientation: String?, channelScales: [String: Double]
    /// What the file is, where the reader says (a blackbox log: "blackbox", with its firmware and place in the file).
    public var format: String?, firmware: String?, log: String?, instance: String?
    /// Blackbox: loop iterations the firmware should have logged and did not, and frames skipped.
    public var lostIterations: Int?, corruptFrames: Int?, truncatedAtByte: Int?
    public struct Gap: Encodable, Equatable, Sendable { public var startNs: Int64; public var lengthNs: Int64 }

    public init(_ t: MotionTrace, _ s: TraceStatistics) {
        id = t.id; device = t.info.deviceName; source = t.info.sourceURI; clock = t.info.clock
        samples = s.count; durationS = Double(s.duration) / 1e9; rateHz = s.rate; declaredRateHz = t.info.rateHz
        medianIntervalNs = s.medianInterval; jitterUs = s.jitter.map { $0 / 1000 }; gapCount = s.gapCount
        gaps = s.gaps.map { Gap(startNs: $0.start, lengthNs: $0.length) }; accel = t.hasAccel
        firstNs = s.first; lastNs = s.last; orientation = t.info.orientation; channelScales = t.info.channelScales
        let m = t.info.metadata
        format = m["source"]; firmware = m["firmware"]; log = m["log"]; instance = m["instance"]
        lostIterations = m["lostIterations"].flatMap { Int($0) }; corruptFrames = m["corruptFrames"].flatMap { Int($0) }
        truncatedAtByte = m["truncatedAtByte"].flatMap { Int($0) }
    }

    /// The text `imu info` prints for this trace (lines ending in "\n").
    public var text: String {
        var out = "trace \(id): \(device.isEmpty ? "(unnamed)" : MessageText.quote(device)), from \(MessageText.quote(source))\n"
        if let format {
            var line = "  format    \(MessageText.quote(format))"
            if let log { line += ", log \(MessageText.quote(log))" }
            if let instance { line += ", \(MessageText.quote(instance))" }
            if let firmware { line += "; firmware \(MessageText.quote(firmware))" }
            out += line + "\n"
        }
        out += "  samples   \(samples)\(accel ? " (gyro and accelerometer)" : " (gyro)")\n"
        out += "  duration  " + String(format: "%.3f s", durationS) + "\n"
        var rate = rateHz.map { String(format: "%.3f Hz measured", $0) } ?? "unknown"
        if let d = declaredRateHz { rate += String(format: ", %g Hz declared", d) }
        out += "  rate      \(rate)\n"
        out += "  jitter    " + (jitterUs.map { String(format: "%.1f us (standard deviation of the steps)", $0) } ?? "unknown") + "\n"
        if gapCount == 0 {
            out += "  gaps      none\n"
        } else {
            let longest = gaps.map(\.lengthNs).max() ?? 0
            out += "  gaps      \(gapCount) (steps over twice the median \(secondsText(medianIntervalNs ?? 0)); longest \(secondsText(longest)))\n"
            for g in gaps.prefix(10) { out += "            at \(secondsText(g.startNs - (firstNs ?? 0))): \(secondsText(g.lengthNs))\n" }
        }
        if lostIterations != nil || corruptFrames != nil || truncatedAtByte != nil {
            var parts: [String] = []
            if let n = lostIterations { parts.append("\(n) loop iteration\(n == 1 ? "" : "s") not logged") }
            if let n = corruptFrames { parts.append("\(n) corrupt frame\(n == 1 ? "" : "s") skipped") }
            if let b = truncatedAtByte { parts.append("truncated at byte \(b)") }
            out += "  losses    \(parts.joined(separator: "; "))\n"
        }
        out += "  clock     \(clock.map { MessageText.quote($0) } ?? "unknown")\n"
        return out
    }
}

public struct IMUInfoOptions: Sendable {
    /// A store, a log, a camera file.
    public var path: String
    /// Only this trace; nil: every one.
    public var trace: Int64?
    public init(path: String, trace: Int64? = nil) { self.path = path; self.trace = trace }
}

/// `lockstep imu info`: the file opened here, its warnings told as they come, one report per
/// trace (only `trace` when given).
public final class IMUInfoJob: Job {
    public let options: IMUInfoOptions
    /// Notices: the file's warnings.
    private let events: JobEvents
    private let cancellation = CancellationToken()

    public init(options: IMUInfoOptions, events: JobEvents = JobEvents()) { self.options = options; self.events = events }

    /// Stops it between traces (`JobError.cancelled`).
    public func cancel() { cancellation.cancel() }

    public func run() throws -> [IMUTraceReport] {
        let source = try TraceSource.open(path: options.path, trace: options.trace)
        for w in source.warnings { events.notice?(w) }
        return try source.traces().map { t in
            if cancellation.isCancelled { throw JobError.cancelled }
            return IMUTraceReport(t, try source.statistics(t.id))
        }
    }

    /// One report per trace of an open source.
    public static func reports(_ source: TraceSource) throws -> [IMUTraceReport] {
        try source.traces().map { IMUTraceReport($0, try source.statistics($0.id)) }
    }

    /// The reports as one JSON document (snake_case keys, sorted).
    public static func json(_ reports: [IMUTraceReport]) throws -> String {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        enc.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try enc.encode(reports), as: UTF8.self)
    }
}
