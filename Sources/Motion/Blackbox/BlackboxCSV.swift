/// The CSV that Betaflight's `blackbox_decode` writes (one file per log: `loopIteration, time (us),
/// axisP[0], ..., gyroADC[0], ..., accSmooth[0], ...`), and the Blackbox Explorer's CSV export, which
/// puts the header's `"name","value"` pairs before that line. Read line by line, without I/O.
///
/// Units come from the column names as blackbox_decode writes them (src/units.h): `time (us)`,
/// `(ms)` or `(s)`; gyro `(deg/s)` or `(rad/s)`; acceleration `(g)` or `(m/s/s)`. A raw gyro
/// column is scaled by the header's `gyro_scale` when the file carries one (the Explorer's
/// export), else taken as degrees per second (what Betaflight 3.x-4.x and INAV log, gyro_scale
/// 1); a raw acceleration column needs `acc_1G` from the file, else it is left out.
public struct BlackboxCSV: Sendable {
    public let source: String
    public private(set) var header = BlackboxHeader()
    public private(set) var hasAccel = false
    public private(set) var assumptions: [String] = []
    private var columns: (time: Int, timeScale: Int64, gyro: [Int], gyroScale: Double, accel: [Int]?, accelScale: Double, count: Int)?
    private var previous: (t: Int64, line: Int)?

    public init(source: String) { self.source = source }

    /// Whether a file's first bytes are such a CSV.
    public static func looksLikeBlackboxCSV(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head.prefix(4096), as: UTF8.self)
        let first = text.prefix { $0 != "\n" && $0 != "\r" }
        if first.hasPrefix("loopIteration,") { return true }
        return first.replacingOccurrences(of: "\"", with: "").hasPrefix("Product,Blackbox flight data recorder")
    }

    /// One line (numbered from 1); the sample it holds, or nil for header lines.
    public mutating func line(_ text: Substring, number: Int) throws -> IMUReading? {
        let fields = TraceParser.fields(text).map { $0.count >= 2 && $0.first == "\"" && $0.last == "\"" ? $0.dropFirst().dropLast() : $0 }
        if fields.count == 1 && fields[0].isEmpty { return nil }
        guard let c = columns else {
            if fields.count == 2 && fields[0] != "loopIteration" {
                header.add(name: String(fields[0]), value: String(fields[1]))
                return nil
            }
            guard fields.first == "loopIteration" else {
                throw TraceFileError(path: source, line: number, "expected the blackbox_decode column line (loopIteration, time (us), ...)")
            }
            try setColumns(fields, number)
            return nil
        }
        guard fields.count >= c.count else { throw TraceFileError(path: source, line: number, "expected \(c.count) fields, found \(fields.count)") }
        func value(_ i: Int) throws -> Double {
            guard let v = TraceParser.decimal(fields[i]), v.isFinite else {
                throw TraceFileError(path: source, line: number, "'\(MessageText.quote(String(fields[i])))' is not a number")
            }
            return v
        }
        let tv = try value(c.time) * Double(c.timeScale)
        guard abs(tv) <= Double(TraceParser.maxTimestamp) else { throw TraceFileError(path: source, line: number, "time \(MessageText.quote(String(fields[c.time]))) is out of range") }
        let t = Int64(tv.rounded())
        if let p = previous, t <= p.t {
            throw TraceFileError(path: source, line: number, "time \(t) ns is not after the one on line \(p.line) (\(p.t) ns)")
        }
        previous = (t, number)
        let g = SIMD3(try value(c.gyro[0]), try value(c.gyro[1]), try value(c.gyro[2])) * c.gyroScale
        var a: SIMD3<Double>?
        if let ai = c.accel { a = SIMD3(try value(ai[0]), try value(ai[1]), try value(ai[2])) * c.accelScale }
        return IMUReading(t: t, gyro: g, accel: a)
    }

    /// The input ended: it must have had its column line.
    public func finish() throws {
        if columns == nil { throw TraceFileError(path: source, "no column line (loopIteration, time (us), ...)") }
    }

    private mutating func setColumns(_ fields: [Substring], _ number: Int) throws {
        // "gyroADC[0] (deg/s)" -> ("gyroADC[0]", "deg/s")
        let parsed = fields.map { f -> (name: Substring, unit: Substring?) in
            guard let open = f.firstIndex(of: "("), f.last == ")" else { return (f, nil) }
            return (f[..<open].trimmingCharactersBlank(), f[f.index(after: open)..<f.index(before: f.endIndex)])
        }
        func find(_ names: [String]) -> Int? { parsed.firstIndex { names.contains(String($0.name)) } }
        guard let time = find(["time"]) else { throw TraceFileError(path: source, line: number, "no time column") }
        let timeScale: Int64
        switch parsed[time].unit {
        case "us"?, nil: timeScale = 1000
        case "ms"?: timeScale = 1_000_000
        case "s"?: timeScale = 1_000_000_000
        case let u?: throw TraceFileError(path: source, line: number, "time in '\(MessageText.quote(String(u)))' (expected us, ms or s)")
        }
        guard let g0 = find(["gyroADC[0]", "gyroData[0]"]), let g1 = find(["gyroADC[1]", "gyroData[1]"]), let g2 = find(["gyroADC[2]", "gyroData[2]"]) else {
            throw TraceFileError(path: source, line: number, "no gyroADC[0..2] columns")
        }
        var gyroScale: Double
        switch parsed[g0].unit {
        case "rad/s"?: gyroScale = 1
        case "deg/s"?: gyroScale = .pi / 180
        case nil, "raw"?:
            if let s = header.gyroRadiansPerUnit {
                gyroScale = s
            } else {
                gyroScale = .pi / 180
                assumptions.append("raw gyroADC taken as deg/s (the file gives no gyro_scale)")
            }
        case let u?: throw TraceFileError(path: source, line: number, "gyro in '\(MessageText.quote(String(u)))' (expected deg/s, rad/s or raw)")
        }
        var accel: [Int]?
        var accelScale = 1.0
        if let a0 = find(["accSmooth[0]"]), let a1 = find(["accSmooth[1]"]), let a2 = find(["accSmooth[2]"]) {
            switch parsed[a0].unit {
            case "m/s/s"?: accel = [a0, a1, a2]
            case "g"?: accel = [a0, a1, a2]; accelScale = standardGravity
            default:
                if let one = header.acc1G {
                    accel = [a0, a1, a2]; accelScale = standardGravity / one
                } else {
                    assumptions.append("raw accSmooth left out (the file gives no acc_1G)")
                }
            }
        }
        hasAccel = accel != nil
        columns = (time, timeScale, [g0, g1, g2], gyroScale, accel, accelScale, [time, g0, g1, g2, accel?.max() ?? 0].max()! + 1)
    }

    /// What `imu info` shows for it.
    public func info() -> TraceInfo {
        var meta: [String: String] = ["source": "blackbox CSV"]
        if let f = header.firmware { meta["firmware"] = f }
        if !assumptions.isEmpty { meta["assumed"] = assumptions.joined(separator: "; ") }
        let name = header.firmware ?? "blackbox_decode CSV"
        return TraceInfo(deviceName: name, sourceURI: source, clock: "flight-controller", rateHz: header.declaredRateHz, metadata: meta)
    }
}
