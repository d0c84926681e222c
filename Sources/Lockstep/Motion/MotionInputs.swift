import Foundation
import Media
import Motion
import MotionIO

/// What a motion command (`calibrate`, `snake`, `stabilise`) reads besides the picture, each file
/// read at most once per run: the trace it follows (`--imu`, else the movie's own gyro track)
/// and what the movie's own telemetry records about its picture (in-camera stabilisation,
/// per-frame orientations). Both come from one decode of the movie's track when the movie is
/// the trace: stabilise decoded a GoPro's track four times (the records, calibrate's trace,
/// calibrate's records, the trace again), calibrate and snake twice.
final class MotionInputs {
    let video: String
    let imu: String?
    let trace: Int64?
    private var movie: Result<MotionTrace, Error>?
    private var opened: TraceSource?
    /// Decodes a movie's telemetry (a test counts its calls).
    private let readMovie: (String) throws -> MotionTrace

    init(video: String, imu: String?, trace: Int64?, readMovie: @escaping (String) throws -> MotionTrace = EmbeddedTelemetry.read(path:)) {
        self.video = video; self.imu = imu; self.trace = trace; self.readMovie = readMovie
    }

    /// The movie's own telemetry, decoded on first use (its error, as `EmbeddedTelemetry.read`
    /// throws it, on every use).
    private func movieTrace() throws -> MotionTrace {
        if movie == nil { movie = Result { try readMovie(video) } }
        return try movie!.get()
    }

    /// What the movie's telemetry records about its picture; empty when the video is not a
    /// movie, has no telemetry track or it cannot be read (it is then simply not known).
    var records: VideoMotionRecords {
        guard MotionFiles.kind(path: video) == .movie, let t = try? movieTrace() else { return VideoMotionRecords() }
        return t.records
    }

    /// The records when the movie's track was already decoded for the trace, else nil (nothing is read).
    var recordsRead: VideoMotionRecords? {
        guard case .success(let t)? = movie else { return nil }
        return t.records
    }

    /// The trace followed: `imu` when given, else the movie's own gyro track (a GoPro's GPMF, a
    /// phone's CAMM); opened on first use. `calibrate`, `snake` and `stabilise` open it this one
    /// way (calibrate asked for --imu even for a movie that carries its gyro, which snake did not).
    func source() throws -> TraceSource {
        if let opened { return opened }
        let path = imu ?? video
        // The movie itself (no --imu, or --imu naming it): its one decode serves the records too.
        let ownMovie = path == video
        do {
            let s = try TraceSource.open(path: path, trace: trace, readMovie: { try ownMovie ? self.movieTrace() : self.readMovie($0) })
            opened = s
            return s
        } catch let e as MediaError where imu == nil && e.message.hasPrefix("has no GPMF or CAMM") {
            throw JobError(
                "\(video): no --imu TRACE given, and the movie has no gyro track of its own (GPMF or CAMM) to follow; give --imu TRACE (a trace store, a Gyroflow .gcsv, a .csv or a flight log)."
            )
        }
    }
}
