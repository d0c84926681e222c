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
        let reader = try MovieReader(path: path, audio: false)
        let size = reader.video.displaySize
        guard let f = focalLength ?? base.focalLength(forWidth: size.width) else {
            throw CalibrationError("\(path): the focal length is unknown: give --focal-length (pixels) or a profile with focalLengthPx or horizontalFOVDeg")
        }
        var correlator = PhaseCorrelator(size: size.height >= 256 && size.width >= 256 ? 256 : 128)
        var shifts: [VideoShift] = []
        var last: Int64?
        let frame = Frame()
        var luma = [UInt8](repeating: 0, count: size.width * size.height)
        var frames = 0
        while try reader.next(into: frame, audioSink: { _ in }) == .video {
            let image = frame.image
            for y in 0..<image.height { luma.withUnsafeMutableBufferPointer { (($0.baseAddress! + y * image.width)).update(from: image.y.row(y), count: image.width) } }
            let (samples, k) = PhaseCorrelator.downscale(luma, width: image.width, height: image.height, size: correlator.size)
            let pts = frame.source!.pts
            let t = Rational.rescale(pts.value, from: pts.timeBase, to: Rational(1, 1_000_000_000))
            if let s = correlator.next(samples), let from = last {
                shifts.append(VideoShift(from: from, to: t, dx: s.dx * Double(k), dy: s.dy * Double(k)))
            }
            last = t
            frames += 1
        }
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
