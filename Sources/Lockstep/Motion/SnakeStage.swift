import Compositor
import Foundation
import Media
import Motion

/// Which of the trace's sensors moves the trail.
public enum SnakeDrive: String, CaseIterable, Sendable {
    /// The rotation rate: what the picture itself does (a camera that turns moves its picture;
    /// one that hovers still, however its accelerometer's bias reads, does not). The default.
    case gyro
    /// The accelerometer's user acceleration (gravity removed by the attitude filter): Apple's
    /// VideoSnake. A small bias of a still device streams the trail steadily one way.
    case accel
}

/// What drives the snake: the IMU trace, its calibration, and the effect's constants.
public struct SnakeOptions: Sendable {
    public var readings: [IMUReading]
    public var calibration: Calibration
    public var parameters = SnakeParameters()
    /// The sensor that moves the trail (`.accel` needs a trace with an accelerometer).
    public var drive = SnakeDrive.gyro
    /// With `drive` `.gyro`: the trail follows the rotation rate (rad/s) times this.
    public var gyroGain = 1.0

    /// Per-frame pairing as CSV.
    public var reportPath: String?
    /// Set when the trail follows the picture's recorded orientation (a movie stabilised in the
    /// camera, `SnakeFollowPicture`): the readings are then the records, stamped on the frames,
    /// and the profile's gyro offset is not used; the report's check says so (issue 41).
    public var followsRecords: FollowedRecords?
    /// What the movie's own telemetry records about its picture, when `load` already decoded
    /// it (the movie was the trace): `SnakeFollowPicture` takes them rather than decoding again.
    public var movieRecords: VideoMotionRecords?
    public init(readings: [IMUReading], calibration: Calibration) { self.readings = readings; self.calibration = calibration }

    /// The part of the IMU's clock (ns) a clip of `videoDuration` needs under `clock`, with
    /// `margin` seconds either side; nil (the whole trace) when the length is unknown.
    public static func traceWindow(videoDuration: Rational?, clock: ClockMapping, margin: Double) -> ClosedRange<Int64>? {
        guard let d = videoDuration?.seconds, d.isFinite, d >= 0, d < 1e7 else { return nil }
        // Every piece of the mapping that starts inside the clip bends the line: its start counts.
        let times = [-margin, d + margin] + clock.pieces.map(\.fromVideoS).filter { $0 > -margin && $0 < d + margin }
        let imu = times.map { clock.imuTime(fromVideo: $0) }
        guard let lo = imu.min(), let hi = imu.max(), lo.isFinite, hi.isFinite,
            abs(lo) < 9e9, abs(hi) < 9e9
        else { return nil }
        return Int64(((lo - margin) * 1e9).rounded(.down))...Int64(((hi + margin) * 1e9).rounded(.up))
    }
}

/// What the trail follows instead of the gyro, and the offset the gyro's profile had.
public struct FollowedRecords: Sendable, Equatable {
    /// The file's word that it was stabilised ("GPMF EISE \"Y\"").
    public var stabilisation: String
    /// The profile's offset of the gyro's clock (ms, its first piece's); nil: no profile given.
    public var gyroOffsetMs: Double?
    public init(stabilisation: String, gyroOffsetMs: Double?) { self.stabilisation = stabilisation; self.gyroOffsetMs = gyroOffsetMs }
}

public struct SnakeSummary: Sendable {
    public var framesWithMotion = 0
    public var framesWithoutMotion = 0
    public var warnings: [String] = []
    /// With a report: how well the gyro's predicted picture motion matches the video's own
    /// (normalised correlation); low means a wrong axis mapping or trace.
    public var agreement: Double?
    /// With a report: the time offset the picture's own motion points to (ms), to compare with
    /// the calibration's: a wrong offset pairs every frame with the wrong motion. When the trail
    /// follows the recorded orientation (`SnakeOptions.followsRecords`), the offset of the
    /// picture against those records, whose stamps put them at 0.
    public var measuredOffsetMs: Double?
    /// `measuredOffsetMs` is the picture's against its recorded orientation, not the gyro's.
    public var measuredAgainstRecords = false
    /// A segment render: the fewest frames before its first frame that the proofs found enough
    /// to rebuild the trail exactly (`SnakePreRoll`'s taint, or `SnakeBracket`); nil for a whole
    /// render.
    public var preRollFrames: Int64?
    /// A segment render: the frames actually decoded and rendered (not written) before its
    /// first frame: `preRollFrames`, or the bracket's window that `preRollFrames` was found in.
    public var preRollRendered: Int64?
}

/// The last stage of a composite (or the only one of `lockstep snake`): each frame is paired with
/// the IMU's motion over a window centred on the frame's own time (half a frame long at the
/// nominal rate, as VideoSnake's motion stream at twice the frame rate), so variable-rate video
/// pairs as exactly as constant-rate video; the motion drives the snake renderer.
///
/// Clocks: video time v is the frame's time minus the first frame's; IMU times go onto it (and
/// back, for the report's `imu_time_s`) only through the calibration's clock mapping (offset,
/// drift and pieces), never through a constant offset.
final class SnakeStage {
    private let options: SnakeOptions
    private let renderer: SnakeRenderer
    /// The motion window around each frame, ns.
    private let window: Int64
    private let frameRate: Rational
    private let clock: ClockMapping
    private let sampler: MotionSampler?
    private(set) var summary = SnakeSummary()
    private var report: [String] = []
    /// The video's first frame's time (ns); a segment render sets it before its first frame.
    var firstFrameTime: Int64?
    private var lastVideoTime: Int64 = 0
    private let focal: Double?
    /// With a report: the picture's own shift per frame.
    private let shiftMeter: PictureShiftMeter?
    private var agreement = (dot: 0.0, pp: 0.0, oo: 0.0)
    private var shifts: [VideoShift] = []
    private var lastTime: Int64?
    /// A segment's pre-roll frames up to its first, kept for the bracket (`SnakeBracketWindow`),
    /// and where the true first frame goes. `taintHolds`: the window is the taint's own
    /// pre-roll (exact anyway; the bracket may only prove a shorter D); otherwise the window is
    /// shorter than the taint's D and only the bracket can make frame A exact.
    private var bracketWindow: (frames: SnakeBracketWindow, truth: YUVBuffer, taintHolds: Bool)?
    /// The longest window the bracket keeps pictures for (64 canvases: 200 MB at 1080p).
    static let longestBracketWindow: Int64 = 64

    /// What `apply` asks of the job after a frame.
    enum Outcome: Equatable {
        case rendered
        /// A segment's first frame, and even the whole pre-roll window did not close the
        /// bracket: the job must start again with a longer window (`CompositeJob.run`).
        case needsLongerPreRoll
    }

    init(options: SnakeOptions, canvas: Size, frameRate: Rational) {
        self.options = options
        self.frameRate = frameRate
        renderer = SnakeRenderer(width: canvas.width, height: canvas.height, parameters: options.parameters)
        window = Rational.rescale(1, from: (frameRate * 2).inverse, to: Rational(1, 1_000_000_000))
        clock = options.calibration.clock
        sampler = MotionSampler(options.readings, calibration: options.calibration)
        if sampler == nil { summary.warnings.append("the trace has fewer than two readings") }
        focal = options.calibration.focalLength(forWidth: canvas.width)
        shiftMeter = options.reportPath != nil ? PictureShiftMeter() : nil
        if options.reportPath != nil {
            report.append("frame,frame_time_s,motion_time_s,distance_ms,paired,video_dx,video_dy,gyro_dx,gyro_dy,imu_time_s")
        }
    }

    /// The motion paired with the frame at video time v (ns): the mean rate over the window
    /// centred on v, nil where the trace does not cover that window or has a gap in it.
    func motion(atVideo v: Int64) -> MotionSample? {
        sampler?.sample(from: v - window / 2, to: v - window / 2 + window)
    }

    /// What drives the trail for a motion sample: the rotation rate times the gain (`.gyro`,
    /// the default), or the user acceleration in g (`.accel`, where the trace has it).
    func snakeMotion(_ sample: MotionSample?) -> SnakeMotion? {
        sample.map { s -> SnakeMotion in
            let t = Double(s.time) / 1e9
            if options.drive == .accel, let u = s.userAcceleration { return SnakeMotion(ax: u.x, ay: u.y, time: t) }
            // Yaw (about camera y) moves the picture across, pitch (about x) up and down.
            return SnakeMotion(ax: s.rotationRate.y * options.gyroGain, ay: s.rotationRate.x * options.gyroGain, time: t)
        }
    }

    /// Applies the effect to `frame` (the composited picture, in place); `time` is the frame's
    /// time on the video's clock (ns, its pts). A segment's pre-roll frame (`written` false)
    /// moves the trail but is not counted or reported: the output never shows it.
    func apply(to frame: Frame, index: Int64, time: Int64, written: Bool = true) -> Outcome {
        if firstFrameTime == nil {
            firstFrameTime = time
            if let start = sampler?.times.first, start > window / 2 {
                summary.warnings.append(String(format: "the trace starts %.3f s after the video", Double(start) / 1e9))
            }
        }
        let v = time - firstFrameTime!
        segmentPlan?.check(tick: index, videoTime: v, warnings: &summary.warnings)
        let sample = motion(atVideo: v)
        if written {
            lastVideoTime = v
            if sample != nil { summary.framesWithMotion += 1 } else { summary.framesWithoutMotion += 1 }
            if options.reportPath != nil { record(frame, index: index, time: v, sample: sample) }
        }
        let motion = snakeMotion(sample)
        return frame.withImage { image -> Outcome in
            guard let (window, truth, taintHolds) = bracketWindow, Int(index) >= window.first else {
                renderer.render(image, motion: motion, into: image)
                return .rendered
            }
            window.store(Int(index), picture: image, motion: motion, trailBefore: renderer.trail)
            renderer.render(image, motion: motion, into: image)  // the trail's motion; pixels from an unknown start
            guard Int(index) == window.last else { return .rendered }
            bracketWindow = nil
            if let d = window.shortestPreRoll(into: truth.image) {
                summary.preRollFrames = min(Int64(d), summary.preRollFrames ?? .max)
                renderer.restore(renderer.trail, previousOutput: truth.image)
                PlaneKernels.copy(truth.image, into: image)
            } else if !taintHolds {
                return .needsLongerPreRoll
            }
            return .rendered
        }
    }

    /// The replay a segment render started from (`startSegment`), to check its frame times
    /// against those the sync actually takes.
    private var segmentPlan: SnakeSegmentPlan?

    /// Prepares a segment render of output frames from `start` on: replays the trail's motion
    /// from frame 0 (the motion of each frame's own time, `videoTime(k)` on the video's clock,
    /// as the single pass pairs it: no pixels, no decoding), finds by the taint
    /// (`SnakePreRoll`) how many frames before `start` must be rendered so that frame `start`
    /// is the single pass's to the bit, and puts the trail's motion where the single pass has
    /// it before the first of them. Returns that first frame's tick.
    ///
    /// When the taint needs more than `window` frames (a trail that feeds itself for ever
    /// makes it go back to frame 0), only `window` frames are pre-rolled, and at frame `start`
    /// the bracket (`SnakeBracket`) finds among them the fewest that make it exact; if none
    /// do, `apply` answers `.needsLongerPreRoll` and the job starts again with a longer window.
    func startSegment(at start: Int64, videoTime: (Int64) -> Int64, window: Int64 = .max) -> Int64 {
        var trail = SnakeTrail()
        var before: [SnakeTrail] = [], shifts: [(dx: Double, dy: Double)] = [], times: [Int64] = []
        before.reserveCapacity(Int(start) + 1); shifts.reserveCapacity(Int(start) + 1); times.reserveCapacity(Int(start) + 1)
        for k in 0...start {
            let v = videoTime(k)
            before.append(trail)
            times.append(v)
            trail.advance(snakeMotion(motion(atVideo: v)), damping: options.parameters.damping)
            shifts.append(trail.shift(options.parameters, width: renderer.width, height: renderer.height))
        }
        let d = SnakePreRoll.frames(
            before: Int(start), width: renderer.width, height: renderer.height,
            parameters: options.parameters
        ) { shifts[$0] }
        let taintHolds = Int64(d) <= window || window >= start
        let rendered = taintHolds ? Int64(d) : window
        let first = start - rendered
        if taintHolds { summary.preRollFrames = Int64(d) }
        summary.preRollRendered = rendered
        if rendered > 0 && rendered <= Self.longestBracketWindow {
            let frames = SnakeBracketWindow(
                first: Int(first), last: Int(start), width: renderer.width, height: renderer.height,
                parameters: options.parameters)
            bracketWindow = (frames, YUVBuffer(width: renderer.width, height: renderer.height), taintHolds)
        }
        renderer.restore(before[Int(first)])
        segmentPlan = SnakeSegmentPlan(times: times)
        return first
    }

    private func record(_ frame: Frame, index: Int64, time: Int64, sample: MotionSample?) {
        let shift = shiftMeter.flatMap { meter in
            frame.withImage { image in meter.next(width: image.width, height: image.height) { UnsafePointer(image.y.row($0)) } }
        }
        var gyro: (dx: Double, dy: Double)?
        if let sample, let focal {
            // The picture moves over the time since the previous frame (variable with VFR).
            let dt = lastTime.map { Double(time - $0) / 1e9 } ?? frameRate.inverse.seconds
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
        // The IMU-clock time of the motion's centre: the clock mapping's inverse, in integer ns.
        let imuTime = sample.map { clock.imuNs(fromVideo: $0.time) }
        report.append(
            [
                String(index), f(Double(time) / 1e9, 6), f(sample.map { Double($0.time) / 1e9 }, 6),
                f(sample.map { Double(abs(time - $0.time)) / 1e6 }), sample != nil ? "1" : "0",
                f(shift?.dx), f(shift?.dy), f(gyro?.dx), f(gyro?.dy),
                imuTime.map(Self.seconds) ?? ""
            ].joined(separator: ","))
    }

    /// Nanoseconds as exact decimal seconds: IMU clocks count from boot or from 1970, where a
    /// Double would round away the nanoseconds.
    static func seconds(_ ns: Int64) -> String {
        let m = ns.magnitude
        return (ns < 0 ? "-" : "") + String(m / 1_000_000_000) + "." + String(format: "%09llu", m % 1_000_000_000)
    }

    /// Writes the report; returns what the run saw.
    func finish() throws -> SnakeSummary {
        let traceStart = sampler?.times.first ?? 0, traceEnd = sampler?.times.last ?? 0
        if sampler != nil, summary.framesWithMotion == 0 {
            // Nothing paired at all: most likely the trace's timestamps are on another clock.
            summary.warnings = [
                String(
                    format:
                        "the trace does not overlap the video: on the video's clock it runs from %.3f s to %.3f s, the video from %.3f s to %.3f s. Is the trace on another clock? Give its offset with --offset-ms or a calibration profile",
                    Double(traceStart) / 1e9, Double(traceEnd) / 1e9, 0.0, Double(lastVideoTime) / 1e9)
            ]
        } else if sampler != nil, lastVideoTime - traceEnd >= 1_000_000 {
            // Under a millisecond short is no shortfall (the HERO7's said "0.000 s before").
            summary.warnings.append(String(format: "the trace ends %.3f s before the video", Double(lastVideoTime - traceEnd) / 1e9))
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
            if let focal, let residual = residualOffsetMs(focal: focal) {
                // The offset the picture says, at the clip's middle, against the mapping's there.
                let middle = Double(lastVideoTime) / 2e9
                let stated = clock.offsetMs(atVideo: middle)
                summary.measuredOffsetMs = stated + residual
                if let r = options.followsRecords {
                    summary.measuredAgainstRecords = true
                    if let w = Self.recordsWarning(r, measuredMs: stated + residual) { summary.warnings.append(w) }
                } else if abs(residual) > 5 {
                    summary.warnings.append(
                        String(
                            format: "motion is paired %.1f ms off: the calibration's time offset is %.1f ms (at %.2f s, the clip's middle), the picture's own motion says %.1f ms",
                            residual, stated, middle, stated + residual))
                }
            }
            // Through the output path every command writes by (its error names the report).
            try OutputPath.write(Data((report.joined(separator: "\n") + "\n").utf8), to: path)
        }
        return summary
    }

    /// The README's promise (a warning when the picture's offset is more than 5 ms from the
    /// profile's) where the trail follows the recorded orientation: the two numbers are then of
    /// different things. The profile's is the gyro's clock against the video's (calibrate
    /// measured it against CORI, the body's orientation the camera records per frame: on the
    /// shared MAX walk -13.07 ms, 0.03 ms from gopro-records-dump's); the picture's is the
    /// stabilised picture against IORI * CORI, which the file stamps on the frames (so 0 by
    /// construction), measured from a picture the stabiliser holds nearly still (calibrate's
    /// windows on that walk scatter from -15 to 0 ms). The gyro's offset is the one to trust.
    static func recordsWarning(_ r: FollowedRecords, measuredMs: Double) -> String? {
        if let g = r.gyroOffsetMs, abs(measuredMs - g) > 5 {
            return String(
                format:
                    "the picture's motion says %.1f ms, the calibration's offset is %.1f ms: trust the calibration's. The camera stabilised this picture (%@), so the trail follows the orientation the file records for each frame (IORI * CORI, stamped on the frames), not the gyro; the %.1f ms is the stabilised picture against those records, loosely measured, while the calibration's offset is the gyro's clock, which calibrate matched against the recorded body orientation (CORI)",
                measuredMs, g, r.stabilisation, measuredMs)
        }
        if abs(measuredMs) > 5 {
            return String(
                format:
                    "the picture's motion says it runs %.1f ms off the orientation the file records for its frames (IORI * CORI, stamped on the frames; the camera stabilised it, %@): a stabilised picture measures this loosely; the trail follows the records as stamped",
                measuredMs, r.stabilisation)
        }
        return nil
    }

    /// How far (ms) the picture's own motion says the trace still is from the video once the
    /// calibration's clock mapping has put it on the video's clock: 0 when the mapping is right.
    private func residualOffsetMs(focal: Double) -> Double? {
        let mapped = options.readings.map { r -> IMUReading in
            var r = r; r.t = clock.videoNs(fromIMU: r.t); return r
        }
        return
            (try? OffsetEstimator.estimate(
                shifts: shifts, readings: mapped, calibration: options.calibration,
                focalLength: focal, searchMs: 1000))?.offsetMs
    }
}

/// The frame times a segment's replay assumed, tick by tick: the sync must take the same
/// frames, or the replayed trail is not the single pass's (said once, as a warning).
struct SnakeSegmentPlan {
    let times: [Int64]
    private var warned = false
    init(times: [Int64]) { self.times = times }

    mutating func check(tick: Int64, videoTime v: Int64, warnings: inout [String]) {
        guard !warned, tick >= 0, tick < Int64(times.count), times[Int(tick)] != v else { return }
        warned = true
        warnings.append(
            "the snake's segment replay assumed frame time \(SnakeStage.seconds(times[Int(tick)])) s at output frame \(tick), "
                + "the sync took \(SnakeStage.seconds(v)) s: the trail may differ from the single pass's")
    }
}
