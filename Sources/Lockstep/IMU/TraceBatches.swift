import Motion
import MotionIO

/// A trace read front to back in batches, whatever holds it: a `.gcsv`/`.csv` file, or the
/// telemetry track of a camera file (read whole when opened: a GoPro's hour is about 1.4 M
/// samples). `imu import` and the file cases of `TraceSource` read through it.
protocol TraceBatches: AnyObject {
    var info: TraceInfo { get }
    var hasAccel: Bool { get }
    /// The next samples in time order; empty at the end.
    func nextBatch() throws -> [IMUReading]
}

extension TraceFileReader: TraceBatches {
    func nextBatch() throws -> [IMUReading] { try next() }
}

/// A camera file's embedded gyro and accelerometer (GoPro GPMF, CAMM) as batches.
final class CameraTraceBatches: TraceBatches {
    let trace: EmbeddedTrace
    private var position = 0
    init(_ trace: EmbeddedTrace) { self.trace = trace }
    var info: TraceInfo { trace.info }
    var hasAccel: Bool { trace.hasAccel }
    func nextBatch() throws -> [IMUReading] {
        let end = min(trace.readings.count, position + 4096)
        defer { position = end }
        return Array(trace.readings[position..<end])
    }
}

/// One decoded trace (a blackbox log) as batches.
final class DecodedTraceBatches: TraceBatches {
    let trace: DecodedTrace
    private var position = 0
    init(_ trace: DecodedTrace) { self.trace = trace }
    var info: TraceInfo { trace.info }
    var hasAccel: Bool { trace.hasAccel }
    func nextBatch() throws -> [IMUReading] {
        let end = min(trace.readings.count, position + 4096)
        defer { position = end }
        return Array(trace.readings[position..<end])
    }
}
