/// One trace of motion, whatever it was read from: a trace store, a Gyroflow `.gcsv`, a CSV, a
/// log of a blackbox file, an IMU of an ArduPilot DataFlash log, a blackbox_decode CSV, or a
/// movie's own telemetry track (GoPro GPMF, CAMM). Every reader returns it, every consumer
/// (`imu info/import/export/plot/replay`, `calibrate`, `snake`, `stabilise`) takes it, and the
/// trace store reads and writes it.
///
/// Units are fixed, whatever the file used: `IMUReading`s in nanoseconds, rad/s and m/s^2, in the
/// IMU's own axes as stored. How those axes become the camera's is `axisMapping`, a typed claim
/// the file makes (a camera's ORIN, or its model's documented order) that `--axis-mapping` or
/// calibrate's orientation search can check or override, rather than a rotation baked into the
/// numbers (they compare one for one with other readers such as telemetry-parser, and a profile's
/// `gyroBias` stays in IMU axes as everywhere else).
public struct MotionTrace: Equatable, Sendable {
    /// The trace's number in its file or store: a store's row id, a blackbox log's place in the
    /// file (from 1), an ArduPilot IMU's instance plus 1; 1 for a file holding one trace.
    public var id: Int64
    /// Where it came from and how it was sampled: device or camera model, source path, clock,
    /// declared rate (`info.rateHz`, Hz), channel scales, the file's own key-value lines.
    public var info: TraceInfo
    /// Whether the readings carry acceleration.
    public var hasAccel: Bool
    /// The samples in time order. Empty when the trace is only described (a store's or a trace
    /// file's listing, a blackbox file's counting pass): its source then streams them.
    public var readings: [IMUReading]
    /// The accelerometer's own samples at their own times, where the reader keeps them (a
    /// camera's track: `readings` carry it interpolated at the gyro's times); else empty.
    public var accelerometer: [TimedVector]
    /// IMU axes to Lockstep's camera axes (x right, y down, z forward; Calibration/README.md) as
    /// the file states them; nil when it does not say (then calibrate searches).
    public var axisMapping: AxisMapping?
    /// What a camera file records about its picture's motion besides the gyro (in-camera
    /// stabilisation, per-frame orientations); empty for every other source.
    public var records: VideoMotionRecords
    /// What the reader skipped or assumed, one sentence each naming the file.
    public var warnings: [String]

    public init(
        id: Int64 = 1, info: TraceInfo, hasAccel: Bool, readings: [IMUReading] = [], accelerometer: [TimedVector] = [],
        axisMapping: AxisMapping? = nil, records: VideoMotionRecords = VideoMotionRecords(), warnings: [String] = []
    ) {
        self.id = id; self.info = info; self.hasAccel = hasAccel; self.readings = readings; self.accelerometer = accelerometer
        self.axisMapping = axisMapping; self.records = records; self.warnings = warnings
    }

    /// The trace without its samples: what a listing hands out.
    public var described: MotionTrace {
        var d = self
        d.readings = []
        d.accelerometer = []
        return d
    }
}

extension MotionTrace {
    /// Which camera telemetry a movie's trace came from (`info.metadata["source"]`).
    public enum CameraSource: String, Sendable {
        case gpmf = "GoPro GPMF"
        case camm = "CAMM"
    }

    /// A movie's own telemetry as trace 1, on the video's clock (ns from its first frame):
    /// the camera model where known (else the device name the track gives, else the format)
    /// names it; the mapping the track states is kept typed.
    public init(camera imu: IMUTelemetry, path: String, source: CameraSource) {
        var meta: [String: String] = ["source": source.rawValue, "axisMappingSource": imu.axisMappingSource]
        if let a = imu.accelRateHz { meta["accelRateHz"] = String(a) }
        // `info.orientation` stays nil: it is Gyroflow's string, and `axisMapping` here is
        // Lockstep's (camera x right, y down, z forward).
        let info = TraceInfo(
            deviceName: imu.model ?? imu.deviceName ?? source.rawValue, sourceURI: path, clock: "video", rateHz: imu.gyroRateHz, metadata: meta)
        let readings = imu.readings()
        self.init(
            id: 1, info: info, hasAccel: readings.contains { $0.accel != nil }, readings: readings, accelerometer: imu.accel,
            axisMapping: imu.axisMapping, records: VideoMotionRecords(imu), warnings: imu.warnings)
    }
}

/// What a camera file records about its picture's motion besides the gyro: whether the camera
/// stabilised the picture, and per frame the body's and the image's orientation (GoPro CORI and
/// IORI), on the video's clock.
public struct VideoMotionRecords: Equatable, Sendable {
    public var stabilisation: InCameraStabilisation?
    public var cameraOrientation: [TimedQuaternion] = []
    public var imageOrientation: [TimedQuaternion] = []
    /// How the telemetry was timed, in words.
    public var timing = ""

    public init() {}
    public init(_ imu: IMUTelemetry) {
        stabilisation = imu.stabilisation; cameraOrientation = imu.cameraOrientation; imageOrientation = imu.imageOrientation
        timing = imu.timing
    }

    /// Stabilised in the camera, by the file's own word.
    public var stabilised: Bool { stabilisation?.enabled == true }
    /// Both per-frame orientations, sample for sample.
    public var hasImageOrientation: Bool { !imageOrientation.isEmpty && imageOrientation.count == cameraOrientation.count }
}
