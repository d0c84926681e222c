import Foundation
import Motion
import TraceStore

/// `lockstep imu bench-store` (hidden; scripts/bench/imu): times the store alone, inserting a
/// made-up trace as the recorder writes (WAL, a transaction per batch of 4096) and reading a
/// window from its middle back. Returns the two lines to print.
public final class IMUStoreBench: Job {
    public struct Options: Sendable {
        /// The store to make (removed first).
        public var output: String
        public var samples: Int, rate: Double, window: Double
        public init(output: String, samples: Int, rate: Double, window: Double) {
            self.output = output; self.samples = samples; self.rate = rate; self.window = window
        }
    }
    public let options: Options
    private let cancellation = CancellationToken()

    /// A bench prints its lines at the end: `events` is not used.
    public init(options: Options, events: JobEvents = JobEvents()) { self.options = options }

    /// Stops the inserts between batches (`JobError.cancelled`); the bench's store is removed.
    public func cancel() { cancellation.cancel() }

    public func run() throws -> [String] {
        let output = options.output
        func remove() { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: output + suffix) } }
        remove()
        do {
            return try measure()
        } catch {
            remove()
            throw error
        }
    }

    private func measure() throws -> [String] {
        let (output, samples, rate, window) = (options.output, options.samples, options.rate, options.window)
        if cancellation.isCancelled { throw JobError.cancelled }
        let step = Int64((1e9 / rate).rounded())
        let store = try TraceStore(path: output, mode: .record)
        let id = try store.createTrace(TraceInfo(deviceName: "bench", sourceURI: "generated", rateHz: rate), hasAccel: true)
        func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
        let t0 = now()
        var batch: [IMUReading] = []
        batch.reserveCapacity(4096)
        for i in 0..<samples {
            let x = Double(i) * 1e-4
            batch.append(IMUReading(t: Int64(i) * step, gyro: SIMD3(sin(x), cos(x), x), accel: SIMD3(0.1, -9.8, 0.2)))
            if batch.count == 4096 {
                if cancellation.isCancelled { throw JobError.cancelled }
                try store.append(batch, to: id)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try store.append(batch, to: id)
        let insert = now() - t0
        let middle = Int64(samples / 2) * step
        let t1 = now()
        let read = try store.samples(of: id, from: middle, to: middle + Int64(window * 1e9))
        let readTime = now() - t1
        try store.close()
        return [
            String(format: "insert %d samples (batches of 4096, one transaction each): %.3f s (%.0f samples/s)", samples, insert, Double(samples) / insert),
            String(format: "read a %.0f s window (%d samples): %.2f ms", window, read.count, readTime * 1000)
        ]
    }
}
