import Motion

/// A blackbox file read for `imu import` in two passes, so that its memory stays flat in the
/// file's length (a 200 MB log decoded whole peaked at 264 MB): `init` decodes every log once,
/// counting its samples and keeping none, so the traces, their descriptions and the warnings are
/// known before the store is written; `batches(of:)` decodes one log again, front to back, as the
/// store takes its samples. Both passes give the mapped pages behind them back.
public final class BlackboxFileReader {
    public let path: String
    /// The logs with samples, as traces whose readings are not held (empty).
    public let traces: [MotionTrace]
    /// What was skipped: empty logs, logs whose header cannot be used.
    public let skipped: [String]
    private let file: MappedFile
    private let ranges: [Range<Int>]

    public init(path: String) throws {
        self.path = path
        let file = try MappedFile(path: path)
        let bytes = file.bytes
        let ranges = BlackboxDecoder.logRanges(bytes, release: file.release)
        let logs = ranges.enumerated().map { k, range in
            let decoder = BlackboxLogDecoder(bytes, log: range, number: k + 1, of: ranges.count, release: file.release)
            while !decoder.next().isEmpty {}
            return decoder.log
        }
        (traces, skipped) = try MotionFiles.blackboxTraces(logs, path: path)
        self.file = file
        self.ranges = ranges
    }

    /// Trace `id`'s samples (the `id`-th log's), decoded again in batches.
    public func batches(of id: Int64) -> Batches { Batches(self, log: Int(id)) }

    /// One log's samples in order, a batch at a time; it keeps the file mapped while it lives.
    public final class Batches {
        private let reader: BlackboxFileReader
        private let decoder: BlackboxLogDecoder
        init(_ reader: BlackboxFileReader, log number: Int) {
            self.reader = reader
            decoder = BlackboxLogDecoder(
                reader.file.bytes, log: reader.ranges[number - 1], number: number, of: reader.ranges.count, release: reader.file.release)
        }
        /// The next samples (at most 4096); empty at the end of the log.
        public func next() -> [IMUReading] { decoder.next() }
    }
}
