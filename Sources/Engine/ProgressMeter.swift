import Dispatch
import Foundation
import Synchronization

/// "frame 120/300  40%  45.1 fps  ETA 0:04" on one line of stderr, redrawn at most 10 times a second.
/// Updated from the compositor thread, finished from the caller's.
public final class ProgressMeter: Sendable {
    private let enabled: Bool
    private let start = DispatchTime.now().uptimeNanoseconds
    private let drawn = Mutex<(last: UInt64, any: Bool)>((0, false))

    public init(enabled: Bool) { self.enabled = enabled }

    public func update(done: Int64, total: Int64?) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard
            drawn.withLock({ d in
                guard now > d.last && now - d.last > 100_000_000 else { return false }
                d = (now, true); return true
            })
        else { return }
        let elapsed = Double(now - start) / 1e9
        let fps = elapsed > 0 ? Double(done) / elapsed : 0
        var line = "frame \(done)"
        if let total, total > 0 {
            let left = fps > 0 ? Int((Double(max(0, total - done)) / fps).rounded()) : 0
            line +=
                "/\(total)  \(min(100, done * 100 / total))%  " + String(format: "%.1f fps", fps)
                + "  ETA \(left / 60):" + String(format: "%02d", left % 60)
        } else {
            line += "  " + String(format: "%.1f fps", fps)
        }
        FileHandle.standardError.write(("\r\u{1B}[K" + line).data(using: .utf8)!)
    }

    public func finish() { if drawn.withLock({ $0.any }) { FileHandle.standardError.write("\r\u{1B}[K".data(using: .utf8)!) } }
}
