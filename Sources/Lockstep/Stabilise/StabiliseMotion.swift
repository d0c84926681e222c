import Foundation
import Media
import Motion
import MotionIO

/// One input's motion, ready to stabilise: the camera's path on the video's clock (v = 0 at its
/// first frame), gravity where the trace has an accelerometer, the lens for the picture's size
/// and the rolling shutter. Read before the first frame; every failure is one line naming the
/// file, and nothing is written.
struct StabiliseMotion {
    var camera: CameraPath
    var gravity: GravityEstimate?
    var lens: CameraLens
    var shutter: RollingShutter
    /// What the user should know (where the motion came from), one line each.
    var notes: [String] = []

    /// Seconds the trace may start after the first frame or end before the last (a frame's
    /// motion is read at its time; a gyro at 200 Hz has 5 ms between readings).
    static let coverageSlack = 0.04

    /// `size`: the picture's displayed size (the lens is scaled to it); `duration`: the clip's, s.
    static func load(video: String, options: StabiliseOptions, size: Size, duration: Double?, cancellation: CancellationToken) throws -> StabiliseMotion {
        let profileLens = try options.lens.map { path -> LensProfile in
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw JobError("\(path): \(FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")")
            }
            do { return try LensProfile.decode(data, source: path) } catch let e as LensProfileError { throw JobError(e.description) }
        }
        let profileLensScaled = try profileLens.map { p in
            do { return try p.lens(width: size.width, height: size.height, source: options.lens!) } catch let e as LensProfileError { throw JobError(e.description) }
        }
        // The movie's telemetry is decoded once, for its records, calibrate's trace and the path.
        let inputs = MotionInputs(video: video, imu: options.imu, trace: options.trace)
        let records = inputs.records
        if let s = records.stabilisation, records.stabilised, !records.hasImageOrientation {
            // The HERO7's case: the picture moved against the body and the file does not say how.
            throw JobError(CalibrateJob.stabilisedRefusal(video, s, best: nil, confidence: nil).description.replacingOccurrences(of: "Calibrate on", with: "Stabilise"))
        }
        let profile = try calibration(video: video, options: options, inputs: inputs, cancellation: cancellation)
        let lens = try profileLensScaled ?? calibratedLens(profile, source: options.calibration ?? video, size: size)
        var notes: [String] = []
        let readoutMs = options.rollingShutterMs ?? profileLens?.frameReadoutMs ?? profile.frameReadoutMs ?? 0
        var shutter = RollingShutter(readout: readoutMs / 1000, bottomUp: profileLens?.readoutBottomUp ?? false)

        let camera: CameraPath
        var gravity: GravityEstimate?
        if let s = records.stabilisation, records.stabilised, records.hasImageOrientation {
            // Stabilised in the camera, its image orientation recorded (GoPro CORI and IORI): the
            // picture was taken by a camera turned as IORI * CORI (world to camera), so its path
            // is the conjugate, on the video's clock; the camera already undid its rolling shutter.
            let picture = OrientationRecords.picture(camera: records.cameraOrientation, image: records.imageOrientation)
            guard picture.count >= 2 else { throw JobError("\(video): its image orientation records (IORI) hold fewer than two frames") }
            camera = CameraPath(times: picture.map(\.t), orientations: picture.map { $0.q.conjugate })
            shutter = options.rollingShutterMs.map { RollingShutter(readout: $0 / 1000) } ?? .global
            notes.append("\(video): stabilised in the camera (\(s.source)); its recorded image orientation (IORI * CORI) is undone, then smoothed")
        } else {
            let source = try inputs.source()
            let window = SnakeOptions.traceWindow(videoDuration: duration.map { Rational(Int64(($0 * 1000).rounded()), 1000) }, clock: profile.clock, margin: 2)
            let readings = try source.readings(within: window)
            let trace = options.imu ?? video
            guard readings.count >= 2 else {
                throw JobError("\(trace): the trace has \(readings.isEmpty ? "no readings" : "one reading") over the clip; stabilise needs the camera's motion for every frame")
            }
            let path = CameraPath(readings: readings, calibration: profile)!
            let times = path.times
            let first = Double(times.first!) / 1e9, last = Double(times.last!) / 1e9
            if first > coverageSlack || (duration.map { last < $0 - coverageSlack } ?? false) {
                throw JobError(
                    String(
                        format: "%@: the trace covers the video from %.3f s to %.3f s, not the whole clip (0 to %.3f s); stabilise needs the camera's motion for every frame",
                        trace, first, last, duration ?? 0))
            }
            camera = path
            gravity = GravityEstimate(path: camera, accel: CameraPath.accelerometer(readings, calibration: profile))
            // Which readout wins: --rolling-shutter, then the lens profile's, then the
            // calibration's (calibrate's estimate); said when it is the calibration's.
            if options.rollingShutterMs == nil, profileLens?.frameReadoutMs == nil, let r = profile.frameReadoutMs, r > 0 {
                let error = profile.frameReadoutUncertaintyMs.map { String(format: " +- %.2f", $0) } ?? ""
                notes.append(String(format: "%@: rolling shutter readout %.2f%@ ms, from the calibration (%@)", video, r, error, options.calibration ?? "calibrate's estimate"))
            }
        }
        return StabiliseMotion(camera: camera, gravity: gravity, lens: lens, shutter: shutter, notes: notes)
    }

    /// `--calibration`'s profile, or calibrate's answer for this clip (refused as calibrate
    /// refuses: a profile nobody should trust does not warp pictures).
    static func calibration(video: String, options: StabiliseOptions, inputs: MotionInputs, cancellation: CancellationToken) throws -> Calibration {
        if let path = options.calibration { return try Calibration.load(URL(fileURLWithPath: path)) }
        let source = try inputs.source()
        let stored = try source.single()
        var request = CalibrateRequest(
            video: video, readings: try source.readings(), base: Calibration(name: "stabilise"),
            traceOrientation: CalibrateRequest.statedOrientation(stored.info), traceAxisMapping: stored.axisMapping)
        request.force = false
        request.records = inputs.records
        do {
            return try CalibrateJob.calibrate(request, cancellation: cancellation).profile
        } catch let e as CalibrationError {
            throw JobError(e.description + "; stabilise needs a profile it can trust (give one with --calibration)")
        }
    }

    /// The calibration's lens: its focal length (and k1 where calibrate searched the lens),
    /// about the picture's centre.
    static func calibratedLens(_ profile: Calibration, source: String, size: Size) throws -> CameraLens {
        guard let f = profile.focalLength(forWidth: size.width) else {
            throw JobError("\(source): the profile has no focal length (focalLengthPx or horizontalFOVDeg); give a lens profile with --lens")
        }
        return CameraLens(focalLengthPx: f, k1: profile.distortionK1, width: size.width, height: size.height)
    }
}
