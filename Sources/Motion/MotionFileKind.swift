/// What a motion file is, decided here and nowhere else: by its first (and last) bytes before
/// its name, since names lie (a blackbox log named `.txt`, a blackbox_decode CSV named `.csv`, a
/// trace store named `.gcsv`, a movie without its extension); the extension decides only where
/// the content says nothing Lockstep knows. `TraceSource`, `imu import` and its validation all
/// route on this one answer.
public enum MotionFileKind: Equatable, Sendable {
    /// A Lockstep trace store (SQLite).
    case traceStore
    /// A Betaflight/INAV/Cleanflight blackbox log, one trace per log.
    case blackbox
    /// blackbox_decode's CSV, one trace.
    case blackboxCSV
    /// An ArduPilot DataFlash log, one trace per IMU.
    case dataflash
    /// An Insta360 file: recognised, and refused naming its format.
    case insta360
    /// A movie whose own telemetry track (GoPro GPMF, CAMM) is the trace.
    case movie
    /// A trace text file: Gyroflow's gcsv or a plain CSV.
    case text(TraceFormat)
    /// Nothing known by content or name: opened as a trace store, whose checks say what it is not.
    case other

    /// `head`: the file's first bytes (64 KiB is plenty); `tail`: its last 32 or more; `path`:
    /// its name, consulted after the content.
    public static func detect(head: [UInt8], tail: [UInt8], path: String) -> MotionFileKind {
        let content = detect(head: head, tail: tail)
        if content != .other { return content }
        if let format = TraceFormat(path: path) { return .text(format) }
        if hasMovieExtension(path) { return .movie }
        // Known by content only when the name says nothing: a `.gcsv` header in a file named
        // `.txt`, an ISO BMFF movie named without its extension.
        if head.starts(with: Array("GYROFLOW IMU LOG".utf8)) { return .text(.gcsv) }
        if isISOBMFF(head) { return .movie }
        return .other
    }

    /// The kinds told by content alone (`.other` when the bytes say none of them).
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

    /// The names cameras give their movies (GoPro's .360 and .LRV included).
    public static func hasMovieExtension(_ path: String) -> Bool {
        let lower = path.lowercased()
        return [".mp4", ".mov", ".360", ".lrv", ".m4v"].contains { lower.hasSuffix($0) }
    }

    /// An ISO BMFF (MP4, MOV) file: its first box is one a movie starts with (ISO/IEC 14496-12
    /// `ftyp`; QuickTime files may start with `wide`, `mdat` or `moov`).
    static func isISOBMFF(_ head: [UInt8]) -> Bool {
        guard head.count >= 8 else { return false }
        let type = String(decoding: head[4..<8], as: UTF8.self)
        return ["ftyp", "moov", "mdat", "wide"].contains(type)
    }
}
