import Foundation
import Media
import Motion

/// What the snake's trail follows.
public enum SnakeFollow: String, CaseIterable, Sendable {
    /// The picture's motion when the movie says the camera stabilised it, else the gyro.
    case auto
    /// The gyro (the body), as given.
    case gyro
    /// What the picture did: its recorded orientation (IORI * CORI) where the file has it,
    /// else its own motion measured from the frames.
    case picture
}

/// On a movie stabilised in the camera the picture does not follow the body, so a trail driven
/// by the gyro moves with a camera the viewer never sees. The snake then follows what the
/// picture did: with the file's image orientation (GoPro IORI * CORI), the picture's own turn
/// per frame; without it (a HERO7), the turn the frames themselves show (their block motion,
/// as `calibrate` measures it). Either becomes a trace on the video's clock in camera axes
/// (axis mapping identity, offset 0, no bias), with no accelerometer: the trail follows the
/// rotation rate times `--gyro-gain`.
public enum SnakeFollowPicture {
    /// The options to render with, and a note saying what the trail follows (nil: the gyro, as given).
    public static func apply(
        _ options: SnakeOptions, movie: String, follow: SnakeFollow,
        records: VideoMotionRecords? = nil
    ) throws -> (options: SnakeOptions, note: String?) {
        guard follow != .gyro else { return (options, nil) }
        let r = records ?? options.movieRecords ?? MotionInputs(video: movie, imu: nil, trace: nil).records
        guard follow == .picture || r.stabilised else { return (options, nil) }
        var o = options
        var profile = Calibration(name: options.calibration.name)
        profile.focalLengthPx = options.calibration.focalLengthPx
        profile.horizontalFOVDeg = options.calibration.horizontalFOVDeg
        let why = r.stabilised ? "the camera stabilised this picture (\(r.stabilisation!.source))" : "--follow picture"
        if r.hasImageOrientation {
            o.readings = OrientationRecords.readings(OrientationRecords.picture(camera: r.cameraOrientation, image: r.imageOrientation))
            if r.stabilised {
                // The built-in profile (no --calibration) states no offset worth comparing.
                let c = options.calibration
                let given = !(c.name == "default" && c.timeOffsetMs == 0 && c.clockPieces == nil)
                o.followsRecords = FollowedRecords(stabilisation: r.stabilisation!.source, gyroOffsetMs: given ? c.clock.pieces[0].offsetMs : nil)
            }
            o.calibration = profile
            return (o, "\(why): the trail follows the picture's recorded orientation (IORI * CORI), not the gyro")
        }
        let motion = try FrameMotionExtractor.extract(path: movie)
        let f = options.calibration.focalLength(forWidth: motion.displaySize.width) ?? Double(motion.displaySize.width) / 2
        o.readings = readings(motion.shifts, focalPx: f)
        o.calibration = profile
        guard o.readings.count >= 2 else { throw MotionError.tooFewFrames(movie: movie) }
        return (o, "\(why)\(r.stabilised ? " and the file records no image orientation" : ""): the trail follows the picture's own motion, measured from its frames, not the gyro")
    }

    /// The picture's turn per frame interval (pan and tilt from its shift over `focalPx`, the
    /// roll from its blocks) as gyro readings in camera axes.
    static func readings(_ shifts: [VideoShift], focalPx f: Double) -> [IMUReading] {
        var out: [IMUReading] = []
        let edge: Int64 = 1000
        for s in shifts where s.to - s.from > 4 * edge {
            let dt = Double(s.to - s.from) / 1e9
            let rate = SIMD3(s.dy / f, -s.dx / f, s.roll ?? 0) / dt
            out.append(IMUReading(t: s.from + edge, gyro: rate))
            out.append(IMUReading(t: s.to - edge, gyro: rate))
        }
        return out
    }
}
