import Foundation
import Media
import Motion

/// What `lockstep calibrate` was asked: the movie, the trace, and whatever the user fixed.
public struct CalibrateRequest: Sendable {
    public var video: String
    public var readings: [IMUReading]
    /// The starting profile: `--calibration`'s, or a blank one.
    public var base: Calibration
    /// True when `base` came from `--calibration` (its axis mapping and focal length then count as given).
    public var baseIsProfile: Bool
    /// `--axis-mapping`.
    public var axisMapping: AxisMapping?
    /// The trace's own orientation (a gcsv `orientation` line), Gyroflow's meaning.
    public var traceOrientation: String?
    /// The mapping a camera file's telemetry states, in Lockstep's axes (GoPro's ORIN or its model's order).
    public var traceAxisMapping: AxisMapping?
    /// `--focal-length`.
    public var focalLength: Double?
    /// `--search-ms`: nil searches every offset at which the trace covers half the clip.
    public var searchMs: Double?

    public init(video: String, readings: [IMUReading], base: Calibration, baseIsProfile: Bool = false, axisMapping: AxisMapping? = nil,
                traceOrientation: String? = nil, traceAxisMapping: AxisMapping? = nil, focalLength: Double? = nil, searchMs: Double? = nil) {
        self.traceAxisMapping = traceAxisMapping
        self.video = video; self.readings = readings; self.base = base; self.baseIsProfile = baseIsProfile; self.axisMapping = axisMapping
        self.traceOrientation = traceOrientation; self.focalLength = focalLength; self.searchMs = searchMs
    }
}

extension CalibrateRequest {
    /// The orientation a trace states itself: a gcsv's own `orientation` line (the reader fills
    /// in Gyroflow's default "xzY" when there is none; a default is not a statement, so then the
    /// mapping is searched), or a store's or device's orientation.
    public static func statedOrientation(_ info: TraceInfo) -> String? {
        if info.metadata["log"] != nil { return info.metadata["orientation"] }
        return info.orientation
    }
}

public struct CalibrationResult: Sendable {
    public var profile: Calibration
    public var sync: GyroSync.Result
    public var frames: Int
    /// For stdout, one line each.
    public var report: [String]
    /// For stderr, one line each ("warning: ...").
    public var warnings: [String]
}

/// `lockstep calibrate`: the video's frame-to-frame motion (FrameMotionExtractor) against the
/// gyro (GyroSync): axis orientation, clock mapping (offset, drift, pieces), focal length, bias,
/// confidence; and what to tell the user about them.
public enum CalibrateJob {
    /// Below this the result is printed with a warning to check it (scale: Calibration/README.md).
    public static let lowConfidence = 0.5

    /// `cancellation`: raised from a stop signal's queue; decoding then stops with `JobError.cancelled`.
    public static func run(_ request: CalibrateRequest, cancellation: CancellationToken = CancellationToken()) throws -> CalibrationResult {
        let motion = try FrameMotionExtractor.extract(path: request.video, cancellation: cancellation)
        return try calibrate(request, motion: motion)
    }

    /// The part after decoding: pure, given the picture's motion.
    public static func calibrate(_ request: CalibrateRequest, motion: FrameMotionSeries) throws -> CalibrationResult {
        let base = request.base
        var source: AxisMappingSource?
        var mapping: AxisMapping?
        if let m = request.axisMapping { mapping = m; source = .given } else if request.baseIsProfile {
            mapping = base.axisMapping; source = .profile
        } else if let o = request.traceOrientation, let m = AxisMapping.gyroflow(o) {
            mapping = m; source = .trace
        } else if let m = request.traceAxisMapping {
            mapping = m; source = .trace
        }
        let givenFocal = request.focalLength ?? base.focalLength(forWidth: motion.displaySize.width)
        let sync: GyroSync.Result
        do {
            sync = try GyroSync.run(shifts: motion.shifts, readings: request.readings,
                                    options: .init(mapping: mapping, bias: base.gyroBias, searchMs: request.searchMs, focalLengthPx: givenFocal))
        } catch let e as CalibrationError {
            throw CalibrationError("\(request.video): \(e.description)")
        }

        var profile = base
        profile.axisMapping = sync.mapping
        profile.axisMappingSource = source ?? .searched
        profile.clock = ClockMapping(pieces: sync.clock.pieces.map {
            ClockMapping.Piece(fromVideoS: round($0.fromVideoS, 4), offsetMs: round($0.offsetMs, 3), driftPpm: round($0.driftPpm, 2))
        })
        profile.syncPoints = sync.syncPoints.map { SyncPoint(videoTimeS: round($0.videoTimeS, 3), offsetMs: round($0.offsetMs, 3), score: round($0.score, 4)) }
        if let s = sync.still { profile.gyroBias = s.bias.map { round($0, 6) } }
        if request.focalLength != nil || base.focalLengthPx == nil {
            profile.focalLengthPx = round(sync.focalLengthPx, 2)
        }
        profile.focalLengthEstimated = givenFocal == nil ? true : nil
        profile.confidence = round(sync.confidence, 3)

        var report: [String] = [], warnings: [String] = []
        switch profile.axisMappingSource! {
        case .searched:
            // Both scores are the coarse search's peaks, the measure the orientations were ranked
            // by (the final whole-clip correlation is another measure: it is on the last line).
            let runner = sync.runnerUp.map { String(format: "; runner-up %@ scored %.3f", $0.orientation, $0.score) } ?? ""
            report.append(String(format: "axis mapping %@ (searched the 24 proper orientations: it scored %.3f%@)",
                                 describe(sync.mapping), sync.searchScore, runner))
        case .given: report.append("axis mapping \(describe(sync.mapping)) (given)")
        case .profile: report.append("axis mapping \(describe(sync.mapping)) (from the profile)")
        case .trace:
            if let o = request.traceOrientation {
                report.append("axis mapping \(describe(sync.mapping)) (the trace's orientation \(o), Gyroflow's meaning)")
            } else {
                report.append("axis mapping \(describe(sync.mapping)) (stated by the camera file's telemetry)")
            }
        }
        let first = sync.clock.pieces[0]
        report.append(String(format: "offset %.3f ms at the first frame (IMU time + offset = video time); clock drift %.1f ppm; %d sync points",
                             first.offsetMs, first.driftPpm, sync.syncPoints.count))
        for p in sync.clock.pieces.dropFirst() {
            report.append(String(format: "  from %.2f s: offset %.3f ms at the first frame (%.3f ms there)", p.fromVideoS, p.offsetMs, p.offsetMs(atVideo: p.fromVideoS)))
        }
        for j in sync.jumps {
            warnings.append(String(format: "warning: clock jump of %+.2f ms at %.2f s (video time): the sync points before and after lie on separate lines; the profile keeps a clock piece for each side",
                                   j.stepMs, j.videoTimeS))
        }
        // Windows without motion come in runs (a still stretch): one line for all of them.
        let quiet = sync.rejected.filter { $0.reason == "too little motion" }.map(\.videoTimeS)
        if let first = quiet.min(), let last = quiet.max() {
            warnings.append(quiet.count == 1 ? String(format: "note: sync point at %.2f s not used: too little motion", first)
                            : String(format: "note: %d sync points between %.2f and %.2f s not used: too little motion", quiet.count, first, last))
        }
        for r in sync.rejected where r.reason != "too little motion" {
            warnings.append(String(format: "note: sync point at %.2f s not used: %@", r.videoTimeS, r.reason))
        }
        if (1...2).contains(sync.syncPoints.count) {
            warnings.append(String(format: "note: only %d sync point%@ could be used: the drift and clock jumps are not checked, and the confidence is held to %.1f or less",
                                   sync.syncPoints.count, sync.syncPoints.count == 1 ? "" : "s", sync.syncPoints.count == 1 ? 0.6 : 0.8))
        }
        if let note = sync.driftNote {
            warnings.append("note: \(note); the offset is fitted alone (drift 0)")
        }
        if givenFocal == nil {
            report.append(String(format: "focal length %.1f px (estimated from the picture's shift against the gyro's rotation; none was given)", sync.focalLengthPx))
        }
        if let s = sync.still {
            let spans = s.spans.map { String(format: "%.2f-%.2f s", $0.lowerBound, $0.upperBound) }.joined(separator: ", ")
            report.append(String(format: "gyro bias %.5f %.5f %.5f rad/s from %.2f s where picture and gyro are both still (%@)",
                                 s.bias[0], s.bias[1], s.bias[2], s.totalS, spans))
        } else {
            warnings.append(String(format: "warning: no still interval (picture and gyro both still): the gyro bias is not measured; keeping %.5f %.5f %.5f rad/s",
                                   base.gyroBias[0], base.gyroBias[1], base.gyroBias[2]))
        }
        // The search's peak next to the search's next best (the same measure), then the whole
        // clip's correlation under the fitted clock.
        report.append(String(format: "correlation %.3f over the clip; search peak %.3f, next best peak %.3f; confidence %.2f",
                             sync.correlation, sync.searchScore, sync.runnerUpPeak, sync.confidence))
        if sync.confidence < lowConfidence {
            warnings.append(String(format: "warning: low confidence (%.2f): check the result before using it", sync.confidence))
        }
        return CalibrationResult(profile: profile, sync: sync, frames: motion.frameTimes.count, report: report, warnings: warnings)
    }

    static func describe(_ m: AxisMapping) -> String {
        switch m {
        case .orientation(let s): return s
        case .matrix(let rows): return "[" + rows.map { "[" + $0.map { String(format: "%g", $0) }.joined(separator: ",") + "]" }.joined(separator: ",") + "]"
        }
    }

    static func round(_ x: Double, _ digits: Int) -> Double {
        let p = Foundation.pow(10.0, Double(digits))
        return (x * p).rounded() / p
    }
}
