import Engine
import Foundation

/// Why a movie's motion cannot be had for the snake or the motion commands: no trace to follow,
/// or one that is not a camera's. Each case renders the one line the user reads, naming the file.
public enum MotionError: JobFailure, Equatable {
    case noGyroTrack(video: String)
    case tooFewFrames(movie: String)
    case tooFewReadings(trace: String, readings: Int)
    /// A reading at `seconds` turns faster than 1000 rad/s.
    case implausibleRate(trace: String, seconds: Double)

    public var description: String {
        switch self {
        case .noGyroTrack(let video):
            "\(video): no --imu TRACE given, and the movie has no gyro track of its own (GPMF or CAMM) to follow; give --imu TRACE (a trace store, a Gyroflow .gcsv, a .csv or a flight log)."
        case .tooFewFrames(let movie): "\(movie): too few frames to follow the picture's motion"
        case .tooFewReadings(let trace, let readings):
            "\(trace): the trace has \(readings == 0 ? "no readings" : "one reading"); the snake follows the motion between readings."
        case .implausibleRate(let trace, let seconds):
            "\(trace): a gyro reading at \(String(format: "%.3f", seconds)) s is beyond 1000 rad/s; not a trace of a camera's motion."
        }
    }
}
