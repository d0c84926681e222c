import CIIO
import Dispatch
import Foundation
import Motion

/// The open device side of a recording: the context, the enabled channels with their scale and
/// offset, and the buffers. Released by dropping it (buffers first, then the context).
final class RecordingSession {
    struct Axis {
        var channel: IIOChannel
        var scale: Double
        var offset: Double
        func value(_ raw: Int64) -> Double { (Double(raw) + offset) * scale }
    }
    struct Source {
        var device: IIODevice
        var axes: [Axis]
        var timestamp: IIOChannel?
        var buffer: IIOBuffer
        /// Nanoseconds between samples, for stamping samples from the host clock.
        var period: Int64
    }

    let context: IIOContext
    let info: TraceInfo
    let gyro: Source
    let accel: Source?
    var buffers: [IIOBuffer] { [gyro.buffer] + (accel.map { [$0.buffer] } ?? []) }
    /// Accelerometer samples from a separate device not yet paired with a gyro sample.
    private var accelQueue: [(t: Int64, v: SIMD3<Double>)] = []

    init(options: RecorderOptions) throws {
        context = try IIOContext(uri: options.uri)
        let devices = context.devices
        func has(_ d: IIODevice, _ ids: [String]) -> Bool { ids.allSatisfy { d.channel($0)?.isScanElement == true } }
        let gyroDevice: IIODevice
        if let name = options.device {
            guard let d = context.device(named: name) else {
                throw RecorderError.noDevice("\(options.uri) has no device named \(name) (it has: \(devices.map { $0.name ?? $0.id }.joined(separator: ", ")))")
            }
            guard has(d, TraceInfo.gyroChannels) else { throw RecorderError.noGyro("\(name) has no anglvel_x, anglvel_y and anglvel_z channels") }
            gyroDevice = d
        } else {
            guard let d = devices.first(where: { has($0, TraceInfo.gyroChannels) }) else {
                throw RecorderError.noGyro("\(options.uri) has no gyro (no device with anglvel_x, anglvel_y and anglvel_z channels)")
            }
            gyroDevice = d
        }
        var accelDevice: IIODevice?
        if options.accel {
            accelDevice = has(gyroDevice, TraceInfo.accelChannels) ? gyroDevice : devices.first { has($0, TraceInfo.accelChannels) }
            if accelDevice == nil { throw RecorderError.noAccel("\(options.uri) has no accelerometer (no device with accel_x, accel_y and accel_z channels)") }
        }
        if let rate = options.rateHz { try gyroDevice.writeAttribute("sampling_frequency", rate) }
        let rate = (try? gyroDevice.readAttribute("sampling_frequency")).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        let clock = (try? gyroDevice.readAttribute("current_timestamp_clock"))?.trimmingCharacters(in: .whitespacesAndNewlines)
        let bufferSamples = options.bufferSamples ?? max(1, Int(((rate ?? 100) / 10).rounded()))

        func open(_ device: IIODevice, _ ids: [String]) throws -> Source {
            let axes = try ids.map { id -> Axis in
                let c = device.channel(id)!
                c.enable()
                return Axis(
                    channel: c, scale: c.hasAttribute("scale") ? try c.readDouble("scale") : 1,
                    offset: c.hasAttribute("offset") ? try c.readDouble("offset") : 0)
            }
            let ts = device.channel("timestamp").flatMap { $0.isScanElement ? $0 : nil }
            ts?.enable()
            let r = (try? device.readAttribute("sampling_frequency")).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? rate ?? 100
            return Source(
                device: device, axes: axes, timestamp: ts, buffer: try IIOBuffer(device: device, samples: bufferSamples),
                period: Int64((1e9 / r).rounded()))
        }
        // Channels of one device must all be enabled before its buffer is made.
        var accelOnGyro: [Axis]?
        if accelDevice?.id == gyroDevice.id {
            accelOnGyro = try TraceInfo.accelChannels.map { id in
                let c = gyroDevice.channel(id)!
                c.enable()
                return Axis(
                    channel: c, scale: c.hasAttribute("scale") ? try c.readDouble("scale") : 1,
                    offset: c.hasAttribute("offset") ? try c.readDouble("offset") : 0)
            }
        }
        gyro = try open(gyroDevice, TraceInfo.gyroChannels)
        if let axes = accelOnGyro {
            accel = Source(device: gyroDevice, axes: axes, timestamp: nil, buffer: gyro.buffer, period: 0)
        } else if let d = accelDevice {
            accel = try open(d, TraceInfo.accelChannels)
        } else {
            accel = nil
        }

        var scales: [String: Double] = [:]
        for a in gyro.axes + (accel?.axes ?? []) { scales[a.channel.id] = a.scale }
        var metadata = ["gyro_device_id": gyroDevice.id]
        if let a = accel, a.device.id != gyroDevice.id { metadata["accel_device"] = a.device.name ?? a.device.id }
        info = TraceInfo(
            deviceName: gyroDevice.name ?? gyroDevice.id, sourceURI: options.uri,
            clock: gyro.timestamp != nil ? (clock ?? "unknown") : "host-monotonic",
            rateHz: rate, channelScales: scales, orientation: nil, metadata: metadata)
    }

    /// Refills the buffer(s) once and decodes the samples.
    func read() throws -> [IMUReading] {
        _ = try gyro.buffer.refill()
        let times = timestamps(gyro)
        var g: [[Double]] = gyro.axes.map { axis in
            var values: [Double] = []
            gyro.buffer.forEach(axis.channel) { values.append(axis.value(axis.channel.integer(at: $0))) }
            return values
        }
        let n = min(times.count, g.map(\.count).min() ?? 0)
        g = g.map { Array($0.prefix(n)) }
        var acc: [SIMD3<Double>]?
        if let accel {
            if accel.buffer === gyro.buffer {
                let a = accel.axes.map { axis in
                    var values: [Double] = []
                    gyro.buffer.forEach(axis.channel) { values.append(axis.value(axis.channel.integer(at: $0))) }
                    return values
                }
                acc = (0..<n).map { SIMD3(a[0][$0], a[1][$0], a[2][$0]) }
            } else {
                acc = try pairAccel(with: Array(times.prefix(n)), accel)
            }
        }
        return (0..<n).map { i in IMUReading(t: times[i], gyro: SIMD3(g[0][i], g[1][i], g[2][i]), accel: acc?[i]) }
    }

    private func timestamps(_ source: Source) -> [Int64] {
        if let ts = source.timestamp {
            var times: [Int64] = []
            source.buffer.forEach(ts) { times.append(ts.integer(at: $0)) }
            return times
        }
        // No timestamp channel: the host's monotonic clock at the refill's return is the last
        // sample's time, the others spaced by the nominal period before it.
        var count = 0
        source.buffer.forEach(source.axes[0].channel) { _ in count += 1 }
        let now = Int64(DispatchTime.now().uptimeNanoseconds)
        return (0..<count).map { now - Int64(count - 1 - $0) * source.period }
    }

    /// An accelerometer on another device: each gyro sample takes the latest accel sample at or
    /// before it (the first one while none is), refilling the accel buffer until it catches up.
    private func pairAccel(with times: [Int64], _ accel: Source) throws -> [SIMD3<Double>] {
        var out: [SIMD3<Double>] = []
        for t in times {
            while accelQueue.count < 2 || accelQueue.last!.t < t {
                let before = accelQueue.count
                _ = try accel.buffer.refill()
                let ts = timestamps(accel)
                let a = accel.axes.map { axis in
                    var values: [Double] = []
                    accel.buffer.forEach(axis.channel) { values.append(axis.value(axis.channel.integer(at: $0))) }
                    return values
                }
                for i in 0..<min(ts.count, a[0].count) { accelQueue.append((ts[i], SIMD3(a[0][i], a[1][i], a[2][i]))) }
                if accelQueue.count == before { break }
                if accelQueue.count >= 2 && accelQueue.last!.t >= t { break }
            }
            while accelQueue.count > 1 && accelQueue[1].t <= t { accelQueue.removeFirst() }
            out.append(accelQueue[0].v)
        }
        return out
    }
}
