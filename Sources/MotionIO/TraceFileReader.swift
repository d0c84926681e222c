import Foundation
import Motion

/// Streams the samples of a `.gcsv` or plain CSV trace file in batches: `LineReader` reads the
/// file, Motion's `TraceParser` (pure) checks and converts each line.
public final class TraceFileReader {
    public var format: TraceFormat { parser.format }
    /// What the file's header said (for CSV: only the source path).
    public var info: TraceInfo { parser.info }
    public var hasAccel: Bool { parser.hasAccel }
    /// The file's one trace, described (id 1; `hasAccel` is known once a sample was read).
    public var trace: MotionTrace { MotionTrace(id: 1, info: info, hasAccel: hasAccel) }
    private var parser: TraceParser
    private let lines: LineReader

    /// Reads a gcsv header at once, so `info` is complete and a bad header fails here.
    public init(path: String, format: TraceFormat) throws {
        lines = try LineReader(path: path)
        parser = TraceParser(format: format, source: path)
        while parser.readsHeader {
            guard let line = try lines.next() else { try parser.finish(lines: lines.lineNumber); break }
            _ = try parser.line(line, number: lines.lineNumber)
        }
    }

    /// Up to `max` samples; an empty array at the end of the file.
    public func next(max: Int = 4096) throws -> [IMUReading] {
        var batch: [IMUReading] = []
        batch.reserveCapacity(max)
        while batch.count < max, let line = try lines.next() {
            if let sample = try parser.line(line, number: lines.lineNumber) { batch.append(sample) }
        }
        return batch
    }
}
