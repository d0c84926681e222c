import Foundation

/// The samples of a `.gcsv` or plain CSV trace, line by line, without I/O: the file reader (in
/// MotionIO) hands it lines, tests and the fuzzer hand it strings and bytes. Malformed lines,
/// values that are not finite numbers, and timestamps that go backwards or repeat are errors
/// naming the source and line (never reordered, dropped or stored as NaN/Inf). Gaps are not
/// errors: `TraceStatistics` reports them.
public struct TraceParser: Sendable {
    public let format: TraceFormat
    /// The file's path, named in errors.
    public let source: String
    /// What the file's header said (for CSV: only the source path and the file's name).
    public private(set) var info: TraceInfo
    public private(set) var hasAccel = false
    /// True while a gcsv header is being read (no samples yet).
    public var readsHeader: Bool { stage != .rows }

    /// Timestamps are kept within a quarter of Int64's range (2.3e9 s, 72 years, either side of
    /// 0), so the step between any two of them, and twice that (the gap limit of statistics and
    /// plots), cannot overflow.
    public static let maxTimestamp: Int64 = 2_300_000_000_000_000_000
    /// The largest gcsv `tscale`: one tick of more seconds is past `maxTimestamp` on its own.
    public static let maxTimeScale = 2.3e9

    private enum Stage: Sendable { case magic, header, rows }
    private var stage: Stage
    private var columns: Columns?
    private var previous: (t: Int64, line: Int)?
    private var timeScale = Scale(perUnit: 0.001)
    private var gyroScale = 1.0
    private var accelScale = standardGravity
    private var scaleText = (g: "1", a: "1")

    /// Where each value sits in a row.
    private struct Columns: Sendable { var count: Int; var t: Int; var gyro: [Int]; var accel: [Int]? }
    private static let gyroNames = ["gx", "gy", "gz"], accelNames = ["ax", "ay", "az"]

    /// Seconds per tick of `t`, kept as exact integer nanoseconds when it is one (the usual case).
    private struct Scale: Sendable {
        var secondsPerTick: Double
        var nanosPerTick: Int64?
        init(perUnit s: Double) {
            secondsPerTick = s
            let ns = s * 1e9  // s <= maxTimeScale, so this fits an Int64
            nanosPerTick = ns >= 1 && abs(ns - ns.rounded()) < 1e-6 ? Int64(ns.rounded()) : nil
        }
    }

    public init(format: TraceFormat, source: String) {
        self.format = format
        self.source = source
        info = TraceInfo(deviceName: "", sourceURI: source)
        switch format {
        case .gcsv: stage = .magic
        case .csv:
            stage = .rows
            info.deviceName = URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
        }
    }

    /// Reads one line (numbered from 1); returns its sample, or nil for header and blank lines.
    public mutating func line(_ text: Substring, number: Int) throws -> IMUReading? {
        switch stage {
        case .magic:
            let magic = text.trimmingCharacters(in: .whitespaces)
            guard magic == "GYROFLOW IMU LOG" || magic == "CAMERA IMU LOG" else {
                throw error(number, "not a Gyroflow log: the first line must be GYROFLOW IMU LOG or CAMERA IMU LOG")
            }
            info.orientation = "xzY"  // Gyroflow's default when the log does not say
            info.metadata["log"] = magic
            stage = .header
            return nil
        case .header:
            try headerLine(text, number)
            return nil
        case .rows:
            if text.utf8.allSatisfy({ $0 == 32 || $0 == 9 }) { return nil }
            if columns == nil {
                // CSV: the first line sets the columns, as a header or as the first row.
                let fields = Self.fields(text)
                if Int64(fields[0]) == nil {
                    try csvHeader(fields, number)
                    return nil
                }
                guard fields.count == 4 || fields.count == 7 else {
                    throw error(number, "expected t_ns,gx,gy,gz or t_ns,gx,gy,gz,ax,ay,az, found \(fields.count) fields")
                }
                setColumns(Columns(count: fields.count, t: 0, gyro: [1, 2, 3], accel: fields.count == 7 ? [4, 5, 6] : nil))
            }
            return try row(text, number)
        }
    }

    /// The input ended after `lines` lines: a gcsv must have had its column line.
    public func finish(lines: Int) throws {
        switch stage {
        case .rows: return
        case .magic: throw TraceFileError(path: source, "empty file")
        case .header: throw TraceFileError(path: source, "no column line (t,gx,gy,gz[,ax,ay,az]) after the header")
        }
    }

    /// A whole trace already in memory (tests, the fuzzer).
    public static func parse(_ bytes: some Collection<UInt8>, format: TraceFormat, source: String) throws -> (parser: TraceParser, samples: [IMUReading]) {
        var p = TraceParser(format: format, source: source)
        var samples: [IMUReading] = []
        var count = 0
        for (number, text) in try LineSplitter.lines(of: bytes, source: source) {
            if let s = try p.line(text, number: number) { samples.append(s) }
            count = number
        }
        try p.finish(lines: count)
        return (p, samples)
    }

    private func error(_ line: Int, _ message: String) -> TraceFileError { TraceFileError(path: source, line: line, message) }

    private mutating func setColumns(_ c: Columns) {
        columns = c
        hasAccel = c.accel != nil
        info.channelScales = [:]
        if format == .gcsv {
            for name in TraceInfo.gyroChannels { info.channelScales[name] = gyroScale }
            if hasAccel { for name in TraceInfo.accelChannels { info.channelScales[name] = accelScale } }
        }
    }

    private mutating func csvHeader(_ fields: [Substring], _ number: Int) throws {
        let names = fields.map { $0.lowercased() }
        switch names {
        case ["t_ns", "gx", "gy", "gz"]: setColumns(Columns(count: 4, t: 0, gyro: [1, 2, 3], accel: nil))
        case ["t_ns", "gx", "gy", "gz", "ax", "ay", "az"]: setColumns(Columns(count: 7, t: 0, gyro: [1, 2, 3], accel: [4, 5, 6]))
        default:
            throw error(number, "expected the header t_ns,gx,gy,gz or t_ns,gx,gy,gz,ax,ay,az, found \(MessageText.quote(fields.joined(separator: ",")))")
        }
    }

    private mutating func headerLine(_ line: Substring, _ number: Int) throws {
        if line.allSatisfy({ $0 == " " }) { return }
        let parts = line.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
        let key = parts[0].trimmingCharacters(in: .whitespaces)
        let value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        if key == "t" { return try gcsvColumns(line, number) }
        switch key {
        case "tscale", "gscale", "ascale", "mscale":
            if key == "mscale" && value.isEmpty { return }  // Gyroflow's own example leaves it empty
            guard let v = Self.decimal(Substring(value)), v.isFinite, v > 0 else {
                throw error(number, "\(key) must be a positive number, found '\(MessageText.quote(value))'")
            }
            switch key {
            case "tscale":
                guard v <= Self.maxTimeScale else {
                    throw error(number, "tscale \(MessageText.quote(value)) is out of range (at most 2.3e9 seconds per tick)")
                }
                timeScale = Scale(perUnit: v)
            case "gscale": gyroScale = v; scaleText.g = MessageText.quote(value)
            case "ascale":
                // ascale gives g; we store m/s^2.
                guard (v * standardGravity).isFinite else {
                    throw error(number, "ascale \(MessageText.quote(value)) is out of range (not a finite number of m/s^2)")
                }
                accelScale = v * standardGravity; scaleText.a = MessageText.quote(value)
            default: break
            }
            info.metadata[key] = value
        case "orientation": info.orientation = value; info.metadata[key] = value  // metadata: the log said so (not the default)
        case "id": info.deviceName = value; info.metadata[key] = value
        default: info.metadata[key] = value
        }
    }

    private mutating func gcsvColumns(_ line: Substring, _ number: Int) throws {
        let names = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        func index(_ n: String) -> Int? { names.firstIndex(of: n) }
        guard let t = index("t"), let gx = index("gx"), let gy = index("gy"), let gz = index("gz") else {
            throw error(number, "the column line must name t,gx,gy,gz, found \(MessageText.quote(names.joined(separator: ",")))")
        }
        var accel: [Int]?
        if let ax = index("ax"), let ay = index("ay"), let az = index("az") { accel = [ax, ay, az] }
        // Magnetometer columns (mx,my,mz) are read past: the store has no place for them.
        setColumns(Columns(count: names.count, t: t, gyro: [gx, gy, gz], accel: accel))
        stage = .rows
    }

    /// Comma-separated fields with ASCII blanks trimmed, split on bytes (this is the import's hot loop).
    public static func fields(_ line: Substring) -> [Substring] {
        var out: [Substring] = []
        out.reserveCapacity(8)
        let u = line.utf8
        var start = u.startIndex
        func trimmed(_ a: Substring.UTF8View.Index, _ b: Substring.UTF8View.Index) -> Substring {
            var a = a, b = b
            while a < b, u[a] == 32 || u[a] == 9 { a = u.index(after: a) }
            while b > a, u[u.index(before: b)] == 32 || u[u.index(before: b)] == 9 { b = u.index(before: b) }
            return line[a..<b]
        }
        var i = start
        while i < u.endIndex {
            if u[i] == UInt8(ascii: ",") { out.append(trimmed(start, i)); start = u.index(after: i) }
            i = u.index(after: i)
        }
        out.append(trimmed(start, u.endIndex))
        return out
    }

    /// A decimal number as people write it, `[+-]digits[.digits][e[+-]digits]`, and nothing else:
    /// no hexadecimal (`0x10`), no `nan`/`inf`, no blanks or NUL inside (`strtod`, under
    /// `Double(_:)`, stops at a NUL and would read `0.5\0 9` as 0.5). The result may be infinite
    /// when the exponent is too large: callers check.
    public static func decimal(_ text: Substring) -> Double? {
        let u = text.utf8
        var i = u.startIndex
        func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
        if i < u.endIndex, u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-") { i = u.index(after: i) }
        var digits = 0
        while i < u.endIndex, isDigit(u[i]) { digits += 1; i = u.index(after: i) }
        if i < u.endIndex, u[i] == UInt8(ascii: ".") {
            i = u.index(after: i)
            while i < u.endIndex, isDigit(u[i]) { digits += 1; i = u.index(after: i) }
        }
        guard digits > 0 else { return nil }
        if i < u.endIndex, u[i] == UInt8(ascii: "e") || u[i] == UInt8(ascii: "E") {
            i = u.index(after: i)
            if i < u.endIndex, u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-") { i = u.index(after: i) }
            var exponent = 0
            while i < u.endIndex, isDigit(u[i]) { exponent += 1; i = u.index(after: i) }
            guard exponent > 0 else { return nil }
        }
        guard i == u.endIndex else { return nil }
        return Double(text)
    }

    private mutating func row(_ line: Substring, _ number: Int) throws -> IMUReading {
        let c = columns!
        let fields = Self.fields(line)
        guard fields.count == c.count else { throw error(number, "expected \(c.count) fields, found \(fields.count)") }
        func value(_ i: Int) throws -> Double {
            guard let v = Self.decimal(fields[i]) else { throw error(number, "'\(MessageText.quote(fields[i]))' is not a number") }
            guard v.isFinite else { throw error(number, "'\(MessageText.quote(fields[i]))' is not a finite number") }
            return v
        }
        func scaled(_ i: Int, _ name: String, by scale: Double, _ scaleName: String, _ scaleText: String) throws -> Double {
            let v = try value(i) * scale
            guard v.isFinite else {
                throw error(number, "\(name) '\(MessageText.quote(fields[i]))' times \(scaleName) \(scaleText) is not a finite number")
            }
            return v
        }
        let t: Int64
        let tText = fields[c.t]
        switch format {
        case .csv:
            guard let v = Int64(tText) else { throw error(number, "'\(MessageText.quote(tText))' is not a whole number of nanoseconds") }
            t = v
        case .gcsv:
            if let ticks = Int64(tText), let ns = timeScale.nanosPerTick {
                let (product, overflow) = ticks.multipliedReportingOverflow(by: ns)
                t = overflow ? .max : product
            } else {
                let ns = try value(c.t) * timeScale.secondsPerTick * 1e9
                t = abs(ns) <= Double(Self.maxTimestamp) ? Int64(ns.rounded()) : .max
            }
        }
        // magnitude, not abs: abs(Int64.min) traps (a CSV time of -9223372036854775808 crashed
        // every command that read it).
        guard t.magnitude <= UInt64(Self.maxTimestamp) else {
            throw error(number, "timestamp \(MessageText.quote(tText)) is out of range (beyond 2.3e9 s from 0)")
        }
        if let p = previous {
            if t == p.t { throw error(number, "timestamp \(t) ns repeats the one on line \(p.line)") }
            if t < p.t { throw error(number, "timestamp \(t) ns is before the one on line \(p.line) (\(p.t) ns)") }
        }
        previous = (t, number)
        let gcsv = format == .gcsv
        let gs = gcsv ? gyroScale : 1, asc = gcsv ? accelScale : 1
        let g = SIMD3(
            try scaled(c.gyro[0], "gx", by: gs, "gscale", scaleText.g), try scaled(c.gyro[1], "gy", by: gs, "gscale", scaleText.g),
            try scaled(c.gyro[2], "gz", by: gs, "gscale", scaleText.g))
        var a: SIMD3<Double>?
        if let ai = c.accel {
            a = SIMD3(
                try scaled(ai[0], "ax", by: asc, "ascale", scaleText.a), try scaled(ai[1], "ay", by: asc, "ascale", scaleText.a),
                try scaled(ai[2], "az", by: asc, "ascale", scaleText.a))
        }
        return IMUReading(t: t, gyro: g, accel: a)
    }
}
