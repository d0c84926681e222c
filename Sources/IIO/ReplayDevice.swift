import Foundation
import Motion

/// A trace dressed as an IIO device for the replay server: channels in scan order (anglvel
/// x/y/z, accel x/y/z where the trace has them, timestamp last), each value quantised to s16 with
/// the channel's scale, the XML libiio 0.24 expects, and sample packing for any channel mask.
public struct ReplayDevice: Sendable {
    public struct Channel: Sendable {
        public var id: String
        /// in_anglvel_scale, in_accel_scale: the kernel's shared-scale file names.
        public var kind: String
        public var scale: Double?
        public var bytes: Int
    }

    public let id = "iio:device0"
    public let name: String
    public let channels: [Channel]
    public let rateHz: Double
    public let clock: String
    /// Per sample: its timestamp and the raw s16 values, channel by channel (timestamp excluded).
    let times: [Int64]
    let raws: [Int16]
    let valuesPerSample: Int
    /// Added to the timestamps on each pass of a looping replay: the span plus one median step.
    let loopPeriod: Int64
    public var sampleCount: Int { times.count }

    /// Gyros are commonly +-2000 deg/s over s16; accelerometers +-8 g.
    public static let defaultGyroScale = 2000.0 * Double.pi / 180 / 32768
    public static let defaultAccelScale = 8 * standardGravity / 32768

    public init(info: TraceInfo, samples: [IMUReading], hasAccel: Bool) {
        name = info.deviceName.isEmpty ? "lockstep-gyro" : info.deviceName
        let gMax = samples.lazy.map { max(abs($0.gyro.x), abs($0.gyro.y), abs($0.gyro.z)) }.max() ?? 0
        let gScale = Self.scale(known: info.channelScales["anglvel_x"], needed: gMax, fallback: Self.defaultGyroScale)
        var chans = TraceInfo.gyroChannels.map { Channel(id: $0, kind: "anglvel", scale: gScale, bytes: 2) }
        var aScale = 0.0
        if hasAccel {
            let aMax = samples.lazy.map { r in r.accel.map { max(abs($0.x), abs($0.y), abs($0.z)) } ?? 0 }.max() ?? 0
            aScale = Self.scale(known: info.channelScales["accel_x"], needed: aMax, fallback: Self.defaultAccelScale)
            chans += TraceInfo.accelChannels.map { Channel(id: $0, kind: "accel", scale: aScale, bytes: 2) }
        }
        chans.append(Channel(id: "timestamp", kind: "timestamp", scale: nil, bytes: 8))
        channels = chans
        valuesPerSample = hasAccel ? 6 : 3
        times = samples.map(\.t)
        var raws: [Int16] = []
        raws.reserveCapacity(samples.count * valuesPerSample)
        func q(_ v: Double, _ s: Double) -> Int16 { Int16(clamping: Int64((v / s).rounded())) }
        for r in samples {
            raws += [q(r.gyro.x, gScale), q(r.gyro.y, gScale), q(r.gyro.z, gScale)]
            if hasAccel { let a = r.accel ?? (0, 0, 0); raws += [q(a.x, aScale), q(a.y, aScale), q(a.z, aScale)] }
        }
        self.raws = raws
        let stats = TraceStatistics(timestamps: times)
        let median = max(stats.medianInterval ?? 5_000_000, 1)
        rateHz = info.rateHz ?? stats.rate.map { _ in 1e9 / Double(median) } ?? 200
        clock = ["realtime", "monotonic", "monotonic_raw", "realtime_coarse", "monotonic_coarse", "boottime", "tai"].contains(info.clock ?? "")
            ? info.clock! : "monotonic"
        loopPeriod = (times.last ?? 0) - (times.first ?? 0) + median
    }

    /// The trace's own scale where its values fit in s16 with it; else the fallback, or one made
    /// just large enough.
    static func scale(known: Double?, needed: Double, fallback: Double) -> Double {
        if let known, known > 0, needed / known <= 32767 { return known }
        if needed / fallback <= 32767 { return fallback }
        return needed / 32000
    }

    /// The k-th sample of the endless (looping) sequence: its timestamp and raw values.
    func sample(_ k: Int) -> (t: Int64, raws: ArraySlice<Int16>) {
        let i = k % times.count, pass = Int64(k / times.count)
        let base = i * valuesPerSample
        return (times[i] + pass * loopPeriod, raws[base..<base + valuesPerSample])
    }

    /// Byte layout for the enabled channels (bit i of `mask` = channels[i]): each element aligned
    /// to its own size, as libiio computes sample sizes. Nil when the mask names no or unknown channels.
    public func layout(mask: UInt64) -> (offsets: [(channel: Int, offset: Int)], sampleSize: Int)? {
        guard mask != 0, mask >> UInt64(channels.count) == 0 else { return nil }
        var offsets: [(Int, Int)] = [], size = 0
        for (i, c) in channels.enumerated() where mask & (1 << UInt64(i)) != 0 {
            if size % c.bytes != 0 { size += c.bytes - size % c.bytes }
            offsets.append((i, size))
            size += c.bytes
        }
        return (offsets, size)
    }

    /// Appends sample k packed for `layout` to `out`, little-endian.
    func pack(_ k: Int, _ layout: [(channel: Int, offset: Int)], sampleSize: Int, into out: inout [UInt8]) {
        let (t, values) = sample(k)
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: sampleSize))
        for (c, offset) in layout {
            if channels[c].bytes == 8 {
                withUnsafeBytes(of: t.littleEndian) { for (j, b) in $0.enumerated() { out[start + offset + j] = b } }
            } else {
                let v = values[values.startIndex + c].littleEndian
                withUnsafeBytes(of: v) { for (j, b) in $0.enumerated() { out[start + offset + j] = b } }
            }
        }
    }

    static func text(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)"
    }

    /// Device attributes as READ answers them.
    func deviceAttribute(_ name: String) -> String? {
        switch name {
        case "sampling_frequency", "sampling_frequency_available": Self.text(rateHz)
        case "current_timestamp_clock": clock
        default: nil
        }
    }

    func channelAttribute(_ channel: String, _ attr: String) -> String? {
        guard let c = channels.first(where: { $0.id == channel }), let scale = c.scale else { return nil }
        switch attr {
        case "scale": return "\(scale)"
        case "raw":
            guard !times.isEmpty, let i = channels.firstIndex(where: { $0.id == channel }) else { return "0" }
            let r = sample(0).raws
            return String(r[r.startIndex + i])
        default: return nil
        }
    }

    static let bufferAttributes = ["data_available", "enable", "length", "watermark"]
    static let deviceAttributes = ["current_timestamp_clock", "sampling_frequency", "sampling_frequency_available"]

    /// The context as `PRINT` returns it: libiio 0.24's own DTD header, then the device.
    public var xml: String {
        func esc(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
                .replacingOccurrences(of: "'", with: "&apos;")
        }
        var x = Self.xmlHeader
        x += "<context name=\"network\" version-major=\"0\" version-minor=\"24\" version-git=\"v0.24\" description=\"Lockstep IMU trace replay\" >"
        x += "<context-attribute name=\"lockstep,replay\" value=\"\(sampleCount) samples\" />"
        x += "<device id=\"\(id)\" name=\"\(esc(name))\" >"
        for (i, c) in channels.enumerated() {
            x += "<channel id=\"\(c.id)\" type=\"input\" >"
            if let scale = c.scale {
                x += "<scan-element index=\"\(i)\" format=\"le:s16/16&gt;&gt;0\" scale=\"\(scale)\" />"
                x += "<attribute name=\"raw\" filename=\"in_\(c.id)_raw\" />"
                x += "<attribute name=\"scale\" filename=\"in_\(c.kind)_scale\" />"
            } else {
                x += "<scan-element index=\"\(i)\" format=\"le:s64/64&gt;&gt;0\" />"
            }
            x += "</channel>"
        }
        for a in Self.deviceAttributes { x += "<attribute name=\"\(a)\" />" }
        for a in Self.bufferAttributes { x += "<buffer-attribute name=\"\(a)\" />" }
        x += "</device></context>"
        return x
    }

    /// libiio v0.24's `xml_header` (context.c): clients validate the XML against it.
    static let xmlHeader = "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
        + "<!DOCTYPE context ["
        + "<!ELEMENT context (device | context-attribute)*>"
        + "<!ELEMENT context-attribute EMPTY>"
        + "<!ELEMENT device (channel | attribute | debug-attribute | buffer-attribute)*>"
        + "<!ELEMENT channel (scan-element?, attribute*)>"
        + "<!ELEMENT attribute EMPTY>"
        + "<!ELEMENT scan-element EMPTY>"
        + "<!ELEMENT debug-attribute EMPTY>"
        + "<!ELEMENT buffer-attribute EMPTY>"
        + "<!ATTLIST context name CDATA #REQUIRED version-major CDATA #REQUIRED "
        + "version-minor CDATA #REQUIRED version-git CDATA #REQUIRED description CDATA #IMPLIED>"
        + "<!ATTLIST context-attribute name CDATA #REQUIRED value CDATA #REQUIRED>"
        + "<!ATTLIST device id CDATA #REQUIRED name CDATA #IMPLIED label CDATA #IMPLIED>"
        + "<!ATTLIST channel id CDATA #REQUIRED type (input|output) #REQUIRED name CDATA #IMPLIED>"
        + "<!ATTLIST scan-element index CDATA #REQUIRED format CDATA #REQUIRED scale CDATA #IMPLIED>"
        + "<!ATTLIST attribute name CDATA #REQUIRED filename CDATA #IMPLIED>"
        + "<!ATTLIST debug-attribute name CDATA #REQUIRED>"
        + "<!ATTLIST buffer-attribute name CDATA #REQUIRED>"
        + "]>"
}
