/// A trace decoded whole from a file that may hold several (each log of a blackbox file), with
/// what the reader skipped, in sentences naming the log.
public struct DecodedTrace: Sendable {
    /// The trace's number in its file (a blackbox log's position, from 1), stable across reads.
    public var id: Int64
    public var info: TraceInfo
    public var hasAccel: Bool
    public var readings: [IMUReading]
    public var warnings: [String]
    public init(id: Int64, info: TraceInfo, hasAccel: Bool, readings: [IMUReading], warnings: [String] = []) {
        self.id = id; self.info = info; self.hasAccel = hasAccel; self.readings = readings; self.warnings = warnings
    }
}

/// What a file holds, told by its first (and last) bytes rather than its name: the readers route
/// on this, so a blackbox log named `.txt` or a blackbox_decode CSV named `.csv` is read as what
/// it is, and a file Lockstep cannot read is refused naming its format.
public enum MotionFileKind: Equatable, Sendable {
    case blackbox
    case blackboxCSV
    case traceStore
    case insta360
    case dataflash
    case other

    /// `head`: the file's first bytes (64 KiB is plenty); `tail`: its last 32 or more.
    public static func detect(head: [UInt8], tail: [UInt8]) -> MotionFileKind {
        if head.starts(with: Array("SQLite format 3\0".utf8)) { return .traceStore }
        if BlackboxDecoder.looksLikeBlackbox(head) { return .blackbox }
        if BlackboxCSV.looksLikeBlackboxCSV(head) { return .blackboxCSV }
        // Insta360 ends its files with this 32-character marker after its own records
        // (telemetry-parser src/insta360/mod.rs).
        if tail.count >= 32, Array(tail.suffix(32)) == Array("8db42d694ccc418790edff439fe026bf".utf8) { return .insta360 }
        // ArduPilot DataFlash: each message starts A3 95, and the first is a FMT (type 128).
        if head.count >= 3, head[0] == 0xA3, head[1] == 0x95, head[2] == 0x80 { return .dataflash }
        return .other
    }
}
