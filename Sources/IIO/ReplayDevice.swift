import Foundation
import Motion
import NIOCore

/// Why a trace cannot be dressed as a device.
public enum ReplayDeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSamples
    /// A value that is infinite or not a number: it has no s16 quantisation.
    case notFinite(t: Int64, channel: String, value: Double)
    /// A value beyond `IMUReading.largestValue`: its s16 scale would be past what libiio reads
    /// (a float: 3.125e+303 was advertised, and every client failed on it).
    case beyondRange(t: Int64, channel: String, value: Double)

    public var description: String {
        switch self {
        case .noSamples: "it has no samples"
        case .notFinite(let t, let channel, let value): "the sample at \(t) ns holds \(channel) = \(value); only finite values can be replayed"
        case .beyondRange(let t, let channel, let value):
            "the sample at \(t) ns holds \(channel) = \(value), beyond +-\(Int(IMUReading.largestValue)); not a motion sensor's reading, and no IIO client could read its scale"
        }
    }
}

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
    /// Added to the timestamps on each pass of a looping replay: the span plus one median step;
    /// nil when the span itself does not fit in 64 bits (such a trace plays once).
    let loopPeriod: Int64?
    /// Samples in one pass.
    public var sampleCount: Int { times.count }
    /// Samples a looping replay can send before its timestamps would outgrow 64 bits: the
    /// stream ends there, as a non-looping one ends after its last sample.
    public let loopLength: Int

    /// Gyros are commonly +-2000 deg/s over s16; accelerometers +-8 g.
    public static let defaultGyroScale = 2000.0 * Double.pi / 180 / 32768
    public static let defaultAccelScale = 8 * standardGravity / 32768

    /// Fails on an empty trace and on values that are not finite (a store written before imports
    /// refused them can hold +-inf): they have no place on an s16 scale.
    public init(info: TraceInfo, samples: [IMUReading], hasAccel: Bool) throws(ReplayDeviceError) {
        guard !samples.isEmpty else { throw .noSamples }
        for r in samples {
            let values =
                [("anglvel_x", r.gyro.x), ("anglvel_y", r.gyro.y), ("anglvel_z", r.gyro.z)]
                + (hasAccel ? r.accel.map { [("accel_x", $0.x), ("accel_y", $0.y), ("accel_z", $0.z)] } ?? [] : [])
            if let bad = values.first(where: { !$0.1.isFinite }) { throw .notFinite(t: r.t, channel: bad.0, value: bad.1) }
            if let bad = values.first(where: { abs($0.1) > IMUReading.largestValue }) { throw .beyondRange(t: r.t, channel: bad.0, value: bad.1) }
        }
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
        for r in samples {
            raws += [Self.quantise(r.gyro.x, gScale), Self.quantise(r.gyro.y, gScale), Self.quantise(r.gyro.z, gScale)]
            if hasAccel {
                let a = r.accel ?? .zero
                raws += [Self.quantise(a.x, aScale), Self.quantise(a.y, aScale), Self.quantise(a.z, aScale)]
            }
        }
        self.raws = raws
        let median = Self.medianStep(times)
        rateHz = info.rateHz.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? 1e9 / Double(median)
        clock =
            ["realtime", "monotonic", "monotonic_raw", "realtime_coarse", "monotonic_coarse", "boottime", "tai"].contains(info.clock ?? "")
            ? info.clock! : "monotonic"
        (loopPeriod, loopLength) = Self.loop(times, median: median)
    }

    /// `v / scale` rounded and clamped to s16; the caller made sure both are finite.
    static func quantise(_ v: Double, _ scale: Double) -> Int16 {
        let x = (v / scale).rounded()
        return x.isNaN ? 0 : Int16(max(-32768, min(32767, x)))
    }

    /// The median step between timestamps, at least 1 ns (5 ms for a single sample); a step
    /// that does not fit in 64 bits counts as the largest there is.
    static func medianStep(_ times: [Int64]) -> Int64 {
        guard times.count > 1 else { return 5_000_000 }
        var steps = zip(times.dropFirst(), times).map { b, a in
            let (d, overflow) = b.subtractingReportingOverflow(a)
            return overflow ? (b > a ? Int64.max : Int64.min) : d
        }
        steps.sort()
        return max(steps[(steps.count - 1) / 2], 1)
    }

    /// The loop's period and how many samples the endless sequence holds before a timestamp
    /// would pass Int64.max. All arithmetic checked: extreme timestamps end the replay, never trap.
    static func loop(_ times: [Int64], median: Int64) -> (period: Int64?, length: Int) {
        guard let lo = times.min(), let hi = times.max() else { return (nil, 0) }
        let (span, o1) = hi.subtractingReportingOverflow(lo)
        let (period, o2) = span.addingReportingOverflow(median)
        guard !o1, !o2, period > 0 else { return (nil, times.count) }
        // Passes p with every times[i] + p * period <= Int64.max.
        let (headroom, o3) = Int64.max.subtractingReportingOverflow(hi)
        let passes = (o3 ? Int64.max : headroom) / period + 1
        let (length, o4) = Int(passes).multipliedReportingOverflow(by: times.count)
        return (period, o4 ? Int.max : length)
    }

    /// The trace's own scale where it is a finite positive number and its values fit in s16
    /// with it; else the fallback, or one made just large enough.
    static func scale(known: Double?, needed: Double, fallback: Double) -> Double {
        // libiio 0.24 reads the scale with strtof: it must be a normal float (a store's scale of
        // 1e-300 or 1e300 would reach it as out of range, and every client fail).
        if let known, known >= Double(Float.leastNormalMagnitude), known <= Double(Float.greatestFiniteMagnitude),
            needed / known <= 32767
        {
            return known
        }
        if needed / fallback <= 32767 { return fallback }
        return needed / 32000
    }

    /// How many samples a replay sends in all: one pass, or the loop until its timestamps run out.
    public func length(looping: Bool) -> Int { looping ? loopLength : sampleCount }

    /// The timestamp of the k-th sample of the endless (looping) sequence, k < `loopLength`.
    func timestamp(_ k: Int) -> Int64 {
        let i = k % times.count, pass = Int64(k / times.count)
        return pass == 0 ? times[i] : times[i] + pass * loopPeriod!
    }

    /// The k-th sample of the endless (looping) sequence, k < `loopLength`: its timestamp and raw values.
    func sample(_ k: Int) -> (t: Int64, raws: ArraySlice<Int16>) {
        let base = (k % times.count) * valuesPerSample
        return (timestamp(k), raws[base..<base + valuesPerSample])
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

    /// Writes sample k packed for `layout` to `out`, little-endian, padding zeroed.
    func pack(_ k: Int, _ layout: [(channel: Int, offset: Int)], sampleSize: Int, into out: inout ByteBuffer) {
        let (t, values) = sample(k)
        let start = out.writerIndex
        out.writeRepeatingByte(0, count: sampleSize)
        for (c, offset) in layout {
            if channels[c].bytes == 8 {
                out.setInteger(t, at: start + offset, endianness: .little)
            } else {
                out.setInteger(values[values.startIndex + c], at: start + offset, endianness: .little)
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
            guard let i = channels.firstIndex(where: { $0.id == channel }) else { return "0" }
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
    static let xmlHeader =
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
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
