import Motion
import MotionIO

/// A trace read front to back in batches, whatever holds it: a `.gcsv`/`.csv` file, a log of a
/// blackbox file (decoded as it is read), or the telemetry track of a camera file (read whole
/// when opened: a GoPro's hour is about 1.4 M samples), or a decoded DataFlash log. `imu import` reads through it (`TraceSource` hands out the
/// traces in memory as they are).
protocol TraceBatches: AnyObject {
    /// The trace as the store records it (no readings).
    var trace: MotionTrace { get }
    /// The next samples in time order; empty at the end.
    func nextBatch() throws -> [IMUReading]
    /// How many samples there are, where known before reading them (for progress).
    var expectedReadings: Int? { get }
}

extension TraceBatches {
    var expectedReadings: Int? { nil }
}

extension TraceFileReader: TraceBatches {
    func nextBatch() throws -> [IMUReading] { try next() }
}

/// A trace already in memory (a camera file's embedded gyro and accelerometer, GoPro GPMF or
/// CAMM; an IMU of a DataFlash log, a blackbox_decode CSV) as batches, for `imu import`'s one
/// transaction.
final class InMemoryTraceBatches: TraceBatches {
    let trace: MotionTrace
    private let readings: [IMUReading]
    private var position = 0
    init(_ trace: MotionTrace) { self.trace = trace.described; readings = trace.readings }
    var expectedReadings: Int? { readings.count }
    func nextBatch() throws -> [IMUReading] {
        let end = min(readings.count, position + 4096)
        defer { position = end }
        return Array(readings[position..<end])
    }
}

/// One log of a blackbox file, decoded again as the import asks for its batches (the file's
/// first pass counted it), so no log is ever held whole.
final class BlackboxTraceBatches: TraceBatches {
    let trace: MotionTrace
    private let batches: BlackboxFileReader.Batches
    init(_ file: BlackboxFileReader, _ trace: MotionTrace) {
        self.trace = trace
        batches = file.batches(of: trace.id)
    }
    func nextBatch() throws -> [IMUReading] { batches.next() }
}
