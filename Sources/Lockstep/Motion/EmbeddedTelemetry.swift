import Media
import Motion

/// A movie's own motion telemetry (GoPro GPMF or CAMM), as a trace on the video's clock.
///
/// The readings keep the IMU's axes as stored (rad/s, m/s^2), and `axisMapping` says how those
/// axes become the camera's (Lockstep's meaning: x right, y down, z forward, see
/// Calibration/README.md), rather than being turned into camera axes here: the numbers stay
/// the camera's own (they compare one for one with other readers such as telemetry-parser and
/// with the file), a profile's `gyroBias` stays in IMU axes as everywhere else, and the mapping
/// is a stated claim that `--axis-mapping` or calibrate's orientation search can check or
/// override, instead of a rotation baked into the data.
public struct EmbeddedTrace: Sendable {
    public enum Source: String, Sendable {
        case gpmf = "GoPro GPMF"
        case camm = "CAMM"
    }
    public var path: String
    public var source: Source
    /// The camera model where known (GPMF MINF, or the MP4's GoPro firmware tag), else the
    /// device name the track gives (GPMF DVNM), else nil.
    public var cameraModel: String?
    /// The device name the track gives (GPMF DVNM, e.g. "Camera" on a HERO5), nil for CAMM.
    public var deviceName: String?
    /// One reading per gyro sample, t in ns from the video's first frame, gyro rad/s, accel
    /// m/s^2 interpolated at the gyro's time (nil where there is none).
    public var readings: [IMUReading]
    /// The accelerometer's own samples, at their own times.
    public var accelerometer: [TimedVector]
    public var gyroRateHz: Double?
    public var accelRateHz: Double?
    /// IMU axes to camera axes; nil when the file does not say (then search for it).
    public var axisMapping: AxisMapping?
    public var axisMappingSource: String
    public var warnings: [String]
    /// Stabilisation and per-frame orientations, where the file has them.
    public var records = VideoMotionRecords()

    /// Whether the readings carry acceleration (StoredTrace's `hasAccel`).
    public var hasAccel: Bool { readings.contains { $0.accel != nil } }

    /// What `imu info`/`imu import` show and store about the trace.
    public var info: TraceInfo {
        var meta: [String: String] = ["source": source.rawValue, "axisMappingSource": axisMappingSource]
        if let a = accelRateHz { meta["accelRateHz"] = String(a) }
        // `orientation` stays nil: TraceInfo's orientation is Gyroflow's string, and the mapping
        // here is Lockstep's (camera x right, y down, z forward): `cameraAxisMapping`.
        var info = TraceInfo(
            deviceName: cameraModel ?? source.rawValue, sourceURI: path, clock: "video",
            rateHz: gyroRateHz, metadata: meta)
        info.cameraAxisMapping = axisMapping
        return info
    }
}

/// What a camera file records about its picture's motion besides the gyro: whether the camera
/// stabilised the picture, and per frame the body's and the image's orientation (GoPro CORI and
/// IORI), on the video's clock.
public struct VideoMotionRecords: Sendable {
    public var stabilisation: InCameraStabilisation?
    public var cameraOrientation: [TimedQuaternion] = []
    public var imageOrientation: [TimedQuaternion] = []
    /// How the telemetry was timed, in words.
    public var timing = ""

    public init() {}
    init(_ imu: IMUTelemetry) {
        stabilisation = imu.stabilisation; cameraOrientation = imu.cameraOrientation; imageOrientation = imu.imageOrientation
        timing = imu.timing
    }

    /// Stabilised in the camera, by the file's own word.
    public var stabilised: Bool { stabilisation?.enabled == true }
    /// Both per-frame orientations, sample for sample.
    public var hasImageOrientation: Bool { !imageOrientation.isEmpty && imageOrientation.count == cameraOrientation.count }
}

public enum EmbeddedTelemetry {
    /// Whether `path` looks like a movie that may carry telemetry (by its extension), so a
    /// trace argument can be routed here before trying to read it as a trace file or store.
    public static func isMovie(path: String) -> Bool {
        let lower = path.lowercased()
        return [".mp4", ".mov", ".360", ".lrv", ".m4v"].contains { lower.hasSuffix($0) }
    }

    /// Reads the gyroscope and accelerometer from the movie's GPMF or CAMM track. Errors are one
    /// line naming the file: "PATH: has no GPMF or CAMM telemetry track", "PATH: GPMF payload 3
    /// of 13 (at 2.002 s): ...".
    public static func read(path: String) throws -> EmbeddedTrace {
        let demuxer = try TelemetryDemuxer(path: path)
        let packets = try demuxer.packets().map { TelemetryPacket(bytes: $0.bytes, time: $0.time, duration: $0.duration) }
        let imu: IMUTelemetry
        let source: EmbeddedTrace.Source
        do {
            switch demuxer.kind {
            case .gpmf:
                source = .gpmf
                // The settings box is advisory: a damaged one is read as absent.
                let settings = demuxer.userDataGPMF.flatMap { try? GPMFPayload.read($0, keys: []) }?.settings ?? [:]
                imu = try GoProIMU.read(packets, modelHint: goProModel(firmware: demuxer.containerTags["firmware"]), fileSettings: settings)
            case .camm:
                source = .camm
                imu = try CAMM.read(packets)
            }
        } catch let e as GPMFError {
            throw EmbeddedTelemetryError("\(path): \(e.description)")
        } catch let e as CAMMError {
            throw EmbeddedTelemetryError("\(path): \(e.description)")
        }
        guard !imu.gyro.isEmpty else {
            throw EmbeddedTelemetryError("\(path): its \(source.rawValue) track has no gyroscope samples")
        }
        var trace = EmbeddedTrace(
            path: path, source: source, cameraModel: imu.model ?? imu.deviceName, deviceName: imu.deviceName, readings: imu.readings(),
            accelerometer: imu.accel, gyroRateHz: imu.gyroRateHz, accelRateHz: imu.accelRateHz,
            axisMapping: imu.axisMapping, axisMappingSource: imu.axisMappingSource, warnings: imu.warnings)
        trace.records = VideoMotionRecords(imu)
        return trace
    }

    /// What a movie's own telemetry says about its picture's motion (stabilisation, per-frame
    /// orientations), whatever trace calibrate or snake is given: nil when the movie has no
    /// telemetry track or it cannot be read (it is then simply not known).
    public static func records(video path: String) -> VideoMotionRecords? {
        guard isMovie(path: path), let trace = try? read(path: path) else { return nil }
        return trace.records
    }

    /// GoPro writes the model into the MP4's `firmware` tag: "HD5.02.02.00.00" is a HERO5 Black,
    /// "HD6..." a HERO6, "HD7..." a HERO7, "HD8..." a HERO8, "HD9..." a HERO9, "H21..." a HERO10,
    /// "H22..." a HERO11, "H23..." a HERO12; "H19..." is the MAX (the shared MAX walk says
    /// "H19.03.01.30.00" and "GoPro Max" in its payloads; it was named a HERO9 here).
    public static func goProModel(firmware: String?) -> String? {
        guard let f = firmware?.uppercased() else { return nil }
        let table: [(String, String)] = [
            ("HD5", "HERO5 Black"), ("HD6", "HERO6 Black"), ("HD7", "HERO7 Black"),
            ("HD8", "HERO8 Black"), ("HD9", "HERO9 Black"), ("H19", "MAX"), ("H21", "HERO10 Black"),
            ("H22", "HERO11 Black"), ("H23", "HERO12 Black"),
            ("FS1", "Fusion")
        ]
        return table.first { f.hasPrefix($0.0) }?.1
    }
}

/// A failure reading a movie's telemetry: one line naming the file.
public struct EmbeddedTelemetryError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}
