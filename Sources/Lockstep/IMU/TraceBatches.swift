import Motion
import MotionIO

/// A trace read front to back in batches, whatever holds it: a `.gcsv`/`.csv` file, or the
/// telemetry track of a camera file (read whole when opened: a GoPro's hour is about 1.4 M
/// samples), or a decoded log. `imu import` reads through it (`TraceSource` hands out the
/// traces in memory as they are).
protocol TraceBatches: AnyObject {
    var info: TraceInfo { get }
    var hasAccel: Bool { get }
    /// The next samples in time order; empty at the end.
    func nextBatch() throws -> [IMUReading]
}

extension TraceFileReader: TraceBatches {
    func nextBatch() throws -> [IMUReading] { try next() }
}

/// A trace already in memory (a camera file's embedded gyro and accelerometer, GoPro GPMF or
/// CAMM; one decoded log of a blackbox file) as batches, for `imu import`'s one transaction.
final class InMemoryTraceBatches: TraceBatches {
    let info: TraceInfo
    let hasAccel: Bool
    private let readings: [IMUReading]
    private var position = 0
    init(info: TraceInfo, hasAccel: Bool, readings: [IMUReading]) { self.info = info; self.hasAccel = hasAccel; self.readings = readings }
    convenience init(_ trace: EmbeddedTrace) { self.init(info: trace.info, hasAccel: trace.hasAccel, readings: trace.readings) }
    convenience init(_ trace: DecodedTrace) { self.init(info: trace.info, hasAccel: trace.hasAccel, readings: trace.readings) }
    func nextBatch() throws -> [IMUReading] {
        let end = min(readings.count, position + 4096)
        defer { position = end }
        return Array(readings[position..<end])
    }
}
