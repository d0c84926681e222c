/// ArduPilot DataFlash logs (`.bin`, the flight controller's SD-card log), decoded from bytes with
/// no I/O: every message is 0xA3 0x95, a type byte and a packed little-endian payload laid out by
/// that type's FMT message (type 128, "BBnNZ": Type, Length with the 3 header bytes, Name,
/// Format, Columns), so the file describes itself. The IMU messages are read by their column names:
/// ArduPilot 4.x's one "IMU" type with the instance in `I`, and 3.x's "IMU", "IMU2", "IMU3" types;
/// the time is `TimeUS` (microseconds since boot; `TimeMS` in older logs), the gyro `GyrX..Z` in
/// rad/s and the accelerometer `AccX..Z` in m/s^2, as ArduPilot logs them.
///
/// Bytes that do not start a message of a known type are skipped one at a time until one does,
/// as pymavlink's DFReader (the reader of MAVExplorer and mavlogdump) does, and counted; a file
/// cut inside a message keeps what came before it.
public enum DataFlashDecoder {
    /// One IMU (instance 0, 1, ...) of a log.
    public struct Instance: Sendable {
        public var number: Int
        public var readings: [IMUReading] = []
        public var hasAccel = false
        /// Messages whose time repeated, went back or is no time at all (a trace's times strictly
        /// increase), or whose values are not finite.
        public var dropped = 0
    }

    public struct Log: Sendable {
        public var instances: [Instance] = []
        /// The vehicle's firmware as its first MSG says ("ArduCopter V4.5.7 (2a3dc4b7)").
        public var firmware: String?
        /// Bytes that started no message, in how many runs, and where the first run was.
        public var skippedBytes = 0, skippedRuns = 0
        public var firstSkipAt: Int?
        /// Where the message cut by the end of the file starts.
        public var truncatedAt: Int?
        /// Why the log gives no IMU samples when it says why (no FMT for an IMU type), else nil.
        public var problem: String?

        /// Sentences for the user about what was skipped.
        public var warnings: [String] {
            var out: [String] = []
            if skippedBytes > 0, let at = firstSkipAt {
                out.append("\(skippedBytes) byte\(skippedBytes == 1 ? "" : "s") that start no message skipped in \(skippedRuns) run\(skippedRuns == 1 ? "" : "s"), the first at byte \(at)")
            }
            for i in instances where i.dropped > 0 {
                out.append("IMU \(i.number): \(i.dropped) message\(i.dropped == 1 ? "" : "s") not used (a time that repeats, goes back or is out of range, or a value that is not a number)")
            }
            if let at = truncatedAt { out.append("the log is truncated: it stops inside a message at byte \(at); kept what came before it") }
            return out
        }
    }

    /// What a FMT message says about one type, with the byte offset of every field.
    struct Format {
        var name: String
        var length: Int
        var chars: [UInt8]
        var columns: [String]
        var offsets: [Int]
    }

    static let head0: UInt8 = 0xA3, head1: UInt8 = 0x95, fmtType: UInt8 = 128, fmtLength = 89

    /// Bytes per format character (AP_Logger's and DFReader's table); nil for one not known.
    static func size(_ c: UInt8) -> Int? {
        switch c {
        case UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "M"): 1
        case UInt8(ascii: "h"), UInt8(ascii: "H"), UInt8(ascii: "c"), UInt8(ascii: "C"), UInt8(ascii: "g"): 2
        case UInt8(ascii: "i"), UInt8(ascii: "I"), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "L"), UInt8(ascii: "f"), UInt8(ascii: "n"): 4
        case UInt8(ascii: "d"), UInt8(ascii: "q"), UInt8(ascii: "Q"): 8
        case UInt8(ascii: "N"): 16
        case UInt8(ascii: "Z"), UInt8(ascii: "a"): 64
        default: nil
        }
    }

    public static func decode(_ bytes: [UInt8]) -> Log { bytes.withUnsafeBufferPointer { decode($0) } }

    public static func decode(_ b: UnsafeBufferPointer<UInt8>) -> Log {
        var log = Log()
        var formats = [Format?](repeating: nil, count: 256)
        // IMU readers per type (nil: not an IMU type), and the instances by number.
        var imuFields = [IMUFields?](repeating: nil, count: 256)
        var instances: [Int: Instance] = [:]
        var lastT: [Int: Int64] = [:]
        var pos = 0
        var skipping = false
        let n = b.count
        while n - pos >= 3 {
            let type = b[pos + 2]
            guard b[pos] == head0, b[pos + 1] == head1, type == fmtType || formats[Int(type)] != nil else {
                if !skipping { skipping = true; log.skippedRuns += 1; if log.firstSkipAt == nil { log.firstSkipAt = pos } }
                log.skippedBytes += 1
                pos += 1
                continue
            }
            skipping = false
            let length = type == fmtType ? fmtLength : formats[Int(type)]!.length
            guard n - pos >= length else { log.truncatedAt = pos; break }
            if type == fmtType {
                if let f = parseFormat(b, at: pos + 3) {
                    formats[Int(f.type)] = f.format
                    imuFields[Int(f.type)] = IMUFields(f.format)
                }
            } else if let fields = imuFields[Int(type)] {
                let body = pos + 3
                let instance = fields.instance.map { Int(value(b, body + $0.offset, $0.char)) } ?? fields.fixedInstance
                // A time no clock gives (a TimeUS past 292 years, a float column that is not a
                // number) is not a sample: converting it to Int64 trapped (found by FuzzBlackbox).
                let ns = (value(b, body + fields.time.offset, fields.time.char) * fields.timeToNs).rounded()
                guard ns.isFinite, abs(ns) < 9.2e18 else {
                    instances[instance, default: Instance(number: instance)].dropped += 1
                    pos += length
                    continue
                }
                let t = Int64(ns)
                let g = SIMD3(
                    value(b, body + fields.gyro.0.offset, fields.gyro.0.char), value(b, body + fields.gyro.1.offset, fields.gyro.1.char),
                    value(b, body + fields.gyro.2.offset, fields.gyro.2.char))
                var a: SIMD3<Double>?
                if let acc = fields.accel {
                    a = SIMD3(value(b, body + acc.0.offset, acc.0.char), value(b, body + acc.1.offset, acc.1.char), value(b, body + acc.2.offset, acc.2.char))
                }
                var inst = instances[instance] ?? Instance(number: instance)
                if let last = lastT[instance], t <= last {
                    inst.dropped += 1
                } else if g.x.isFinite && g.y.isFinite && g.z.isFinite && (a.map { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite } ?? true) {
                    inst.readings.append(IMUReading(t: t, gyro: g, accel: a))
                    inst.hasAccel = a != nil
                    lastT[instance] = t
                } else {
                    inst.dropped += 1
                }
                instances[instance] = inst
            } else if log.firmware == nil, let f = formats[Int(type)], f.name == "MSG", let text = firstText(b, at: pos + 3, f) {
                if ["Ardu", "AntennaTracker", "Blimp", "AP_Periph"].contains(where: { text.hasPrefix($0) }) { log.firmware = text }
            }
            pos += length
        }
        log.instances = instances.values.sorted { $0.number < $1.number }
        if log.instances.isEmpty {
            log.problem = imuFields.contains { $0 != nil } ? "it holds no IMU messages" : "it defines no IMU message (no FMT for IMU with TimeUS, GyrX, GyrY, GyrZ)"
        }
        return log
    }

    /// Where an IMU type keeps what is read.
    struct IMUFields {
        typealias Field = (offset: Int, char: UInt8)
        var time: Field
        var timeToNs: Double
        var gyro: (Field, Field, Field)
        var accel: (Field, Field, Field)?
        var instance: Field?
        var fixedInstance: Int

        init?(_ f: Format) {
            // "IMU", or 3.x's "IMU2" and "IMU3" (the second and third IMU).
            guard f.name == "IMU" || f.name == "IMU2" || f.name == "IMU3" else { return nil }
            func field(_ name: String) -> Field? {
                guard let k = f.columns.firstIndex(of: name), k < f.chars.count else { return nil }
                let c = f.chars[k]
                // Numbers only: a name or an array in the place of a number is not read.
                guard ![UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "Z"), UInt8(ascii: "a")].contains(c) else { return nil }
                return (f.offsets[k], c)
            }
            if let t = field("TimeUS") { time = t; timeToNs = 1000 } else if let t = field("TimeMS") { time = t; timeToNs = 1_000_000 } else { return nil }
            guard let gx = field("GyrX"), let gy = field("GyrY"), let gz = field("GyrZ") else { return nil }
            gyro = (gx, gy, gz)
            if let ax = field("AccX"), let ay = field("AccY"), let az = field("AccZ") { accel = (ax, ay, az) }
            instance = field("I")
            fixedInstance = f.name == "IMU2" ? 1 : f.name == "IMU3" ? 2 : 0
        }
    }

    /// A FMT message's body: the type it describes and its layout; nil when its format has a
    /// character that is not known or needs more bytes than its length gives.
    static func parseFormat(_ b: UnsafeBufferPointer<UInt8>, at p: Int) -> (type: UInt8, format: Format)? {
        let type = b[p], length = Int(b[p + 1])
        func text(_ from: Int, _ count: Int) -> [UInt8] { Array(b[from..<(from + count)].prefix { $0 != 0 }) }
        let name = String(decoding: text(p + 2, 4), as: UTF8.self)
        let chars = text(p + 6, 16)
        let columns = String(decoding: text(p + 22, 64), as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard type != fmtType else { return nil }
        var offsets: [Int] = []
        var at = 0
        for c in chars {
            guard let s = size(c) else { return nil }
            offsets.append(at)
            at += s
        }
        guard length >= 3, at + 3 <= length else { return nil }
        return (type, Format(name: name, length: length, chars: chars, columns: columns, offsets: offsets))
    }

    /// A numeric field (little-endian) as a Double, with the format's fixed scale (c, C, e, E: x0.01; L: x1e-7).
    @inline(__always) static func value(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ c: UInt8) -> Double {
        func u(_ count: Int) -> UInt64 { var v: UInt64 = 0; for k in (0..<count).reversed() { v = v << 8 | UInt64(b[p + k]) }; return v }
        switch c {
        case UInt8(ascii: "f"): return Double(Float(bitPattern: UInt32(u(4))))
        case UInt8(ascii: "d"): return Double(bitPattern: u(8))
        case UInt8(ascii: "g"): return Double(Float16(bitPattern: UInt16(u(2))))
        case UInt8(ascii: "b"), UInt8(ascii: "M"): return Double(Int8(bitPattern: UInt8(u(1))))
        case UInt8(ascii: "B"): return Double(u(1))
        case UInt8(ascii: "h"): return Double(Int16(bitPattern: UInt16(u(2))))
        case UInt8(ascii: "H"): return Double(u(2))
        case UInt8(ascii: "c"): return Double(Int16(bitPattern: UInt16(u(2)))) * 0.01
        case UInt8(ascii: "C"): return Double(u(2)) * 0.01
        case UInt8(ascii: "i"): return Double(Int32(bitPattern: UInt32(u(4))))
        case UInt8(ascii: "I"): return Double(u(4))
        case UInt8(ascii: "e"): return Double(Int32(bitPattern: UInt32(u(4)))) * 0.01
        case UInt8(ascii: "E"): return Double(u(4)) * 0.01
        case UInt8(ascii: "L"): return Double(Int32(bitPattern: UInt32(u(4)))) * 1e-7
        case UInt8(ascii: "q"): return Double(Int64(bitPattern: u(8)))
        default: return Double(u(8))  // Q
        }
    }

    /// The first text field (Z, N or n) of a message, NUL-trimmed.
    static func firstText(_ b: UnsafeBufferPointer<UInt8>, at body: Int, _ f: Format) -> String? {
        guard let k = f.chars.firstIndex(where: { $0 == UInt8(ascii: "Z") || $0 == UInt8(ascii: "N") || $0 == UInt8(ascii: "n") }),
            let s = size(f.chars[k])
        else { return nil }
        let start = body + f.offsets[k]
        return String(decoding: b[start..<(start + s)].prefix { $0 != 0 }, as: UTF8.self)
    }
}
