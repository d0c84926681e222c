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
    /// What the movie's own telemetry records about its picture (stabilisation in the camera,
    /// per-frame orientations), whatever the trace is; nil: `run` reads it from the movie.
    public var records: VideoMotionRecords?
    /// `--force`: write a profile below the confidence floor or with an implausible focal
    /// length, with a warning, instead of refusing it.
    public var force = false

    public init(
        video: String, readings: [IMUReading], base: Calibration, baseIsProfile: Bool = false, axisMapping: AxisMapping? = nil,
        traceOrientation: String? = nil, traceAxisMapping: AxisMapping? = nil, focalLength: Double? = nil, searchMs: Double? = nil
    ) {
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
    /// The answer (for a picture stabilised in the camera with its image orientation recorded:
    /// the picture's match and the gyro's against the records, composed).
    public var sync: GyroSync.Result
    public var frames: Int
    /// For stdout, one line each.
    public var report: [String]
    /// For stderr, one line each ("warning: ...").
    public var warnings: [String]
    /// What holds the confidence down, where the answer is made of parts (a stabilised
    /// picture's two matches); nil: read from `sync`.
    var weakness: String?
}

/// `lockstep calibrate`: the video's frame-to-frame motion (FrameMotionExtractor) against the
/// gyro (GyroSync): axis orientation, clock mapping (offset, drift, pieces), focal length, bias,
/// confidence; and what to tell the user about them.
///
/// The job (`run()`, CalibrateOptions.swift) opens the files; `calibrate(_:cancellation:)` works on
/// readings already in memory.
public final class CalibrateJob: Job {
    public let options: CalibrateOptions
    /// Notices: the trace's warnings, as they come.
    let events: JobEvents
    let cancellation = CancellationToken()

    public init(options: CalibrateOptions, events: JobEvents = JobEvents()) { self.options = options; self.events = events }

    /// From a stop signal's queue: decoding stops at the next picture with `JobError.cancelled`.
    public func cancel() { cancellation.cancel() }

    /// Below this the result is printed with a warning to check it (scale: Calibration/README.md).
    public static let lowConfidence = 0.5

    /// The picture's motion of `request.video` against `request.readings`. `cancellation`:
    /// decoding stops with `JobError.cancelled` once it is raised.
    public static func calibrate(
        _ request: CalibrateRequest, cancellation: CancellationToken = CancellationToken(), progress: ((Int64, Int64?) -> Void)? = nil
    ) throws -> CalibrationResult {
        let motion = try FrameMotionExtractor.extract(path: request.video, cancellation: cancellation, progress: progress)
        var request = request
        if request.records == nil { request.records = MotionInputs(video: request.video, imu: nil, trace: nil).records }
        return try calibrate(request, motion: motion)
    }

    /// No profile below this confidence (scale and the table of confidence against the real
    /// error: Calibration/README.md), unless forced.
    public static let confidenceFloor = 0.5
    /// Nor with an estimated lens whose horizontal field of view lies outside this (degrees):
    /// no camera lens films narrower than a long telephoto's 20 or wider than a fisheye's 170.
    public static let plausibleFOV = 20.0...170.0

    /// The part after decoding: pure, given the picture's motion (and `request.records`).
    public static func calibrate(_ request: CalibrateRequest, motion whole: FrameMotionSeries) throws -> CalibrationResult {
        try calibrate(request, centred: whole.centredOnBlocks())
    }

    /// `calibrate` on a series already centred on its blocks (`CalibrateFlights` centres once
    /// for every flight it tries).
    static func calibrate(_ request: CalibrateRequest, centred motion: FrameMotionSeries) throws -> CalibrationResult {
        let records = request.records ?? VideoMotionRecords()
        var result: CalibrationResult
        if records.stabilised && records.hasImageOrientation {
            result = try stabilisedByRecords(request, motion: motion, records: records)
        } else {
            result = try plain(request, motion: motion, stabilisation: records.stabilised ? records.stabilisation : nil)
        }
        try checkFloor(&result, request: request, width: motion.displaySize.width)
        return result
    }

    /// Forced: --axis-mapping, or the --calibration profile's. Stated: the trace's own word, a
    /// prior the picture must confirm.
    static func axes(_ request: CalibrateRequest) -> (forced: AxisMapping?, stated: AxisMapping?, source: AxisMappingSource?) {
        if let m = request.axisMapping { return (m, nil, .given) }
        if request.baseIsProfile { return (request.base.axisMapping, nil, .profile) }
        if let o = request.traceOrientation, let m = AxisMapping.gyroflow(o) { return (nil, m, .trace) }
        if let m = request.traceAxisMapping { return (nil, m, .trace) }
        return (nil, nil, nil)
    }

    static func givenFocal(_ request: CalibrateRequest, _ motion: FrameMotionSeries) -> Double? {
        request.focalLength ?? request.base.focalLength(forWidth: motion.displaySize.width)
    }

    /// The picture against the gyro. `stabilisation`: the file says the camera stabilised the
    /// picture and records no image orientation: the answer must then be decisive, and a
    /// refusal says why.
    static func plain(_ request: CalibrateRequest, motion: FrameMotionSeries, stabilisation: InCameraStabilisation?) throws -> CalibrationResult {
        let (forced, stated, source) = axes(request)
        let sync: GyroSync.Result
        do {
            var options = GyroSync.Options(mapping: forced, bias: request.base.gyroBias, searchMs: request.searchMs, focalLengthPx: givenFocal(request, motion))
            options.statedMapping = stated
            options.rollWeightPx = rollWeight(motion)
            options.blocks = motion.blocks
            options.fft = FFTWComplexFFT.make
            sync = try GyroSync.run(shifts: motion.shifts, readings: request.readings, options: options)
        } catch let e as CalibrationError {
            if let s = stabilisation, e.cause != .tooLittleMotion { throw stabilisedRefusal(request.video, s, best: e.diagnosis.map { ($0.orientation, $0.offsetMs, $0.score) }, confidence: nil) }
            throw refusal(request.video, e)
        }
        var extra: [String] = []
        if let s = stabilisation {
            if !decisive(sync) {
                let refusal = stabilisedRefusal(request.video, s, best: (sync.mapping.orientationText, sync.clock.pieces[0].offsetMs, sync.searchScore), confidence: sync.confidence)
                guard request.force else { throw refusal }
                extra.append("warning: --force: writing a profile no one should trust: " + refusal.description.dropFirst(request.video.count + 2))
            } else {
                extra.append(
                    String(
                        format:
                            "warning: the camera stabilised this picture (%@) and the file records no image orientation, yet the picture follows the gyro decisively (confidence %.2f over %d windows); check the result",
                        s.source, sync.confidence, sync.syncPoints.count))
            }
        }
        var result = assemble(request, motion: motion, sync: sync, source: source)
        result.warnings = extra + result.warnings
        if stabilisation == nil {
            let estimate = ReadoutSearch.estimate(
                flow: motion.blocks, intervals: motion.shifts.map { ($0.from, $0.to) }, readings: request.readings, bias: result.profile.gyroBias,
                clock: sync.clock, mapping: sync.mapping, width: motion.displaySize.width, height: motion.displaySize.height)
            applyReadout(estimate, to: &result, base: request.base)
        } else {
            applyReadout(.notEstimated("the camera stabilised this picture: its rows no longer keep the sensor's timing"), to: &result, base: request.base)
        }
        return result
    }

    /// The rolling shutter's estimate into the profile and the report: an estimate replaces the
    /// starting profile's readout; without one, the starting profile's (if any) is kept, and the
    /// line says so.
    static func applyReadout(_ estimate: ReadoutEstimate, to result: inout CalibrationResult, base: Calibration) {
        var line = estimate.reportLine
        if let ms = estimate.readoutMs, case .estimated(_, let se) = estimate {
            result.profile.frameReadoutMs = round(ms, 2)
            result.profile.frameReadoutUncertaintyMs = round(se, 2)
        } else if let kept = base.frameReadoutMs {
            result.profile.frameReadoutMs = kept
            result.profile.frameReadoutUncertaintyMs = base.frameReadoutUncertaintyMs
            line += String(format: "; the profile keeps the starting profile's %.2f ms", kept)
        } else {
            result.profile.frameReadoutMs = nil
            result.profile.frameReadoutUncertaintyMs = nil
        }
        // Before the last line (the correlation and confidence): the answer's summary stays last.
        result.report.insert(line, at: max(0, result.report.count - 1))
    }

    /// Decisive enough to trust on a stabilised picture: three windows or more on one line,
    /// and a confidence of 0.8 or more.
    static func decisive(_ sync: GyroSync.Result) -> Bool { sync.syncPoints.count >= 3 && sync.confidence >= 0.8 }

    /// A picture stabilised in the camera whose image orientation the file records (GoPro CORI
    /// and IORI): the picture is matched against the orientation it really has, IORI * CORI, on
    /// the video's clock; the gyro is matched against the body's, CORI; the offsets add up (the
    /// gyro's clock to CORI's, CORI's to the picture's), and so do the axes.
    static func stabilisedByRecords(_ request: CalibrateRequest, motion: FrameMotionSeries, records: VideoMotionRecords) throws -> CalibrationResult {
        let (forced, stated, source) = axes(request)
        let stabilisation = records.stabilisation!
        // (a) The picture against IORI * CORI: both on the video's clock, in the camera's axes
        // (stated: the records' own, identity; the picture confirms it).
        let picture = OrientationRecords.picture(camera: records.cameraOrientation, image: records.imageOrientation)
        let a: GyroSync.Result
        do {
            var options = GyroSync.Options(bias: [0, 0, 0], focalLengthPx: givenFocal(request, motion))
            options.statedMapping = .identity
            options.rollWeightPx = rollWeight(motion)
            options.blocks = motion.blocks
            options.fft = FFTWComplexFFT.make
            a = try GyroSync.run(shifts: motion.shifts, readings: OrientationRecords.readings(picture), options: options)
        } catch let e as CalibrationError {
            if e.cause == .tooLittleMotion { throw refusal(request.video, e) }
            throw CalibrationError(
                "\(request.video): the camera stabilised this picture (\(stabilisation.source)), and the picture does not follow the image orientation the file records for it (IORI * CORI): \(e.description)",
                cause: .stabilised, diagnosis: e.diagnosis)
        }
        // (b) The gyro against CORI: the records stand in for a picture that turns exactly as the
        // body does (roll included), so every axis is matched.
        let recordFocal = 1000.0
        let b: GyroSync.Result
        do {
            var options = GyroSync.Options(bias: request.base.gyroBias, searchMs: request.searchMs)
            // A forced IMU-to-camera mapping is, in the records' axes, the picture's mapping undone.
            options.mapping = forced.map { compose(transpose(a.mapping), $0) }
            options.statedMapping = stated.map { compose(transpose(a.mapping), $0) }
            options.rollWeightPx = recordFocal
            options.fft = FFTWComplexFFT.make
            b = try GyroSync.run(shifts: OrientationRecords.shifts(records.cameraOrientation, focalPx: recordFocal), readings: request.readings, options: options)
        } catch let e as CalibrationError {
            throw CalibrationError("\(request.video): the gyro does not match the camera orientation the file records (CORI): \(e.description)", cause: .noSyncPoint, diagnosis: e.diagnosis)
        }
        // Composed: video = IMU + (b's offset) + (a's offset); camera = a's mapping * b's. The
        // records are the camera's own per-frame account, stamped on the frames (CORI and IORI
        // carry SHUT's STMP): a's offset is 0 unless the picture says otherwise decisively.
        // The picture's own estimate is too loose to replace the stamps otherwise: on the
        // shared MAX walk the stabilised picture hardly moves for 8 s and its windows scatter
        // from -15 to 0 ms, the whole clip's peak at +2.4; on a rendered stabilised walk whose
        // truth is 0, the windows say -4 to +3 and the whole clip's broad peak +21.
        let period = Double(records.cameraOrientation.last!.t - records.cameraOrientation.first!.t) / Double(max(1, records.cameraOrientation.count - 1)) / 1e6
        let windowsOffset = a.clock.pieces[0].offsetMs
        let disagrees = a.confidence >= 0.8 && abs(windowsOffset) > period / 2 && abs(a.wholeClip.offsetMs - windowsOffset) < 5
        let pictureOffset = disagrees ? windowsOffset : 0
        let atStamps =
            GyroSync.correlation(
                shifts: motion.shifts, readings: OrientationRecords.readings(picture), clock: .constant(offsetMs: 0),
                mapping: a.mapping, rollWeightPx: rollWeight(motion)) ?? a.correlation
        var sync = a
        sync.mapping = compose(a.mapping, b.mapping)
        sync.stated = b.stated.map { s in (orientation: compose(a.mapping, .orientation(s.orientation)).orientationText, score: s.score, overridden: s.overridden) }
        sync.runnerUp = b.runnerUp
        sync.runnerUpAt = b.runnerUpAt.map { (offsetMs: $0.offsetMs + pictureOffset, withinPeak: $0.withinPeak) }
        sync.searchScore = b.searchScore
        sync.runnerUpPeak = b.runnerUpPeak
        sync.clock = ClockMapping(pieces: b.clock.pieces.map { ClockMapping.Piece(fromVideoS: $0.fromVideoS, offsetMs: $0.offsetMs + pictureOffset, driftPpm: $0.driftPpm) })
        // The clock is the gyro's against the records: its windows are the sync points.
        sync.syncPoints = b.syncPoints.map { SyncPoint(videoTimeS: $0.videoTimeS, offsetMs: $0.offsetMs + pictureOffset, score: $0.score) }
        sync.rejected = b.rejected
        sync.jumps = b.jumps
        sync.driftNote = b.driftNote
        sync.still = b.still
        // How well the gyro's clock is known (b), times how well the picture follows its records
        // at the records' own times (or a's confidence, where the picture moved the offset).
        sync.correlation = atStamps
        sync.confidence = disagrees ? min(a.confidence, b.confidence) : b.confidence * max(0, min(1, atStamps))
        sync.searchedMs = b.searchedMs
        var result = assemble(request, motion: motion, sync: sync, source: sync.stated?.overridden == true ? .searched : source)
        let lines = [
            String(format: "stabilised in the camera (%@): the picture follows the orientation the file records for it, IORI * CORI, not the gyro alone", stabilisation.source),
            disagrees
                ? String(
                    format:
                        "  the picture against IORI * CORI: it follows them %+.3f ms off the records' frame times (%d windows, confidence %.2f; the whole clip's peak %+.1f ms), so the offset moves by that (axes %@)",
                    windowsOffset, a.syncPoints.count, a.confidence, a.wholeClip.offsetMs, describe(a.mapping))
                : String(
                    format:
                        "  the picture against IORI * CORI: it follows them at the records' frame times (correlation %.3f there; its own estimate: the whole clip's peak %+.1f ms, %d windows from %+.1f to %+.1f ms, too loose to move them) (axes %@)",
                    atStamps, a.wholeClip.offsetMs, a.syncPoints.count, a.syncPoints.map(\.offsetMs).min() ?? 0, a.syncPoints.map(\.offsetMs).max() ?? 0, describe(a.mapping)),
            String(
                format: "  the gyro against CORI: offset %+.3f ms, correlation %.5f, confidence %.2f, %d windows (axes %@)",
                b.clock.pieces[0].offsetMs, b.correlation, b.confidence, b.syncPoints.count, describe(b.mapping))
        ]
        result.report = lines + result.report
        // The camera undid its rolling shutter with its stabilisation (stabilise warps such a
        // clip from its records with a global shutter). What the rows say against the records
        // is measured all the same, and shown: it is how the user can see that.
        let leftOver = ReadoutSearch.estimate(
            flow: motion.blocks, intervals: motion.shifts.map { ($0.from, $0.to) }, readings: OrientationRecords.readings(picture), bias: [0, 0, 0],
            clock: .constant(offsetMs: pictureOffset), mapping: a.mapping, width: motion.displaySize.width, height: motion.displaySize.height)
        let seen: String
        switch leftOver {
        case .estimated(let ms, let se): seen = String(format: "; against its recorded orientation its rows lag by %.2f +- %.2f ms from top to bottom", ms, se)
        case .notEstimated(let why): seen = "; against its recorded orientation the rows' lag is not measurable either (\(why))"
        }
        applyReadout(
            .notEstimated("the camera stabilised this picture from its own orientation records and corrected its rolling shutter, so stabilise treats it as a global shutter\(seen)"),
            to: &result, base: request.base)
        if atStamps < 0.7 || (disagrees && a.confidence < b.confidence) {
            result.weakness = String(format: "the picture follows its recorded orientation (IORI * CORI) only weakly (correlation %.2f at the records' times): ", atStamps) + weakest(a)
        } else {
            result.weakness = "the gyro follows the recorded camera orientation (CORI) only weakly: " + weakest(b)
        }
        return result
    }

    /// The refusal for a stabilised picture without image orientation: the cause and what would work.
    static func stabilisedRefusal(_ video: String, _ s: InCameraStabilisation, best: (orientation: String, offsetMs: Double, score: Double)?, confidence: Double?) -> CalibrationError {
        var seen = ""
        if let b = best {
            seen =
                String(format: " (its best match, axes %@ at %.1f ms, scored %.3f", b.orientation, b.offsetMs, b.score)
                + (confidence.map { String(format: ", confidence %.2f", $0) } ?? "") + ")"
        }
        return CalibrationError(
            "\(video): the camera stabilised this picture (\(s.source)) and the file records no image orientation (IORI), so the picture does not follow the gyro and no offset can be trusted\(seen). Calibrate on a clip recorded with stabilisation off (HyperSmooth off), or from a camera that records its image orientation (GoPro HERO8 or later, MAX)",
            cause: .stabilised)
    }

    /// A failure of the search as a sentence that names its real cause.
    static func refusal(_ video: String, _ e: CalibrationError) -> CalibrationError {
        guard e.cause == .noSyncPoint, let d = e.diagnosis else { return CalibrationError("\(video): \(e.description)", cause: e.cause, diagnosis: e.diagnosis) }
        if e.description.hasPrefix("no orientation makes") {
            return CalibrationError("\(video): the clip does not match the trace: \(e.description)", cause: e.cause, diagnosis: d)
        }
        let cause: String
        if d.score < GyroSync.minimumWindowScore {
            cause = String(
                format: "the clip does not match the trace: no orientation of its axes makes the gyro turn like the picture (the best, %@, scored %.3f at %.0f ms; a match needs %.1f)",
                d.orientation, d.score, d.offsetMs, GyroSync.minimumWindowScore)
        } else if let st = d.stated, st.orientation == d.used, let ss = st.score, ss < GyroSync.minimumWindowScore {
            cause = String(
                format: "the trace's stated axes %@ do not fit the picture (%.3f) and no other orientation fits decisively better (the best, %@, %.3f)",
                st.orientation, ss, d.orientation, d.score)
        } else {
            cause = String(
                format: "the gyro matches the picture over the whole clip (%@, %.3f at %.0f ms) but not window by window: the clip does not match the trace throughout",
                d.used, d.usedScore, d.offsetMs)
        }
        return CalibrationError("\(video): \(cause); \(e.description)", cause: e.cause, diagnosis: d)
    }

    /// The floor: no profile below `confidenceFloor`, none with an estimated lens outside
    /// `plausibleFOV`, unless `--force` (then a warning says what is being written).
    static func checkFloor(_ result: inout CalibrationResult, request: CalibrateRequest, width: Int) throws {
        var problems: [(CalibrationError.Cause, String)] = []
        let c = result.sync.confidence
        if c < confidenceFloor {
            problems.append((.lowConfidence, String(format: "%@; its confidence is %.2f, below the floor of %.2f", result.weakness ?? weakest(result.sync), c, confidenceFloor)))
        }
        if result.profile.focalLengthEstimated == true, let fov = estimatedFOV(result.sync, width: width), !plausibleFOV.contains(fov) {
            problems.append(
                (
                    .implausibleFocalLength,
                    String(
                        format:
                            "its estimated focal length, %.1f px, gives a horizontal field of view of %.0f degrees on a picture %d px wide, outside the %.0f-%.0f degrees a lens can have: the picture's motion does not scale with the gyro's",
                        result.sync.focalLengthPx, fov, width, plausibleFOV.lowerBound, plausibleFOV.upperBound)
                ))
        }
        guard let first = problems.first else { return }
        let text = problems.map(\.1).joined(separator: "; and ")
        if request.force {
            result.warnings.append("warning: --force: writing a profile no one should trust: \(text)")
        } else {
            throw CalibrationError("\(request.video): no profile written: \(text). Give --force to write it anyway", cause: first.0)
        }
    }

    /// The field of view the estimated lens gives (the lens search's model, else a pinhole).
    static func estimatedFOV(_ sync: GyroSync.Result, width: Int) -> Double? {
        if let l = sync.lens { return l.lens.horizontalFOVDegrees(width: width) }
        guard sync.focalLengthPx > 0 else { return 180 }
        return LensModel.pinholeFOVDegrees(focalLengthPx: sync.focalLengthPx, width: width)
    }

    /// What holds the confidence down, as the cause.
    static func weakest(_ sync: GyroSync.Result) -> String {
        if sync.correlation < GyroSync.minimumWindowScore {
            return String(format: "the clip does not match the trace: over the whole clip the picture and the gyro correlate at only %.2f", sync.correlation)
        }
        if sync.syncPoints.count <= 1 { return "one window's motion carries the whole answer, and nothing checks it" }
        if sync.runnerUpPeak > sync.searchScore - 0.2 {
            return String(format: "the offset is ambiguous: another offset scores %.3f against its %.3f (repetitive motion)", sync.runnerUpPeak, sync.searchScore)
        }
        return String(format: "the windows disagree: %d of them lie on the fitted clock", sync.syncPoints.count)
    }

    /// camera = a * (b * imu).
    static func compose(_ a: AxisMapping, _ b: AxisMapping) -> AxisMapping {
        let x = a.rows, y = b.rows
        let m = (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0.0) { $0 + x[i][$1] * y[$1][j] } } }
        let product = AxisMapping.matrix(m)
        return SignedPermutation(product).map { .orientation($0.orientation) } ?? product
    }

    static func transpose(_ a: AxisMapping) -> AxisMapping {
        let x = a.rows
        let t = AxisMapping.matrix((0..<3).map { i in (0..<3).map { j in x[j][i] } })
        return SignedPermutation(t).map { .orientation($0.orientation) } ?? t
    }

    /// The profile and what to tell the user, from an answer.
    static func assemble(_ request: CalibrateRequest, motion: FrameMotionSeries, sync: GyroSync.Result, source initial: AxisMappingSource?) -> CalibrationResult {
        let base = request.base
        let givenFocal = givenFocal(request, motion)
        var source = initial
        var profile = base
        profile.axisMapping = sync.mapping
        if sync.stated?.overridden == true { source = .searched }
        profile.axisMappingSource = source ?? .searched
        profile.clock = ClockMapping(
            pieces: sync.clock.pieces.map {
                ClockMapping.Piece(fromVideoS: round($0.fromVideoS, 4), offsetMs: round($0.offsetMs, 3), driftPpm: round($0.driftPpm, 2))
            })
        profile.syncPoints = sync.syncPoints.map { SyncPoint(videoTimeS: round($0.videoTimeS, 3), offsetMs: round($0.offsetMs, 3), score: round($0.score, 4)) }
        if let s = sync.still { profile.gyroBias = s.bias.map { round($0, 6) } }
        if request.focalLength != nil || base.focalLengthPx == nil {
            profile.focalLengthPx = round(sync.focalLengthPx, 2)
            profile.distortionK1 = sync.lens.map { round($0.lens.k1, 3) }
        }
        profile.focalLengthEstimated = givenFocal == nil ? true : nil
        profile.confidence = round(sync.confidence, 3)
        var report: [String] = [], warnings: [String] = []
        switch profile.axisMappingSource! {
        case .searched:
            // Both scores are the coarse search's peaks, the measure the orientations were ranked
            // by (the final whole-clip correlation is another measure: it is on the last line).
            let runner = sync.runnerUp.map { String(format: "; runner-up %@ scored %.3f", $0.orientation, $0.score) } ?? ""
            report.append(
                String(
                    format: "axis mapping %@ (searched the 24 proper orientations: it scored %.3f%@)",
                    describe(sync.mapping), sync.searchScore, runner))
        case .given: report.append("axis mapping \(describe(sync.mapping)) (given)")
        case .profile: report.append("axis mapping \(describe(sync.mapping)) (from the profile)")
        case .trace:
            if let o = request.traceOrientation {
                report.append("axis mapping \(describe(sync.mapping)) (the trace's orientation \(o), Gyroflow's meaning\(confirmed(sync)))")
            } else {
                report.append("axis mapping \(describe(sync.mapping)) (stated by the camera file's telemetry\(confirmed(sync)))")
            }
        }
        if let s = sync.stated, s.overridden {
            // One line: the stated value, the one used, both scores (the coarse search's peaks).
            let statedText =
                request.traceOrientation.map { "the trace states orientation \($0) (Gyroflow's meaning; \(s.orientation) here)" }
                ?? "the camera file's telemetry states \(s.orientation)"
            warnings.append(
                String(
                    format: "warning: %@, which scored %@ against the picture; %@ scored %.3f: using %@",
                    statedText, s.score.map { String(format: "%.3f", $0) } ?? "nothing (it overlaps nowhere)",
                    describe(sync.mapping), sync.searchScore, describe(sync.mapping)))
        }
        let first = sync.clock.pieces[0]
        report.append(
            String(
                format: "offset %.3f ms at the first frame (IMU time + offset = video time); clock drift %.1f ppm; %d sync points",
                first.offsetMs, first.driftPpm, sync.syncPoints.count))
        for p in sync.clock.pieces.dropFirst() {
            report.append(String(format: "  from %.2f s: offset %.3f ms at the first frame (%.3f ms there)", p.fromVideoS, p.offsetMs, p.offsetMs(atVideo: p.fromVideoS)))
        }
        for j in sync.jumps {
            warnings.append(
                String(
                    format: "warning: clock jump of %+.2f ms at %.2f s (video time): the sync points before and after lie on separate lines; the profile keeps a clock piece for each side",
                    j.stepMs, j.videoTimeS))
        }
        // Windows without motion come in runs (a still stretch): one line for all of them.
        let quiet = sync.rejected.filter { $0.reason == "too little motion" }.map(\.videoTimeS)
        if let first = quiet.min(), let last = quiet.max() {
            warnings.append(
                quiet.count == 1
                    ? String(format: "note: sync point at %.2f s not used: too little motion", first)
                    : String(format: "note: %d sync points between %.2f and %.2f s not used: too little motion", quiet.count, first, last))
        }
        for r in sync.rejected where r.reason != "too little motion" {
            warnings.append(String(format: "note: sync point at %.2f s not used: %@", r.videoTimeS, r.reason))
        }
        if (1...2).contains(sync.syncPoints.count) {
            warnings.append(
                String(
                    format: "note: only %d sync point%@ could be used: the drift and clock jumps are not checked, and the confidence is held to %.1f or less",
                    sync.syncPoints.count, sync.syncPoints.count == 1 ? "" : "s", sync.syncPoints.count == 1 ? 0.6 : 0.8))
        }
        if let note = sync.driftNote {
            warnings.append("note: \(note); the offset is fitted alone (drift 0)")
        }
        if givenFocal == nil {
            if let l = sync.lens {
                report.append(
                    String(
                        format:
                            "focal length %.1f px, lens distortion k1 %.3f (r = f theta (1 + k1 theta^2): %.0f degrees across), estimated by turning the picture's blocks through the lens with the gyro's rotation over %d frame intervals (misfit %.2f px; none was given)",
                        l.lens.focalLengthPx, l.lens.k1, l.lens.horizontalFOVDegrees(width: motion.displaySize.width), l.intervalsUsed, l.misfitPx))
            } else {
                report.append(String(format: "focal length %.1f px (estimated from the picture's shift against the gyro's rotation; none was given)", sync.focalLengthPx))
            }
        }
        if let s = sync.still {
            let spans = s.spans.map { String(format: "%.2f-%.2f s", $0.lowerBound, $0.upperBound) }.joined(separator: ", ")
            report.append(
                String(
                    format: "gyro bias %.5f %.5f %.5f rad/s from %.2f s where picture and gyro are both still (%@)",
                    s.bias[0], s.bias[1], s.bias[2], s.totalS, spans))
        } else {
            warnings.append(
                String(
                    format: "warning: no still interval (picture and gyro both still): the gyro bias is not measured; keeping %.5f %.5f %.5f rad/s",
                    base.gyroBias[0], base.gyroBias[1], base.gyroBias[2]))
        }
        // The search's peak next to the search's next best (the same measure), then the whole
        // clip's correlation under the fitted clock.
        report.append(
            String(
                format: "correlation %.3f over the clip; search peak %.3f, next best peak %.3f; confidence %.2f",
                sync.correlation, sync.searchScore, sync.runnerUpPeak, sync.confidence))
        // (Below `confidenceFloor` nothing is written unless forced, and --force says so itself.)
        if let r = sync.runnerUp, profile.axisMappingSource == .searched, sync.searchScore - r.score < 0.01 {
            // Whether the offset hangs on the choice: the runner-up's own peak inside the
            // winner's (its width at half height) is the same answer for the offset.
            let offsetPart =
                sync.runnerUpAt.map {
                    $0.withinPeak
                        ? String(format: "both peak at the same offset (%@ at %.0f ms, within this one's peak), so the offset does not depend on it", r.orientation, $0.offsetMs)
                        : String(format: "%@ peaks elsewhere (%.0f ms), so the offset depends on it too, and the confidence counts it as another answer", r.orientation, $0.offsetMs)
                } ?? "the offset does not depend on it"
            warnings.append(
                String(
                    format:
                        "note: the picture hardly tells axis mapping %@ from %@ (%.3f against %.3f): it turned mostly about one axis; %@; the profile keeps the better fit, %@, which the snake's turn follows only as far as the motion told them apart (give --axis-mapping if you know it)",
                    describe(sync.mapping), r.orientation, sync.searchScore, r.score, offsetPart, describe(sync.mapping)))
        }
        return CalibrationResult(profile: profile, sync: sync, frames: motion.frameTimes.count, report: report, warnings: warnings)
    }

    /// Roll weighs in the match as a turn of the picture's side edge: half the width in pixels
    /// per radian (about the focal length of a 90 degree lens); 0 when the roll was not measured.
    static func rollWeight(_ motion: FrameMotionSeries) -> Double {
        motion.blocks == nil ? 0 : Double(motion.displaySize.width) / 2
    }

    /// ", confirmed by the picture: it scored A, the best other B" for a stated mapping kept.
    static func confirmed(_ sync: GyroSync.Result) -> String {
        guard let s = sync.stated, !s.overridden, let score = s.score else { return "" }
        return String(format: "; the motion agrees: it scored %.3f", score) + (sync.runnerUp.map { String(format: ", the best other %@ %.3f", $0.orientation, $0.score) } ?? "")
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
