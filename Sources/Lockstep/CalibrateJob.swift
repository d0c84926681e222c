import Compositor
import Foundation
import Media
import Motion

public struct CalibrationResult: Sendable {
    public var profile: Calibration
    public var estimate: OffsetEstimate
    /// Bias measured from the stillest second, if the trace has one.
    public var measuredBias: [Double]?
    public var frames: Int
}

/// `lockstep calibrate`: the video's frame-to-frame motion (phase correlation on downscaled luma)
/// against the gyro, to find the IMU-to-video time offset; the gyro bias from the stillest second.
public enum CalibrateJob {
    public static func run(video path: String, readings: [IMUReading], base: Calibration, focalLength: Double? = nil,
                           searchMs: Double = 2000) throws -> CalibrationResult {
        let motion = try FrameMotionExtractor.extract(path: path)
        let size = motion.displaySize
        guard let f = focalLength ?? base.focalLength(forWidth: size.width) else {
            throw CalibrationError("\(path): the focal length is unknown: give --focal-length (pixels) or a profile with focalLengthPx or horizontalFOVDeg")
        }
        let shifts = motion.shifts
        let frames = motion.frameTimes.count
        var profile = base
        let bias = OffsetEstimator.bias(readings)
        if let bias { profile.gyroBias = bias }
        let estimate: OffsetEstimate
        do {
            estimate = try OffsetEstimator.estimate(shifts: shifts, readings: readings, calibration: profile, focalLength: f, searchMs: searchMs)
        } catch let e as CalibrationError {
            throw CalibrationError("\(path): \(e.description)")
        }
        profile.timeOffsetMs = (estimate.offsetMs * 100).rounded() / 100
        if profile.focalLengthPx == nil { profile.focalLengthPx = f }
        return CalibrationResult(profile: profile, estimate: estimate, measuredBias: bias, frames: frames)
    }
}
