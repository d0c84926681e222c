import Foundation
import Media
import Motion

/// What `snake` and `composite --snake` are given: files and options, nothing opened yet.
public struct SnakeFiles: Sendable {
    /// The movie whose clock the snake follows (the first input): only the part of the trace its
    /// length needs is read.
    public var video: String
    /// The trace (a store, a .gcsv, a .csv, a flight log, a camera file); nil: the movie's own
    /// telemetry (GPMF or CAMM).
    public var imu: String?
    /// Which trace of a store or log.
    public var trace: Int64?
    /// A profile; nil: the default one, with a camera file's stated axes.
    public var calibration: String?
    /// Overrides the profile's time offset.
    public var offsetMs: Double?
    public var drive = SnakeDrive.gyro
    public var gyroGain = 1.0
    public var parameters = SnakeParameters()
    public var reportPath: String?

    public init(video: String, imu: String?) { self.video = video; self.imu = imu }
}

/// `--drive accel` with a trace that has no accelerometer: an option that does not fit its file
/// (the CLI shows it as a usage error).
public struct SnakeDriveError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

extension SnakeOptions {
    /// Gyros top out near 35 rad/s (2000 degrees/s); 1e308 rad/s crashed the renderer.
    public static let maximumRate = 1000.0

    /// Seconds of trace kept on either side of the clip: the motion window is half a frame,
    /// the accelerometer's attitude filter settles in about a second.
    public static let traceMargin = 5.0

    /// Opens the trace and the profile, reads the part of the trace the clip needs and checks it.
    public static func load(_ files: SnakeFiles) throws -> SnakeOptions {
        let imu = files.imu ?? files.video
        let inputs = MotionInputs(video: files.video, imu: files.imu, trace: files.trace)
        let source = try inputs.source()
        let stored = try source.single()
        var profile = try files.calibration.map { try Calibration.load(URL(fileURLWithPath: $0)) } ?? Calibration(name: "default")
        // No profile: a camera file's telemetry states its own axes (and is on the video's clock).
        if files.calibration == nil, let m = stored.axisMapping { profile.axisMapping = m }
        if let offsetMs = files.offsetMs { profile.timeOffsetMs = offsetMs }
        if files.drive == .accel && !stored.hasAccel {
            throw SnakeDriveError(description: "--drive accel: \(imu) has no accelerometer readings; use --drive gyro.")
        }
        let movie = try? MovieReader(path: files.video, audio: false)
        let window = traceWindow(
            videoDuration: movie.flatMap { $0.video.duration ?? $0.containerDuration },
            clock: profile.clock, margin: traceMargin)
        var readings = try source.readings(within: window)
        // Nothing near the clip (a trace on another clock): its first and last readings tell the
        // snake where it is, for the warning that says so.
        if readings.count < 2, window != nil, let ends = try source.ends() { readings = [ends.first, ends.last] }
        // An empty trace, a header, one row: no motion to follow (it rendered a still trail, exit 0).
        guard readings.count >= 2 else {
            throw JobError("\(imu): the trace has \(readings.isEmpty ? "no readings" : "one reading"); the snake follows the motion between readings.")
        }
        // The gyro drive needs no attitude filter: the accelerometer's readings are left out.
        if files.drive == .gyro { readings = readings.map { IMUReading(t: $0.t, gyro: $0.gyro) } }
        if let bad = readings.first(where: { r in !((r.gyro * r.gyro).sum() <= maximumRate * maximumRate) }) {
            throw JobError("\(imu): a gyro reading at \(String(format: "%.3f", Double(bad.t) / 1e9)) s is beyond 1000 rad/s; not a trace of a camera's motion.")
        }
        var o = SnakeOptions(readings: readings, calibration: profile)
        o.drive = files.drive
        o.gyroGain = files.gyroGain
        o.parameters = files.parameters
        o.reportPath = files.reportPath
        o.movieRecords = inputs.recordsRead
        return o
    }
}
