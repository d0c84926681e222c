/// What a trace says about itself, apart from its samples: where it came from and how to read it.
/// Samples are `IMUReading`s: nanoseconds, rad/s and, where present, m/s^2.
public struct TraceInfo: Equatable, Sendable {
    /// The IIO device name, or the gcsv `id`.
    public var deviceName: String
    /// Where the samples came from: a libiio URI, or the imported file's path.
    public var sourceURI: String
    /// The clock the timestamps are on (`monotonic`, `realtime`, ... as IIO's
    /// current_timestamp_clock says; `host-monotonic` when the recorder stamped them), nil if unknown.
    public var clock: String?
    /// The nominal sampling rate in Hz (as declared by the device), nil if unknown.
    public var rateHz: Double?
    /// Per channel (`anglvel_x`, `accel_x`, ...), the scale its raw integers were multiplied by
    /// (in rad/s or m/s^2 per LSB), where known.
    public var channelScales: [String: Double]
    /// Gyroflow's orientation string (`xzY`, `XYZ`, ...): how IMU axes map to the camera, nil if unknown.
    public var orientation: String?
    /// Anything else the source said (gcsv `key,value` lines, IIO attributes).
    public var metadata: [String: String]

    public init(
        deviceName: String, sourceURI: String, clock: String? = nil, rateHz: Double? = nil,
        channelScales: [String: Double] = [:], orientation: String? = nil, metadata: [String: String] = [:]
    ) {
        self.deviceName = deviceName; self.sourceURI = sourceURI; self.clock = clock; self.rateHz = rateHz
        self.channelScales = channelScales; self.orientation = orientation; self.metadata = metadata
    }

    public static let gyroChannels = ["anglvel_x", "anglvel_y", "anglvel_z"]
    public static let accelChannels = ["accel_x", "accel_y", "accel_z"]
}

/// Standard gravity: Gyroflow logs acceleration in g, Lockstep stores m/s^2.
public let standardGravity = 9.80665
