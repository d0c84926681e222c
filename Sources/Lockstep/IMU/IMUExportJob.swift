import Foundation

/// Writes one stored trace, or a window of it, as `.gcsv` or `.csv`, through `OutputPath`: never
/// over the file it reads (under any spelling), under a hidden temporary name beside the output
/// renamed over it only when complete, the temporary removed on failure, on cancellation and
/// by the next run after a SIGKILL.
public enum IMUExportJob {
    /// `path` is a trace store, a trace file or a camera file with telemetry (`TraceSource`).
    /// `from`/`to` are seconds from the trace's first sample (`to` excluded). Returns the trace
    /// written and how many samples. `cancellation` stops it between batches (`JobError.cancelled`).
    public static func run(
        store path: String, trace: Int64?, from: Double? = nil, to: Double? = nil,
        output: String, cancellation: CancellationToken = CancellationToken()
    ) throws -> (trace: Int64, count: Int) {
        guard let format = TraceFormat(path: output) else { throw IMUJobError("\(output): the output must end in .gcsv or .csv.") }
        do { try OutputPath.checkPlace(output, inputs: [path]) } catch let e as JobError { throw IMUJobError(e.description) }
        let source = try TraceSource.open(path: path, trace: trace)
        let t = try source.single()
        guard let start = try source.firstTimestamp(t.id) else { throw IMUJobError("\(path): trace \(t.id) has no samples") }
        // Seconds past any timestamp a trace can hold mean "the end": no Int64 overflow.
        func bound(_ s: Double) -> Int64 {
            let ns = s * 1e9
            return ns.isFinite && abs(ns) < Double(TraceParser.maxTimestamp) ? start + Int64(ns.rounded()) : (ns < 0 ? .min : .max)
        }
        let pending = try OutputPath(for: output)
        do {
            let writer = try TraceFileWriter(path: pending.path, format: format, info: t.info, hasAccel: t.hasAccel)
            try source.forEachBatch(t.id, from: from.map(bound), to: to.map(bound)) { batch in
                if cancellation.isCancelled { throw JobError.cancelled }
                try writer.write(batch)
            }
            try writer.finish()
            if cancellation.isCancelled { throw JobError.cancelled }
            try pending.commit()
            return (t.id, writer.count)
        } catch {
            pending.discard()
            throw pending.explain(error)
        }
    }
}

/// Draws a trace's three angular rates as SVG, gaps shaded.
public enum IMUPlotJob {
    /// `lockstep imu plot`: the trace opened here (`trace` of a store or log), drawn to `output`.
    public static func run(path: String, trace: Int64?, output: String, cancellation: CancellationToken = CancellationToken()) throws {
        try run(source: try TraceSource.open(path: path, trace: trace), output: output, cancellation: cancellation)
    }

    public static func run(source: TraceSource, output: String, cancellation: CancellationToken = CancellationToken()) throws {
        do { try OutputPath.checkPlace(output, inputs: [source.path]) } catch let e as JobError { throw IMUJobError(e.description) }
        let t = try source.single()
        let stats = try source.statistics(t.id)
        guard let first = stats.first, let last = stats.last else { throw IMUJobError("\(source.path): trace \(t.id) has no samples") }
        var plot = SVGPlot(start: first, end: last, gaps: stats.gaps, medianInterval: stats.medianInterval)
        try source.forEachBatch(t.id) { batch in
            if cancellation.isCancelled { throw JobError.cancelled }
            for s in batch { plot.add(s) }
        }
        if cancellation.isCancelled { throw JobError.cancelled }
        let title =
            "\(t.info.deviceName.isEmpty ? "trace \(t.id)" : t.info.deviceName): \(stats.count) samples, "
            + String(format: "%.3f s, %.1f Hz", Double(stats.duration) / 1e9, stats.rate ?? 0)
            + (stats.gapCount > 0 ? ", \(stats.gapCount) gap\(stats.gapCount == 1 ? "" : "s")" : "")
        try OutputPath.write(Data(plot.render(title: title).utf8), to: output)
    }
}
