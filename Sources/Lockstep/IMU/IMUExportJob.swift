import Foundation

/// Writes one stored trace, or a window of it, as `.gcsv` or `.csv`. The file is written under a
/// hidden temporary name beside the output and renamed over it only when complete.
public enum IMUExportJob {
    /// `path` is a trace store, a trace file or a camera file with telemetry (`TraceSource`).
    /// `from`/`to` are seconds from the trace's first sample (`to` excluded). Returns the trace
    /// written and how many samples.
    public static func run(store path: String, trace: Int64?, from: Double? = nil, to: Double? = nil,
                           output: String) throws -> (trace: Int64, count: Int) {
        guard let format = TraceFormat(path: output) else { throw IMUJobError("\(output): the output must end in .gcsv or .csv.") }
        let source = try TraceSource.open(path: path, trace: trace)
        let t = try source.single()
        guard let start = try source.firstTimestamp(t.id) else { throw IMUJobError("\(path): trace \(t.id) has no samples") }
        // Seconds past any timestamp a trace can hold mean "the end": no Int64 overflow.
        func bound(_ s: Double) -> Int64 {
            let ns = s * 1e9
            return ns.isFinite && abs(ns) < Double(TraceParser.maxTimestamp) ? start + Int64(ns.rounded()) : (ns < 0 ? .min : .max)
        }
        let temp = temporary(beside: output)
        do {
            let writer = try TraceFileWriter(path: temp, format: format, info: t.info, hasAccel: t.hasAccel)
            try source.forEachBatch(t.id, from: from.map(bound), to: to.map(bound)) { try writer.write($0) }
            try writer.finish()
            guard rename(temp, output) == 0 else {
                throw TraceFileError(path: output, "cannot be written (\(String(cString: strerror(errno))))")
            }
            return (t.id, writer.count)
        } catch let e as TraceFileError where e.path == temp {
            unlink(temp)
            throw TraceFileError(path: output, line: e.line, e.message)
        } catch {
            unlink(temp)
            throw error
        }
    }

    static func temporary(beside path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let name = ".\(url.lastPathComponent).lockstep-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        return url.deletingLastPathComponent().appendingPathComponent(name).path
    }
}

/// Draws a trace's three angular rates as SVG, gaps shaded.
public enum IMUPlotJob {
    public static func run(source: TraceSource, output: String) throws {
        let t = try source.single()
        let stats = try source.statistics(t.id)
        guard let first = stats.first, let last = stats.last else { throw IMUJobError("\(source.path): trace \(t.id) has no samples") }
        var plot = SVGPlot(start: first, end: last, gaps: stats.gaps, medianInterval: stats.medianInterval)
        try source.forEachBatch(t.id) { for s in $0 { plot.add(s) } }
        let title = "\(t.info.deviceName.isEmpty ? "trace \(t.id)" : t.info.deviceName): \(stats.count) samples, "
            + String(format: "%.3f s, %.1f Hz", Double(stats.duration) / 1e9, stats.rate ?? 0)
            + (stats.gapCount > 0 ? ", \(stats.gapCount) gap\(stats.gapCount == 1 ? "" : "s")" : "")
        do { try plot.render(title: title).write(toFile: output, atomically: true, encoding: .utf8) } catch {
            throw IMUJobError("\(output): cannot be written (\(error.localizedDescription))")
        }
    }
}
