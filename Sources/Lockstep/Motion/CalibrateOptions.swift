import Foundation
import Motion
import MotionIO

/// `lockstep calibrate` as the user gives it: files and options, nothing opened yet.
public struct CalibrateOptions: Sendable {
    public var video: String
    /// A trace store, a Gyroflow .gcsv, a .csv, a flight log or a camera file; nil: the movie's
    /// own gyro track (GPMF, CAMM).
    public var imu: String?
    /// Which trace of a store or log; nil: the only one, or the one the clip's motion picks.
    public var trace: Int64?
    /// A starting profile: its axis mapping and focal length are taken as given.
    public var calibration: String?
    /// Where the profile goes (its name is the profile's name).
    public var output: String
    public var axisMapping: String?
    public var focalLength: Double?
    public var searchMs: Double?
    public var force = false

    public init(video: String, imu: String?, output: String) {
        self.video = video; self.imu = imu; self.output = output
    }
}

extension CalibrateJob {
    /// Loads the starting profile, opens the trace (its warnings are told as they come),
    /// calibrates (a file with several traces or flights and no `trace`: the clip's motion picks
    /// one, `CalibrateFlights`) and writes the profile through `OutputPath` (a temporary beside
    /// it, renamed: no partial profile ever carries the output's name). Cancelled, it throws
    /// `JobError.cancelled` and writes nothing.
    public func run() throws -> CalibrationResult {
        let files = options, warn = events.notice ?? { _ in }
        let name = URL(fileURLWithPath: files.output).deletingPathExtension().lastPathComponent
        var base = try files.calibration.map { try Calibration.load(URL(fileURLWithPath: $0)) } ?? Calibration(name: name)
        base.name = name
        let inputs = MotionInputs(video: files.video, imu: files.imu, trace: files.trace)
        let source = try inputs.source()
        for w in source.warnings { warn(w) }
        func request(readings: [IMUReading], trace: MotionTrace?) -> CalibrateRequest {
            var r = CalibrateRequest(
                video: files.video, readings: readings, base: base, baseIsProfile: files.calibration != nil,
                axisMapping: files.axisMapping.map { .orientation($0) },
                traceOrientation: trace.map(\.info).flatMap(CalibrateRequest.statedOrientation), traceAxisMapping: trace?.axisMapping,
                focalLength: files.focalLength, searchMs: files.searchMs)
            r.force = files.force
            return r
        }
        let traces = try source.traces()
        let result: CalibrationResult
        if traces.count > 1 {
            var flights: [MotionTrace] = []
            for t in traces {
                var flight = t
                flight.readings = try source.readings(of: t.id)
                if flight.readings.count >= 2 { flights.append(flight) }
            }
            result = try CalibrateFlights.run(request(readings: [], trace: nil), flights: flights, cancellation: cancellation, progress: events.progress).result
        } else {
            var one = request(readings: try source.readings(), trace: try source.single())
            // The movie's records, from the decode that gave the trace when the movie is the trace.
            one.records = inputs.records
            result = try Self.calibrate(one, cancellation: cancellation, progress: events.progress)
        }
        if cancellation.isCancelled { throw JobError.cancelled }
        try OutputPath.write(try result.profile.encoded(), to: files.output)
        return result
    }
}
