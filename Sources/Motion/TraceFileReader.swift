import Foundation

/// Streams the samples of a `.gcsv` or plain CSV trace in batches, checking as it goes: malformed
/// lines, and timestamps that go backwards or repeat, are errors naming the file and line (never
/// reordered or dropped). Gaps are not errors: `TraceStatistics` reports them.
public final class TraceFileReader {
    public let format: TraceFormat
    /// What the file's header said (for CSV: only the source path).
    public private(set) var info: TraceInfo
    public private(set) var hasAccel = false
    private let lines: LineReader
    private var columns: Columns?
    private var previous: (t: Int64, line: Int)?
    private var timeScale = Scale(perUnit: 0.001)
    private var gyroScale = 1.0
    private var accelScale = standardGravity

    /// Where each value sits in a row.
    private struct Columns { var count: Int; var t: Int; var gyro: [Int]; var accel: [Int]? }

    /// Seconds per tick of `t`, kept as exact integer nanoseconds when it is one (the usual case).
    private struct Scale {
        var secondsPerTick: Double
        var nanosPerTick: Int64?
        init(perUnit s: Double) {
            secondsPerTick = s
            let ns = s * 1e9
            nanosPerTick = ns >= 1 && abs(ns - ns.rounded()) < 1e-6 ? Int64(ns.rounded()) : nil
        }
    }

    public init(path: String, format: TraceFormat) throws {
        self.format = format
        lines = try LineReader(path: path)
        info = TraceInfo(deviceName: "", sourceURI: path)
        switch format {
        case .gcsv: try readGCSVHeader()
        case .csv: info.deviceName = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        }
    }

    /// Up to `max` samples; an empty array at the end of the file.
    public func next(max: Int = 4096) throws -> [IMUReading] {
        var batch: [IMUReading] = []
        batch.reserveCapacity(max)
        while batch.count < max, let line = try lines.next() {
            if line.utf8.allSatisfy({ $0 == 32 || $0 == 9 }) { continue }
            if columns == nil {
                // CSV: the first line sets the columns, as a header or as the first row.
                let fields = Self.fields(line)
                if Int64(fields[0]) == nil {
                    try readCSVHeader(fields)
                    continue
                }
                guard fields.count == 4 || fields.count == 7 else {
                    throw error("expected t_ns,gx,gy,gz or t_ns,gx,gy,gz,ax,ay,az, found \(fields.count) fields")
                }
                setColumns(Columns(count: fields.count, t: 0, gyro: [1, 2, 3], accel: fields.count == 7 ? [4, 5, 6] : nil))
            }
            batch.append(try row(line))
        }
        return batch
    }

    private func error(_ message: String) -> TraceFileError { TraceFileError(path: lines.path, line: lines.lineNumber, message) }

    private func setColumns(_ c: Columns) {
        columns = c
        hasAccel = c.accel != nil
        info.channelScales = [:]
        if format == .gcsv {
            for name in TraceInfo.gyroChannels { info.channelScales[name] = gyroScale }
            if hasAccel { for name in TraceInfo.accelChannels { info.channelScales[name] = accelScale } }
        }
    }

    private func readCSVHeader(_ fields: [Substring]) throws {
        let names = fields.map { $0.lowercased() }
        switch names {
        case ["t_ns", "gx", "gy", "gz"]: setColumns(Columns(count: 4, t: 0, gyro: [1, 2, 3], accel: nil))
        case ["t_ns", "gx", "gy", "gz", "ax", "ay", "az"]: setColumns(Columns(count: 7, t: 0, gyro: [1, 2, 3], accel: [4, 5, 6]))
        default: throw error("expected the header t_ns,gx,gy,gz or t_ns,gx,gy,gz,ax,ay,az, found \(fields.joined(separator: ","))")
        }
    }

    private func readGCSVHeader() throws {
        guard let first = try lines.next() else { throw TraceFileError(path: lines.path, "empty file") }
        let magic = first.trimmingCharacters(in: .whitespaces)
        guard magic == "GYROFLOW IMU LOG" || magic == "CAMERA IMU LOG" else {
            throw error("not a Gyroflow log: the first line must be GYROFLOW IMU LOG or CAMERA IMU LOG")
        }
        info.orientation = "xzY"     // Gyroflow's default when the log does not say
        info.metadata["log"] = magic
        while let line = try lines.next() {
            if line.allSatisfy({ $0 == " " }) { continue }
            let parts = line.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            let value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            if key == "t" { return try readGCSVColumns(line) }
            switch key {
            case "tscale", "gscale", "ascale", "mscale":
                if key == "mscale" && value.isEmpty { continue }    // Gyroflow's own example leaves it empty
                guard let v = Double(value), v.isFinite, v > 0 else { throw error("\(key) must be a positive number, found '\(value)'") }
                if key == "tscale" { timeScale = Scale(perUnit: v) }
                if key == "gscale" { gyroScale = v }
                if key == "ascale" { accelScale = v * standardGravity }    // ascale gives g; we store m/s^2
                info.metadata[key] = value
            case "orientation": info.orientation = value; info.metadata[key] = value    // metadata: the log said so (not the default)
            case "id": info.deviceName = value; info.metadata[key] = value
            default: info.metadata[key] = value
            }
        }
        throw TraceFileError(path: lines.path, "no column line (t,gx,gy,gz[,ax,ay,az]) after the header")
    }

    private func readGCSVColumns(_ line: Substring) throws {
        let names = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        func index(_ n: String) -> Int? { names.firstIndex(of: n) }
        guard let t = index("t"), let gx = index("gx"), let gy = index("gy"), let gz = index("gz") else {
            throw error("the column line must name t,gx,gy,gz, found \(names.joined(separator: ","))")
        }
        var accel: [Int]?
        if let ax = index("ax"), let ay = index("ay"), let az = index("az") { accel = [ax, ay, az] }
        // Magnetometer columns (mx,my,mz) are read past: the store has no place for them.
        setColumns(Columns(count: names.count, t: t, gyro: [gx, gy, gz], accel: accel))
    }

    /// Comma-separated fields with ASCII blanks trimmed, split on bytes (this is the import's hot loop).
    static func fields(_ line: Substring) -> [Substring] {
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

    private func row(_ line: Substring) throws -> IMUReading {
        let c = columns!
        let fields = Self.fields(line)
        guard fields.count == c.count else { throw error("expected \(c.count) fields, found \(fields.count)") }
        func number(_ i: Int) throws -> Double {
            guard let v = Double(fields[i]), v.isFinite else { throw error("'\(fields[i])' is not a number") }
            return v
        }
        let t: Int64
        let tText = fields[c.t]
        switch format {
        case .csv:
            guard let v = Int64(tText) else { throw error("'\(tText)' is not a whole number of nanoseconds") }
            t = v
        case .gcsv:
            if let ticks = Int64(tText), let ns = timeScale.nanosPerTick {
                let (product, overflow) = ticks.multipliedReportingOverflow(by: ns)
                guard !overflow else { throw error("timestamp \(tText) is out of range") }
                t = product
            } else {
                let seconds = try number(c.t) * timeScale.secondsPerTick
                guard abs(seconds) < 9e9 else { throw error("timestamp \(tText) is out of range") }
                t = Int64((seconds * 1e9).rounded())
            }
        }
        if let p = previous {
            if t == p.t { throw error("timestamp \(t) ns repeats the one on line \(p.line)") }
            if t < p.t { throw error("timestamp \(t) ns is before the one on line \(p.line) (\(p.t) ns)") }
        }
        previous = (t, lines.lineNumber)
        let gs = format == .gcsv ? gyroScale : 1, asc = format == .gcsv ? accelScale : 1
        let g = (try number(c.gyro[0]) * gs, try number(c.gyro[1]) * gs, try number(c.gyro[2]) * gs)
        var a: (Double, Double, Double)?
        if let ai = c.accel { a = (try number(ai[0]) * asc, try number(ai[1]) * asc, try number(ai[2]) * asc) }
        return IMUReading(t: t, gyro: g, accel: a)
    }
}
