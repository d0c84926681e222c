import Dispatch
import Foundation

/// "frame 120/300  40%  45.1 fps  ETA 0:04" on one line of stderr, redrawn at most 10 times a second.
final class ProgressMeter {
    private let enabled: Bool
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastDraw: UInt64 = 0
    private var drew = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(done: Int64, total: Int64?) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastDraw > 100_000_000 else { return }
        lastDraw = now
        let elapsed = Double(now - start) / 1e9
        let fps = elapsed > 0 ? Double(done) / elapsed : 0
        var line = "frame \(done)"
        if let total, total > 0 {
            let left = fps > 0 ? Int((Double(max(0, total - done)) / fps).rounded()) : 0
            line += "/\(total)  \(min(100, done * 100 / total))%  " + String(format: "%.1f fps", fps)
                + "  ETA \(left / 60):" + String(format: "%02d", left % 60)
        } else {
            line += "  " + String(format: "%.1f fps", fps)
        }
        FileHandle.standardError.write(("\r\u{1B}[K" + line).data(using: .utf8)!)
        drew = true
    }

    func finish() { if drew { FileHandle.standardError.write("\r\u{1B}[K".data(using: .utf8)!) } }
}

/// Runs `body` with SIGINT and SIGTERM turned into a call to `cancel` (on another thread), so
/// the job can remove its temporary file and say so, instead of dying half-way.
func withCancellation<T>(_ cancel: @escaping () -> Void, _ body: () throws -> T) rethrows -> T {
    let queue = DispatchQueue(label: "lockstep.signals")
    let sources = [SIGINT, SIGTERM].map { sig -> DispatchSourceSignal in
        signal(sig, SIG_IGN)
        let s = DispatchSource.makeSignalSource(signal: sig, queue: queue)
        s.setEventHandler(handler: cancel)
        s.resume()
        return s
    }
    defer {
        for s in sources { s.cancel() }
        signal(SIGINT, SIG_DFL); signal(SIGTERM, SIG_DFL)
    }
    return try body()
}
