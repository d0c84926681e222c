import ArgumentParser
import Foundation
import Motion
import TraceStore

struct IMUInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Per trace: samples, duration, measured rate, jitter, gaps and clock.")

    @Argument(help: ArgumentHelp("A trace store, or a .gcsv or .csv file.", valueName: "store|file")) var path: String
    @Option(help: "Only this trace of the store.") var trace: Int64?
    @Flag(help: "A JSON document instead of text.") var json = false

    struct Report: Encodable {
        var id: Int64, device: String, source: String, clock: String?
        var samples: Int, durationS: Double, rateHz: Double?, declaredRateHz: Double?
        var medianIntervalNs: Int64?, jitterUs: Double?, gapCount: Int, gaps: [Gap], accel: Bool
        var firstNs: Int64?, lastNs: Int64?, orientation: String?, channelScales: [String: Double]
        struct Gap: Encodable { var startNs: Int64; var lengthNs: Int64 }
    }

    func run() throws {
        let source = try IMUTraceSource(path: path)
        var reports: [Report] = []
        for t in try source.traces(trace) {
            let s = try source.statistics(t.id)
            reports.append(Report(id: t.id, device: t.info.deviceName, source: t.info.sourceURI, clock: t.info.clock,
                                  samples: s.count, durationS: Double(s.duration) / 1e9, rateHz: s.rate, declaredRateHz: t.info.rateHz,
                                  medianIntervalNs: s.medianInterval, jitterUs: s.jitter.map { $0 / 1000 }, gapCount: s.gapCount,
                                  gaps: s.gaps.map { .init(startNs: $0.start, lengthNs: $0.length) }, accel: t.hasAccel,
                                  firstNs: s.first, lastNs: s.last, orientation: t.info.orientation, channelScales: t.info.channelScales))
        }
        if json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            enc.keyEncodingStrategy = .convertToSnakeCase
            print(String(decoding: try enc.encode(reports), as: UTF8.self))
            return
        }
        if reports.isEmpty { print("\(path): no traces") }
        for r in reports {
            print("trace \(r.id): \(r.device.isEmpty ? "(unnamed)" : r.device), from \(r.source)")
            print("  samples   \(r.samples)\(r.accel ? " (gyro and accelerometer)" : " (gyro)")")
            print("  duration  " + String(format: "%.3f s", r.durationS))
            var rate = r.rateHz.map { String(format: "%.3f Hz measured", $0) } ?? "unknown"
            if let d = r.declaredRateHz { rate += String(format: ", %g Hz declared", d) }
            print("  rate      \(rate)")
            print("  jitter    " + (r.jitterUs.map { String(format: "%.1f us (standard deviation of the steps)", $0) } ?? "unknown"))
            if r.gapCount == 0 {
                print("  gaps      none")
            } else {
                let longest = r.gaps.map(\.lengthNs).max() ?? 0
                print("  gaps      \(r.gapCount) (steps over twice the median \(seconds(r.medianIntervalNs ?? 0)); longest \(seconds(longest)))")
                for g in r.gaps.prefix(10) { print("            at \(seconds(g.startNs - (r.firstNs ?? 0))): \(seconds(g.lengthNs))") }
            }
            print("  clock     \(r.clock ?? "unknown")")
        }
    }
}
