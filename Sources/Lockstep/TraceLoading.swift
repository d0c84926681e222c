import Foundation
import Motion

/// Loads an IMU trace for fusion, whatever it is stored in. Until the trace store lands, the plain
/// CSV form (`t_ns,gx,gy,gz[,ax,ay,az]`, header optional) is read here, streaming, with errors
/// naming the file and line.
public enum TraceLoading {
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    public static func load(_ path: String) throws -> [IMUReading] {
        guard FileManager.default.fileExists(atPath: path) else { throw Failure(description: "\(path): no such file") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure(description: "\(path): cannot be read") }
        defer { try? handle.close() }
        var readings: [IMUReading] = []
        var pending = Data()
        var lineNumber = 0
        func parse(_ line: Substring) throws {
            lineNumber += 1
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { return }
            if lineNumber == 1 && text.first.map({ !$0.isNumber && $0 != "-" }) == true { return }   // a header
            let fields = text.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 4 || fields.count == 7, let t = Int64(fields[0]) else {
                throw Failure(description: "\(path):\(lineNumber): expected t_ns,gx,gy,gz[,ax,ay,az]")
            }
            let v = fields.dropFirst().map { Double($0) }
            guard v.allSatisfy({ $0 != nil }) else { throw Failure(description: "\(path):\(lineNumber): not a number") }
            if let last = readings.last, t <= last.t {
                throw Failure(description: "\(path):\(lineNumber): timestamp \(t) is not after the previous one (\(last.t))")
            }
            readings.append(IMUReading(t: t, gyro: (v[0]!, v[1]!, v[2]!), accel: v.count == 6 ? (v[3]!, v[4]!, v[5]!) : nil))
        }
        while true {
            let chunk = handle.readData(ofLength: 1 << 20)
            if chunk.isEmpty { break }
            pending.append(chunk)
            guard let lastNewline = pending.lastIndex(of: UInt8(ascii: "\n")) else { continue }
            let text = String(decoding: pending[pending.startIndex..<lastNewline], as: UTF8.self)
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) { try parse(line) }
            pending = Data(pending[(lastNewline + 1)...])
        }
        if !pending.isEmpty { try parse(Substring(String(decoding: pending, as: UTF8.self))) }
        guard readings.count >= 2 else { throw Failure(description: "\(path): fewer than two samples") }
        return readings
    }
}
