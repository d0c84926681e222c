import ArgumentParser
import Foundation

import Lockstep

/// Hidden: times the store alone (scripts/bench-imu runs it).
struct IMUBenchStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-store", abstract: "Time inserting samples and reading a window back.", shouldDisplay: false)

    @Option(help: "Samples to insert.") var samples = 1_000_000
    @Option(help: "Sampling rate of the made-up trace, Hz.") var rate = 200.0
    @Option(help: "Window to read back, seconds.") var window = 10.0
    @Option(name: .shortAndLong, help: "The store to make (removed first).") var output: String

    func validate() throws {
        guard (1...100_000_000).contains(samples) else { throw ValidationError("--samples must be between 1 and 100000000; got \(samples).") }
        guard rate > 0 && rate <= 1_000_000 else { throw ValidationError("--rate must be above 0 and at most 1000000 Hz; got \(rate).") }
        guard window > 0 && window <= 1e6 else { throw ValidationError("--window must be above 0 and at most 1000000 seconds; got \(window).") }
    }

    func run() throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: output + suffix) }
        let step = Int64((1e9 / rate).rounded())
        let store = try TraceStore(path: output, mode: .record)   // as the recorder writes: WAL, a transaction per batch
        let id = try store.createTrace(TraceInfo(deviceName: "bench", sourceURI: "generated", rateHz: rate), hasAccel: true)
        func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
        let t0 = now()
        var batch: [IMUReading] = []
        batch.reserveCapacity(4096)
        for i in 0..<samples {
            let x = Double(i) * 1e-4
            batch.append(IMUReading(t: Int64(i) * step, gyro: SIMD3(sin(x), cos(x), x), accel: SIMD3(0.1, -9.8, 0.2)))
            if batch.count == 4096 { try store.append(batch, to: id); batch.removeAll(keepingCapacity: true) }
        }
        try store.append(batch, to: id)
        let insert = now() - t0
        let middle = Int64(samples / 2) * step
        let t1 = now()
        let read = try store.samples(of: id, from: middle, to: middle + Int64(window * 1e9))
        let readTime = now() - t1
        try store.close()
        print(String(format: "insert %d samples (batches of 4096, one transaction each): %.3f s (%.0f samples/s)", samples, insert, Double(samples) / insert))
        print(String(format: "read a %.0f s window (%d samples): %.2f ms", window, read.count, readTime * 1000))
    }
}
