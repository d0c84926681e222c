import Dispatch
import Foundation
import Glibc

/// One client connection of the replay server: reads command lines (at most `maxLine` bytes:
/// a longer one is discarded and answered -EINVAL, never buffered), answers them, and streams
/// samples for READBUF paced by their timestamps.
final class IIODConnection {
    static let maxLine = 4096
    /// Largest WRITE payload accepted (attribute values are short).
    static let maxWrite = 4096
    /// Longest silence while a READBUF waits for samples: libiio's client gives up on a read after about 5 s.
    static let maxWait: UInt64 = 1_000_000_000

    private let fd: Int32
    private let device: ReplayDevice
    private let speed: Double
    private let loop: Bool
    private var input = [UInt8]()
    private var inputStart = 0
    private var stream: Stream?

    /// An open buffer: what is sent, and where the replay stands.
    struct Stream {
        var mask: UInt64
        var layout: [(channel: Int, offset: Int)]
        var sampleSize: Int
        var next = 0
        var startHost: UInt64
    }

    init(fd: Int32, device: ReplayDevice, speed: Double, loop: Bool) {
        self.fd = fd; self.device = device; self.speed = speed; self.loop = loop
        input.reserveCapacity(2 * Self.maxLine)
    }

    func run() {
        while let line = readLine() {
            guard let text = line else { guard send("-22\n") else { return }; continue }
            guard handle(IIODCommand(line: Substring(text))) else { return }
        }
    }

    // MARK: input

    /// The next line; `.some(nil)` for a line over the limit (discarded); nil at end of stream.
    private func readLine() -> String?? {
        var discarding = false
        while true {
            if let nl = input[inputStart...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = input[inputStart..<nl]
                inputStart = nl + 1
                if discarding { return .some(nil) }
                return .some(String(decoding: line, as: UTF8.self))
            }
            if input.count - inputStart > Self.maxLine { discarding = true; input.removeAll(keepingCapacity: true); inputStart = 0 }
            guard fill() else { return nil }
        }
    }

    private func fill() -> Bool {
        if inputStart > 0 { input.removeSubrange(0..<inputStart); inputStart = 0 }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        input.append(contentsOf: chunk[0..<n])
        return true
    }

    private func readBytes(_ count: Int) -> [UInt8]? {
        while input.count - inputStart < count { guard fill() else { return nil } }
        let bytes = Array(input[inputStart..<inputStart + count])
        inputStart += count
        return bytes
    }

    // MARK: output

    @discardableResult
    private func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    @discardableResult
    private func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    private func code(_ n: Int) -> Bool { send("\(n)\n") }

    // MARK: commands

    /// Answers one command; false ends the connection.
    private func handle(_ command: IIODCommand) -> Bool {
        switch command {
        case .empty: return true
        case .exit: return false
        case .print:
            let xml = Array(device.xml.utf8)
            return send("\(xml.count)\n") && send(xml + [UInt8(ascii: "\n")])
        case .version: return send("0.24.v0.24  \n")
        case .timeout: return code(0)
        case .zprint, .binary, .help, .unknown, .writebuf: return code(-Int(EINVAL))
        case .gettrig(let d): return code(known(d) ? -Int(ENOENT) : -Int(ENODEV))
        case .settrig(let d, let trigger):
            guard known(d) else { return code(-Int(ENODEV)) }
            return code(trigger == nil ? 0 : -Int(ENODEV))
        case .setBuffersCount(let d, let n):
            guard known(d) else { return code(-Int(ENODEV)) }
            return code(n >= 1 ? 0 : -Int(EINVAL))
        case .read(let d, let target, let attr):
            guard known(d) else { return code(-Int(ENODEV)) }
            guard let value = read(target, attr) else { return code(-Int(ENOENT)) }
            let bytes = Array(value.utf8)
            return send("\(bytes.count)\n") && send(bytes + [UInt8(ascii: "\n")])
        case .write(let d, let target, let attr, let length):
            guard length <= Self.maxWrite else { _ = code(-Int(EINVAL)); return false }  // cannot skip the payload safely
            guard let payload = readBytes(length) else { return false }
            guard known(d) else { return code(-Int(ENODEV)) }
            return code(write(target, attr, payload))
        case .open(let d, let samples, let mask, _):
            guard known(d) else { return code(-Int(ENODEV)) }
            guard samples > 0, let (layout, size) = device.layout(mask: mask) else { return code(-Int(EINVAL)) }
            stream = Stream(mask: mask, layout: layout, sampleSize: size, startHost: DispatchTime.now().uptimeNanoseconds)
            return code(0)
        case .close(let d):
            guard known(d) else { return code(-Int(ENODEV)) }
            stream = nil
            return code(0)
        case .readbuf(let d, let bytes):
            guard known(d) else { return code(-Int(ENODEV)) }
            guard let s = stream else { return code(-Int(EBADF)) }
            guard bytes > 0, bytes % s.sampleSize == 0 else { return code(-Int(EINVAL)) }
            return readbuf(samples: bytes / s.sampleSize)
        }
    }

    private func known(_ d: String) -> Bool { d == device.id || d == device.name }

    private func read(_ target: IIODCommand.Target, _ attr: String) -> String? {
        switch target {
        case .device: return device.deviceAttribute(attr)
        case .channel(let c, let output): return output ? nil : device.channelAttribute(c, attr)
        case .buffer:
            switch attr {
            case "data_available": return "0"
            case "enable": return stream == nil ? "0" : "1"
            case "length", "watermark": return "1"
            default: return nil
            }
        case .debug: return nil
        }
    }

    /// Bytes written or -errno. Only sampling_frequency is writable, and only to the trace's rate.
    private func write(_ target: IIODCommand.Target, _ attr: String, _ payload: [UInt8]) -> Int {
        guard target == .device, attr == "sampling_frequency" else {
            return read(target, attr) == nil ? -Int(ENOENT) : -Int(EACCES)
        }
        let text = String(decoding: payload.prefix { $0 != 0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let v = Double(text), abs(v - device.rateHz) <= device.rateHz * 1e-6 else { return -Int(EINVAL) }
        return payload.count
    }

    /// Sends `count` samples as they fall due, in chunks (the mask line after the first chunk's
    /// size). A chunk goes out at the latest every `maxWait`; a non-looping replay that runs out
    /// ends the answer early with `0`, and answers -ENODATA once nothing is left.
    private func readbuf(samples count: Int) -> Bool {
        var s = stream!
        defer { stream = s }
        if !loop && s.next >= device.sampleCount { return code(-Int(ENODATA)) }
        var remaining = count, first = true
        let t0 = device.sample(0).t
        func due(_ k: Int) -> UInt64 {
            s.startHost + UInt64(max(0, Double(device.sample(k).t - t0) / speed))
        }
        while remaining > 0 {
            var n = loop ? remaining : min(remaining, device.sampleCount - s.next)
            if n == 0 { return code(0) }
            n = min(n, max(1, (1 << 20) / s.sampleSize))
            if speed > 0 {
                let now = DispatchTime.now().uptimeNanoseconds
                let last = due(s.next + n - 1)
                if last > now {
                    let wait = min(last - now, Self.maxWait)
                    Thread.sleep(forTimeInterval: Double(wait) / 1e9)
                    let after = DispatchTime.now().uptimeNanoseconds
                    var m = 0
                    while m < n && due(s.next + m) <= after { m += 1 }
                    if m == 0 { continue }
                    n = m
                }
            }
            var out: [UInt8] = []
            out.reserveCapacity(n * s.sampleSize + 32)
            out += Array("\(n * s.sampleSize)\n".utf8)
            if first {
                let hex = String(s.mask, radix: 16)
                out += Array((String(repeating: "0", count: max(0, 8 - hex.count)) + hex + "\n").utf8)
            }
            for k in s.next..<s.next + n { device.pack(k, s.layout, sampleSize: s.sampleSize, into: &out) }
            guard send(out) else { return false }
            s.next += n; remaining -= n; first = false
        }
        return true
    }
}
