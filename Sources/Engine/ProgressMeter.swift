import Dispatch
import Foundation
import Synchronization

/// What a job counts its progress in, as the meter shows it.
public enum ProgressUnit: Sendable {
    /// "frame 120/300  40%  45.1 fps  ETA 0:04"
    case frames
    /// Media time done, in milliseconds: "12.3/60.0 s  20%  5.1x  ETA 0:09" (sound decoded).
    case milliseconds
    /// Bytes of a file read: "12.1/50.0 MB  24%  8.0 MB/s  ETA 0:04".
    case bytes
    /// IMU readings: "reading 12000/300000  4%  40000/s  ETA 0:07".
    case readings
}

/// One line of stderr, redrawn at most 10 times a second, with the total, the rate and an ETA
/// when the total is known. Updated from any thread, finished from the caller's.
public final class ProgressMeter: Sendable {
    private let enabled: Bool
    private let unit: ProgressUnit
    private let start = DispatchTime.now().uptimeNanoseconds
    private let drawn = Mutex<(last: UInt64, any: Bool)>((0, false))

    public init(enabled: Bool, unit: ProgressUnit = .frames) { self.enabled = enabled; self.unit = unit }

    public func update(done: Int64, total: Int64?) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard
            drawn.withLock({ d in
                guard now > d.last && now - d.last > 100_000_000 else { return false }
                d = (now, true); return true
            })
        else { return }
        let line = Self.line(done: done, total: total, elapsed: Double(now - start) / 1e9, unit: unit)
        FileHandle.standardError.write(("\r\u{1B}[K" + line).data(using: .utf8)!)
    }

    /// The line for `done` of `total` after `elapsed` seconds (pure, for the tests).
    public static func line(done: Int64, total: Int64?, elapsed: Double, unit: ProgressUnit) -> String {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let known = total.flatMap { $0 > 0 ? $0 : nil }
        var line: String
        switch unit {
        case .frames:
            line = "frame \(done)" + (known.map { "/\($0)" } ?? "")
        case .milliseconds:
            line = String(format: "%.1f", Double(done) / 1000) + (known.map { String(format: "/%.1f", Double($0) / 1000) } ?? "") + " s"
        case .bytes:
            line = String(format: "%.1f", Double(done) / 1e6) + (known.map { String(format: "/%.1f", Double($0) / 1e6) } ?? "") + " MB"
        case .readings:
            line = "reading \(done)" + (known.map { "/\($0)" } ?? "")
        }
        if let total = known { line += "  \(min(100, max(0, done) * 100 / total))%" }
        switch unit {
        case .frames: line += "  " + String(format: "%.1f fps", rate)
        case .milliseconds: line += "  " + String(format: "%.1fx", rate / 1000)
        case .bytes: line += "  " + String(format: "%.1f MB/s", rate / 1e6)
        case .readings: line += "  " + String(format: "%.0f/s", rate)
        }
        if let total = known {
            let left = rate > 0 ? Int((Double(max(0, total - done)) / rate).rounded()) : 0
            line += "  ETA \(left / 60):" + String(format: "%02d", left % 60)
        }
        return line
    }

    public func finish() { if drawn.withLock({ $0.any }) { FileHandle.standardError.write("\r\u{1B}[K".data(using: .utf8)!) } }
}
