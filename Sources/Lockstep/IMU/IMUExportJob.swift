import Foundation

/// Writes one stored trace, or a window of it, as `.gcsv` or `.csv`, through `OutputPath`: never
/// over the file it reads (under any spelling), under a hidden temporary name beside the output
/// renamed over it only when complete, the temporary removed on failure, on cancellation and
/// by the next run after a SIGKILL.
public struct IMUExportOptions: Sendable {
    /// A trace store, a trace file or a camera file with telemetry (`TraceSource`).
    public var store: String
    /// Which trace; nil: the only one.
    public var trace: Int64?
    /// Seconds from the trace's first sample (`to` excluded).
    public var from: Double?, to: Double?
    /// The file to write: .gcsv or .csv.
    public var output: String
    public init(store: String, trace: Int64? = nil, from: Double? = nil, to: Double? = nil, output: String) {
        self.store = store; self.trace = trace; self.from = from; self.to = to; self.output = output
    }
}

public final class IMUExportJob: Job {
    public let options: IMUExportOptions
    private let cancellation = CancellationToken()

    /// An export tells nothing while it runs: `events` is not used.
    public init(options: IMUExportOptions, events: JobEvents = JobEvents()) { self.options = options }

    /// Stops it between batches (`JobError.cancelled`); nothing is left under the output's name.
    public func cancel() { cancellation.cancel() }

    /// The options that chose the window, as the user gave them.
    static func window(_ from: Double?, _ to: Double?) -> String {
        func s(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
        return [from.map { "--from \(s($0))" }, to.map { "--to \(s($0))" }].compactMap { $0 }.joined(separator: " ")
    }

    /// The trace written and how many samples.
    public func run() throws -> (trace: Int64, count: Int) {
        let (path, trace, from, to, output) = (options.store, options.trace, options.from, options.to, options.output)
        do { try OutputPath.refuseStandardOutput(output) } catch let e as OutputPathError { throw IMUJobError(e.description) }
        guard let format = TraceFormat(path: output) else { throw IMUJobError("\(output): the output must end in .gcsv or .csv.") }
        do { try OutputPath.checkPlace(output, inputs: [path]) } catch let e as OutputPathError { throw IMUJobError(e.description) }
        let source = try TraceSource.open(path: path, trace: trace)
        let t = try source.single()
        guard let start = try source.firstTimestamp(t.id) else { throw IMUJobError("\(path): trace \(t.id) has no samples") }
        // Seconds past any timestamp a trace can hold mean "the end": no Int64 overflow.
        func bound(_ s: Double) -> Int64 {
            let ns = s * 1e9
            return ns.isFinite && abs(ns) < Double(TraceParser.maxTimestamp) ? start + Int64(ns.rounded()) : (ns < 0 ? .min : .max)
        }
        return try OutputPath.writing(to: output) { file in
            let writer = try TraceFileWriter(path: file.path, format: format, trace: t)
            try source.forEachBatch(t.id, from: from.map(bound), to: to.map(bound)) { batch in
                if cancellation.isCancelled { throw JobError.cancelled }
                try writer.write(batch)
            }
            try writer.finish()
            if cancellation.isCancelled { throw JobError.cancelled }
            // A window past the trace's end gave an empty file and exit 0 (`--from 30 --to 40`
            // on a 17 s trace): the file would say nothing, so nothing is written.
            if writer.count == 0, from != nil || to != nil {
                let span = try source.ends().map { String(format: "; it runs from 0 to %.3f s", Double($0.last.t - start) / 1e9) } ?? ""
                throw IMUJobError("\(Self.window(from, to)): trace \(t.id) of \(path) has no samples there\(span); nothing was written")
            }
            return (t.id, writer.count)
        }
    }
}

public struct IMUPlotOptions: Sendable {
    /// A trace store, a trace file or a camera file with telemetry.
    public var path: String
    /// Which trace; nil: the only one.
    public var trace: Int64?
    /// The picture to write (.svg).
    public var output: String
    public init(path: String, trace: Int64? = nil, output: String) { self.path = path; self.trace = trace; self.output = output }
}

/// `lockstep imu plot`: draws a trace's three angular rates as SVG, gaps shaded.
public final class IMUPlotJob: Job {
    public let options: IMUPlotOptions
    private let cancellation = CancellationToken()

    /// A plot tells nothing while it is drawn: `events` is not used.
    public init(options: IMUPlotOptions, events: JobEvents = JobEvents()) { self.options = options }

    /// Stops it between batches (`JobError.cancelled`); nothing is written.
    public func cancel() { cancellation.cancel() }

    public func run() throws {
        let (source, output) = (try TraceSource.open(path: options.path, trace: options.trace), options.output)
        do { try OutputPath.checkPlace(output, inputs: [source.path]) } catch let e as OutputPathError { throw IMUJobError(e.description) }
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
