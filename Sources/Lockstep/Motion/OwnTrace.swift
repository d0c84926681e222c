import Foundation
import Motion

extension TraceSource {
    /// The trace a motion command follows: `imu` when given, else the movie's own gyro track (a
    /// GoPro's GPMF, a phone's CAMM). `calibrate` and `snake` open it this one way: calibrate
    /// asked for --imu even for a movie that carries its gyro, which snake did not.
    static func open(imu: String?, video: String, trace: Int64?) throws -> TraceSource {
        do {
            return try TraceSource.open(path: imu ?? video, trace: trace)
        } catch let e as MediaError where imu == nil && e.message.hasPrefix("has no GPMF or CAMM") {
            throw JobError(
                "\(video): no --imu TRACE given, and the movie has no gyro track of its own (GPMF or CAMM) to follow; give --imu TRACE (a trace store, a Gyroflow .gcsv, a .csv or a flight log)."
            )
        }
    }
}
