/// Google's Camera Motion Metadata (CAMM, the `camm` track phones and 360 cameras write;
/// developers.google.com/streetview/publish/camm-spec). Each track sample is one packet:
/// `uint16 reserved, uint16 type` then the type's fields, little-endian. A buffer holding
/// several packets back to back is read packet by packet.
public enum CAMMPacket: Sendable, Equatable {
    case angleAxis(Float, Float, Float)  // 0: rad, camera to world
    case exposure(pixelExposureNs: Int32, rollingShutterSkewNs: Int32)  // 1
    case gyro(Float, Float, Float)  // 2: rad/s around the camera's XYZ
    case acceleration(Float, Float, Float)  // 3: m/s^2
    case position(Float, Float, Float)  // 4: m
    case minimalGPS(latitude: Double, longitude: Double, altitude: Double)  // 5
    case gps(
        timeGPSEpoch: Double, fixType: Int32, latitude: Double, longitude: Double, altitude: Float,
        horizontalAccuracy: Float, verticalAccuracy: Float, velocityEast: Float, velocityNorth: Float,
        velocityUp: Float, speedAccuracy: Float)  // 6
    case magneticField(Float, Float, Float)  // 7: microtesla
}

public enum CAMM {
    /// Payload bytes of each packet type, after the 4-byte header.
    public static func payloadSize(_ type: UInt16) -> Int? {
        switch type {
        case 0, 2, 3, 4, 7: return 12
        case 1: return 8
        case 5: return 24
        case 6: return 8 + 4 + 8 + 8 + 4 * 7
        default: return nil
        }
    }

    /// The packets in `bytes`: an unknown type, or fewer bytes than the type needs, is an error.
    public static func parse(_ bytes: [UInt8]) throws -> [CAMMPacket] {
        var out: [CAMMPacket] = []
        var at = 0
        while at < bytes.count {
            guard bytes.count - at >= 4 else { throw CAMMError("truncated packet header at byte \(at) (\(bytes.count - at) bytes left, 4 needed)") }
            var r = LittleEndianReader(bytes, at)
            _ = r.u16()  // reserved
            let type = r.u16()
            guard let size = payloadSize(type) else { throw CAMMError("unknown packet type \(type) at byte \(at)") }
            guard bytes.count - r.at >= size else {
                throw CAMMError("packet type \(type) at byte \(at) needs \(size) bytes, \(bytes.count - r.at) left")
            }
            switch type {
            case 0: out.append(.angleAxis(r.f32(), r.f32(), r.f32()))
            case 1: out.append(.exposure(pixelExposureNs: r.i32(), rollingShutterSkewNs: r.i32()))
            case 2: out.append(.gyro(r.f32(), r.f32(), r.f32()))
            case 3: out.append(.acceleration(r.f32(), r.f32(), r.f32()))
            case 4: out.append(.position(r.f32(), r.f32(), r.f32()))
            case 5: out.append(.minimalGPS(latitude: r.f64(), longitude: r.f64(), altitude: r.f64()))
            case 6:
                out.append(
                    .gps(
                        timeGPSEpoch: r.f64(), fixType: r.i32(), latitude: r.f64(), longitude: r.f64(), altitude: r.f32(),
                        horizontalAccuracy: r.f32(), verticalAccuracy: r.f32(), velocityEast: r.f32(),
                        velocityNorth: r.f32(), velocityUp: r.f32(), speedAccuracy: r.f32()))
            default: out.append(.magneticField(r.f32(), r.f32(), r.f32()))
            }
            at = r.at
        }
        return out
    }

    /// Gyro and accelerometer samples of a camm track, each at its packet's time (the track
    /// gives every sample its own pts). The spec names the camera's X, Y, Z without tying them
    /// to the picture in a way we could check, so no axis mapping is claimed: calibrate's
    /// orientation search finds it.
    ///
    /// A track with orientations (type 0, angle-axis, camera to world) and no gyro (a VR180
    /// camera's): the angular rate is the orientation's turn between consecutive samples, the
    /// rotation vector of conj(R_i) * R_i+1 (in the camera's axes, as a gyro reads them) over
    /// their time apart, at the midpoint: at the track's own rate. (Type 1 is the exposure, not
    /// an orientation: read, not used.)
    public static func read(_ packets: [TelemetryPacket]) throws -> IMUTelemetry {
        var out = IMUTelemetry()
        out.axisMappingSource = "unknown: CAMM does not tie its axes to the picture"
        var orientations: [TimedQuaternion] = []
        for (k, p) in packets.enumerated() {
            let parsed: [CAMMPacket]
            do { parsed = try parse(p.bytes) } catch let e as CAMMError {
                throw CAMMError("CAMM sample \(k + 1) of \(packets.count) (at \(String(format3: p.time)) s): \(e.description)")
            }
            let t = IMUTelemetry.ns(p.time)
            for packet in parsed {
                switch packet {
                case .gyro(let x, let y, let z): out.gyro.append(TimedVector(t: t, Double(x), Double(y), Double(z)))
                case .acceleration(let x, let y, let z): out.accel.append(TimedVector(t: t, Double(x), Double(y), Double(z)))
                case .angleAxis(let x, let y, let z):
                    let v = SIMD3(Double(x), Double(y), Double(z))
                    if v.x.isFinite && v.y.isFinite && v.z.isFinite { orientations.append(TimedQuaternion(t: t, OrientationRecords.quaternion(v))) }
                default: break
                }
            }
        }
        if out.gyro.isEmpty && orientations.count >= 2 {
            out.gyro = OrientationRecords.rates(cameraToWorld: orientations)
            out.warnings.append("CAMM: no gyroscope packets (type 2); the angular rates are the turns between its \(orientations.count) orientation packets (type 0)")
        }
        out.gyroRateHz = rate(out.gyro)
        out.accelRateHz = rate(out.accel)
        return out
    }

    /// Samples per second between the first and the last sample.
    static func rate(_ v: [TimedVector]) -> Double? {
        guard v.count >= 2, let a = v.first?.t, let b = v.last?.t, b > a else { return nil }
        return Double(v.count - 1) / ((Double(b) - Double(a)) / 1e9)
    }
}

public struct CAMMError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}

/// Reads little-endian numbers; the caller checks the length first.
struct LittleEndianReader {
    let bytes: [UInt8]
    var at: Int
    init(_ bytes: [UInt8], _ at: Int) { self.bytes = bytes; self.at = at }
    mutating func u(_ n: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in (0..<n).reversed() { v = v << 8 | UInt64(bytes[at + i]) }
        at += n
        return v
    }
    mutating func u16() -> UInt16 { UInt16(u(2)) }
    mutating func i32() -> Int32 { Int32(bitPattern: UInt32(u(4))) }
    mutating func f32() -> Float { Float(bitPattern: UInt32(u(4))) }
    mutating func f64() -> Double { Double(bitPattern: u(8)) }
}
