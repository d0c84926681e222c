/// One packet of a movie's telemetry track: its bytes, and where it sits on the video's clock
/// (seconds from the video's first frame). Pure data: the demuxer in Media fills it.
public struct TelemetryPacket: Sendable, Equatable {
    public var bytes: [UInt8]
    public var time: Double
    public var duration: Double
    public init(bytes: [UInt8], time: Double, duration: Double) { self.bytes = bytes; self.time = time; self.duration = duration }
}

/// A three-axis sample at a time (nanoseconds, video clock).
public struct TimedVector: Sendable, Equatable {
    public var t: Int64
    public var x: Double, y: Double, z: Double
    public init(t: Int64, _ x: Double, _ y: Double, _ z: Double) { self.t = t; self.x = x; self.y = y; self.z = z }
}

/// A rotation at a time (nanoseconds, video clock).
public struct TimedQuaternion: Sendable, Equatable {
    public var t: Int64
    public var q: Quaternion
    public init(t: Int64, _ q: Quaternion) { self.t = t; self.q = q }
}

/// What a camera file says about stabilisation in the camera (GoPro HyperSmooth, horizon
/// levelling, a phone's EIS): the picture then follows the body's motion times the stabiliser's
/// correction, not the gyro alone.
public struct InCameraStabilisation: Sendable, Equatable {
    /// True: on; false: off.
    public var enabled: Bool
    /// The camera's own words for the mode (GoPro `EISA`: "HS EIS", "HS HLevel", "N").
    public var mode: String?
    /// Where the file says it ("GPMF EISE/EISA").
    public var source: String
    public init(enabled: Bool, mode: String?, source: String) { self.enabled = enabled; self.mode = mode; self.source = source }

    /// From GoPro's device settings: `EISE` "Y"/"N" (HERO7 and later), else `EISA` (HERO5/6
    /// write only it: "N" off, anything else a mode that is on). Nil when neither is there.
    public static func goPro(_ settings: [String: String]) -> InCameraStabilisation? {
        let mode = settings["EISA"].flatMap { $0.isEmpty ? nil : $0 }
        if let e = settings["EISE"]?.uppercased(), e == "Y" || e == "N" {
            return InCameraStabilisation(enabled: e == "Y" && mode?.uppercased() != "N", mode: mode, source: "GPMF EISE \"\(e)\"" + (mode.map { ", EISA \"\($0)\"" } ?? ""))
        }
        guard let mode else { return nil }
        return InCameraStabilisation(enabled: mode.uppercased() != "N", mode: mode, source: "GPMF EISA \"\(mode)\"")
    }
}

/// Gyroscope and accelerometer samples read from a camera file, in the IMU's own axes as stored
/// (rad/s, m/s^2), timed on the video's clock, with the mapping from those axes to the camera's
/// where the format or the model says it.
public struct IMUTelemetry: Sendable, Equatable {
    public var gyro: [TimedVector] = []
    public var accel: [TimedVector] = []
    /// Samples per second measured over the track (count over the time the packets span).
    public var gyroRateHz: Double?
    public var accelRateHz: Double?
    /// The device's name as the track gives it (GPMF DVNM), and the camera model (GPMF MINF, or a hint).
    public var deviceName: String?
    public var model: String?
    /// IMU axes to Lockstep's camera axes (x right, y down, z forward), nil when unknown.
    public var axisMapping: AxisMapping?
    /// Where `axisMapping` comes from, in words.
    public var axisMappingSource: String = "unknown"
    public var warnings: [String] = []
    /// Per frame, where the file has them (GoPro CORI, HERO8 and later, MAX): the camera body's
    /// orientation, and the image's orientation relative to the body (IORI: what the stabiliser
    /// did). Conventions (checked on a GoPro MAX file, see Calibration/README.md): each is a
    /// world-to-camera rotation, w x y z, in the camera's axes (x right, y down, z forward); the
    /// picture's orientation is IORI * CORI.
    public var cameraOrientation: [TimedQuaternion] = []
    public var imageOrientation: [TimedQuaternion] = []
    /// Stabilisation in the camera, where the file says.
    public var stabilisation: InCameraStabilisation?
    /// How the samples were timed, in words ("GoPro's STMP stamps against the frame-locked SHUT
    /// stream", "packet times").
    public var timing: String = "packet times"

    public init() {}

    /// The readings as Lockstep's fusion takes them: one per gyro sample, with the accelerometer
    /// interpolated linearly at the gyro's time (the two sensors are sampled at different rates
    /// and instants; the raw accelerometer samples stay in `accel`). A gyro sample further than
    /// two accelerometer periods from any accelerometer sample gets none.
    public func readings() -> [IMUReading] {
        var out: [IMUReading] = []
        out.reserveCapacity(gyro.count)
        let maxGap = accelRateHz.flatMap { $0 > 0 && $0.isFinite ? 2e9 / $0 : nil } ?? 0
        var j = 0
        for g in gyro {
            var a: SIMD3<Double>?
            if !accel.isEmpty {
                while j + 1 < accel.count && accel[j + 1].t <= g.t { j += 1 }
                let p = accel[j]
                // Differences in Double: hostile timestamps must not overflow Int64.
                if g.t <= p.t || j + 1 == accel.count {
                    if abs(Double(g.t) - Double(p.t)) <= maxGap { a = SIMD3(p.x, p.y, p.z) }
                } else {
                    let q = accel[j + 1]
                    let w = (Double(g.t) - Double(p.t)) / (Double(q.t) - Double(p.t))
                    a = SIMD3(p.x + (q.x - p.x) * w, p.y + (q.y - p.y) * w, p.z + (q.z - p.z) * w)
                }
            }
            out.append(IMUReading(t: g.t, gyro: SIMD3(g.x, g.y, g.z), accel: a))
        }
        return out
    }

    /// Seconds to integer nanoseconds, rounded; clamped to +-2^61 ns (73 years), so that the
    /// difference of two never overflows.
    static func ns(_ seconds: Double) -> Int64 {
        let limit = Double(Int64(1) << 61)
        let v = (seconds * 1e9).rounded()
        guard v.isFinite else { return seconds.isNaN ? 0 : (v < 0 ? -(Int64(1) << 61) : Int64(1) << 61) }
        return Int64(min(max(v, -limit), limit))
    }
}
