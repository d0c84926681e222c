import Compositor
import Foundation
import Media
import Motion

/// What drives the snake: the IMU trace, its calibration, and the effect's constants.
public struct SnakeOptions: Sendable {
    public var readings: [IMUReading]
    public var calibration: Calibration
    public var parameters = SnakeParameters()
    /// Without an accelerometer the trail follows the rotation rate (rad/s) times this.
    public var gyroGain = 1.0
    /// Per-frame pairing as CSV.
    public var reportPath: String?
    public init(readings: [IMUReading], calibration: Calibration) { self.readings = readings; self.calibration = calibration }
}

public struct SnakeSummary: Sendable {
    public var framesWithMotion = 0
    public var framesWithoutMotion = 0
    public var warnings: [String] = []
    /// With a report: how well the gyro's predicted picture motion matches the video's own
    /// (normalised correlation); low means a wrong axis mapping or trace.
    public var agreement: Double?
    /// With a report: the time offset the picture's own motion points to (ms), to compare with
    /// the calibration's: a wrong offset pairs every frame with the wrong motion.
    public var measuredOffsetMs: Double?
}

/// The last stage of a composite (or the only one of `lockstep snake`): a motion stream at twice
/// the frame rate on the video's clock, paired to frames by VideoSnake's synchronizer, driving
/// the snake renderer.
final class SnakeStage {
    private let options: SnakeOptions
    private let renderer: SnakeRenderer
    private let interval: Int64
    private let frameRate: Rational
    private var samples: [MotionSample] = []
    private var next = 0
    private var sync: MotionSynchronizer<Int64, Int>
    private(set) var summary = SnakeSummary()
    private var report: [String] = []
    private var started = false
    private let focal: Double?
    private var correlator = PhaseCorrelator(size: 128)
    private var luma: [UInt8]
    private var agreement = (dot: 0.0, pp: 0.0, oo: 0.0)
    private var shifts: [VideoShift] = []
    private var lastTime: Int64?
    private var lastFrameTime: Int64 = 0
    private var firstFrameTime: Int64 = 0
    private var traceEnd: Int64 = 0

    init(options: SnakeOptions, canvas: Size, frameRate: Rational) {
        self.options = options
        self.frameRate = frameRate
        renderer = SnakeRenderer(width: canvas.width, height: canvas.height, parameters: options.parameters)
        interval = Rational.rescale(1, from: (frameRate * 2).inverse, to: Rational(1, 1_000_000_000))
        sync = MotionSynchronizer(tolerance: interval)
        focal = options.calibration.focalLength(forWidth: canvas.width)
        luma = options.reportPath != nil ? [UInt8](repeating: 0, count: canvas.width * canvas.height) : []
        if options.reportPath != nil { report.append("frame,frame_time_s,motion_time_s,distance_ms,paired,video_dx,video_dy,gyro_dx,gyro_dy") }
    }

    /// Makes the motion stream from the first frame's time on, over the whole trace.
    private func start(at t0: Int64) {
        firstFrameTime = t0
        let offset = Int64((options.calibration.timeOffsetMs * 1e6).rounded())
        let end = (options.readings.last?.t ?? 0) + offset
        traceEnd = end
        // Intervals up to the trace's end; how the video relates to it is known only at the end.
        let count = max(0, Int((end - (t0 - interval / 2)) / interval))
        let made = MotionStream.make(options.readings, calibration: options.calibration, start: t0 - interval / 2, interval: interval, count: count)
        samples = made.samples
        // Whether the trace covers the video is about frames, not about the grid's first half interval.
        summary.warnings = made.report.warnings.filter { !$0.hasPrefix("the trace starts") }
        if let first = options.readings.first, first.t + offset > t0 {
            summary.warnings.append(String(format: "the trace starts %.3f s after the video", Double(first.t + offset - t0) / 1e9))
        }
        started = true
    }

    /// Applies the effect to `frame` (the composited picture, in place); `time` is the frame's
    /// time on the video's clock (ns).
    func apply(to frame: Frame, index: Int64, time: Int64) {
        if !started { start(at: time) }
        lastFrameTime = time
        // Feed motion up to two intervals past the frame: the synchronizer decides at once.
        var matches: [MotionSynchronizer<Int64, Int>.Match] = []
        while next < samples.count && samples[next].time <= time + 2 * interval {
            matches += sync.appendMotion(next, time: samples[next].time)
            next += 1
        }
        matches += sync.appendFrame(index, time: time)
        if matches.isEmpty && next >= samples.count { matches = sync.finish() }
        let match = matches.last
        let sample = match?.motion.map { samples[$0] }
        if sample != nil { summary.framesWithMotion += 1 } else { summary.framesWithoutMotion += 1 }
        if options.reportPath != nil { record(frame, index: index, time: time, match: match, sample: sample) }
        let motion = sample.map { s -> SnakeMotion in
            let t = Double(s.time) / 1e9
            if let u = s.userAcceleration { return SnakeMotion(ax: u.x, ay: u.y, time: t) }
            // Yaw (about camera y) moves the picture across, pitch (about x) up and down.
            return SnakeMotion(ax: s.rotationRate.y * options.gyroGain, ay: s.rotationRate.x * options.gyroGain, time: t)
        }
        frame.withImage { image in renderer.render(image, motion: motion, into: image) }
    }

    private func record(_ frame: Frame, index: Int64, time: Int64, match: MotionSynchronizer<Int64, Int>.Match?, sample: MotionSample?) {
        frame.withImage { image in
            for y in 0..<image.height { luma.withUnsafeMutableBufferPointer { ($0.baseAddress! + y * image.width).update(from: image.y.row(y), count: image.width) } }
        }
        let (down, k) = PhaseCorrelator.downscale(luma, width: frame.width, height: frame.height, size: correlator.size)
        let shift = correlator.next(down).map { (dx: $0.dx * Double(k), dy: $0.dy * Double(k)) }
        var gyro: (dx: Double, dy: Double)?
        if let sample, let focal {
            let dt = frameRate.inverse.seconds
            gyro = (-focal * sample.rotationRate.y * dt, focal * sample.rotationRate.x * dt)
        }
        if let shift, let from = lastTime { shifts.append(VideoShift(from: from, to: time, dx: shift.dx, dy: shift.dy)) }
        lastTime = time
        if let shift, let gyro {
            agreement.dot += shift.dx * gyro.dx + shift.dy * gyro.dy
            agreement.pp += gyro.dx * gyro.dx + gyro.dy * gyro.dy
            agreement.oo += shift.dx * shift.dx + shift.dy * shift.dy
        }
        func f(_ v: Double?, _ digits: Int = 3) -> String { v.map { String(format: "%.\(digits)f", $0) } ?? "" }
        report.append([String(index), f(Double(time) / 1e9, 6), f(match?.motionTime.map { Double($0) / 1e9 }, 6),
                       f(match?.distance.map { Double($0) / 1e6 }), sample != nil ? "1" : "0",
                       f(shift?.dx), f(shift?.dy), f(gyro?.dx), f(gyro?.dy)].joined(separator: ","))
    }

    /// Writes the report; returns what the run saw.
    func finish() throws -> SnakeSummary {
        if let first = options.readings.first, summary.framesWithMotion == 0 {
            // Nothing paired at all: most likely the trace's timestamps are on another clock.
            let offset = Int64((options.calibration.timeOffsetMs * 1e6).rounded())
            summary.warnings = [String(format: "the trace does not overlap the video: on the video's clock it runs from %.3f s to %.3f s, the video from %.3f s to %.3f s. Is the trace on another clock? Give its offset with --offset-ms or a calibration profile",
                                       Double(first.t + offset) / 1e9, Double(traceEnd) / 1e9, Double(firstFrameTime) / 1e9, Double(lastFrameTime) / 1e9)]
        } else if lastFrameTime > traceEnd {
            summary.warnings.append(String(format: "the trace ends %.3f s before the video", Double(lastFrameTime - traceEnd) / 1e9))
        }
        if summary.framesWithoutMotion > 0 {
            summary.warnings.append("\(summary.framesWithoutMotion) frames had no motion within one motion interval; their trail only decays")
        }
        if let path = options.reportPath {
            if agreement.pp > 0 && agreement.oo > 0 {
                let a = agreement.dot / (agreement.pp * agreement.oo).squareRoot()
                summary.agreement = a
                if a < 0.5 {
                    summary.warnings.append(String(format: "the gyro does not explain the picture's motion (agreement %.2f): check the time offset, axis mapping and trace", a))
                }
            }
            if let focal, let e = try? OffsetEstimator.estimate(shifts: shifts, readings: options.readings, calibration: options.calibration,
                                                                 focalLength: focal, searchMs: 1000) {
                summary.measuredOffsetMs = e.offsetMs
                let off = e.offsetMs - options.calibration.timeOffsetMs
                if abs(off) > 5 {
                    summary.warnings.append(String(format: "motion is paired %.1f ms off: the calibration's time offset is %.1f ms, the picture's own motion says %.1f ms",
                                                   off, options.calibration.timeOffsetMs, e.offsetMs))
                }
            }
            try (report.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        return summary
    }
}
