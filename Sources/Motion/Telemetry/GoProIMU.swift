/// Gyroscope and accelerometer from a GoPro's GPMF track.
///
/// Timing follows gpmf-parser and telemetry-parser: GPMF carries no per-sample times (only
/// TICK/STMP for the payload), and each payload's samples were captured over the time its
/// packet covers in the MP4, so payload k's n samples are spread evenly over
/// [start_k, start_k + duration_k): sample j at start_k + duration_k * j / n (gpmf-parser's
/// GetPayloadTime in/out; telemetry-parser's normalized_imu does the same per sample with one
/// mean period for the whole file). TIMO, where present, is subtracted (gpmf-parser does).
public enum GoProIMU {
    /// Parses each packet's payload and assembles the streams. `modelHint` names the camera
    /// when the payloads do not (HERO5/6 write no MINF; the MP4's `firmware` tag, e.g.
    /// "HD5.02.02.00.00", does).
    public static func read(_ packets: [TelemetryPacket], modelHint: String? = nil) throws -> IMUTelemetry {
        var timed: [(GPMFPayload, TelemetryPacket)] = []
        for (k, p) in packets.enumerated() {
            do { timed.append((try GPMFPayload.read(p.bytes), p)) } catch let e as GPMFError {
                throw GPMFError("GPMF payload \(k + 1) of \(packets.count) (at \(String(format3: p.time)) s): \(e.description)")
            }
        }
        return assemble(timed, modelHint: modelHint)
    }

    public static func assemble(_ timed: [(GPMFPayload, TelemetryPacket)], modelHint: String? = nil) -> IMUTelemetry {
        var out = IMUTelemetry()
        var gyroStream: GPMFSensorStream?
        for (payload, _) in timed {
            out.deviceName = out.deviceName ?? payload.deviceName
            out.model = out.model ?? payload.model
            if gyroStream == nil { gyroStream = payload.streams.first { $0.key == "GYRO" } }
        }
        if out.model == nil { out.model = modelHint }
        (out.gyro, out.gyroRateHz) = spread(timed, key: "GYRO", warnings: &out.warnings)
        (out.accel, out.accelRateHz) = spread(timed, key: "ACCL", warnings: &out.warnings)
        if let m = axisMapping(orientationIn: gyroStream?.orientationIn, model: out.model) {
            out.axisMapping = m.mapping; out.axisMappingSource = m.source
        } else {
            out.axisMappingSource = "unknown: no ORIN and no known model"
        }
        return out
    }

    /// One stream's samples on the video clock, and its measured rate.
    static func spread(_ timed: [(GPMFPayload, TelemetryPacket)], key: FourCC, warnings: inout [String]) -> ([TimedVector], Double?) {
        var out: [TimedVector] = []
        var first: Double?, last: Double?
        var skipped = 0
        for (payload, packet) in timed {
            guard let s = payload.streams.first(where: { $0.key == key }), !s.samples.isEmpty else { continue }
            guard s.samples[0].count >= 3 else { skipped += 1; continue }
            let n = Double(s.samples.count)
            let shift = s.timeOffsetS ?? 0
            first = first ?? packet.time
            last = packet.time + packet.duration
            for (j, row) in s.samples.enumerated() {
                let t = packet.time + packet.duration * Double(j) / n - shift
                out.append(TimedVector(t: IMUTelemetry.ns(t), row[0], row[1], row[2]))
            }
        }
        if skipped > 0 { warnings.append("\(key): \(skipped) payloads with fewer than 3 values per sample skipped") }
        var rate: Double?
        if let first, let last, last > first, !out.isEmpty { rate = Double(out.count) / (last - first) }
        return (out, rate)
    }

    /// GoPro's IMU axes (gpmf-parser docs, "IMU Orientation Uses These Axis Labels": seen from
    /// behind the camera, X points left, Y back toward the user, Z up) in Lockstep's camera
    /// axes (x right, y down, z forward): x = -X, y = -Z, z = -Y.
    static let cameraFromGoPro: [(axis: Character, sign: Int)] = [("X", -1), ("Z", -1), ("Y", -1)]

    /// The stored channels' orientation in GoPro's axes: ORIN where the camera writes it,
    /// else GoPro's documented data order for the model.
    public static func channelOrientation(orientationIn: String?, model: String?) -> (orin: String, source: String)? {
        if let o = orientationIn, AxisMapping.isValidOrientation(o) { return (o, "ORIN \"\(o)\"") }
        let m = (model ?? "").uppercased()
        // docs/README.md: HERO5 Black and Session "Data order Z,X,Y"; HERO6 (and HERO7, which
        // keeps HERO6's IMU metadata) "Y,-X,Z"; Fusion "-Y,X,Z".
        if m.contains("HERO5") { return ("ZXY", "GoPro's documented data order for HERO5 (Z,X,Y)") }
        // (HERO7 Silver/White use another IMU: telemetry-parser gives them "YXz"; not claimed here.)
        if m.contains("HERO6") || (m.contains("HERO7") && !m.contains("SILVER") && !m.contains("WHITE")) { return ("YxZ", "GoPro's documented data order for HERO6/7 (Y,-X,Z)") }
        if m.contains("FUSION") { return ("yXZ", "GoPro's documented data order for Fusion (-Y,X,Z)") }
        return nil
    }

    /// The mapping from the stored channels to Lockstep's camera axes.
    public static func axisMapping(orientationIn: String?, model: String?) -> (mapping: AxisMapping, source: String)? {
        guard let (orin, source) = channelOrientation(orientationIn: orientationIn, model: model) else { return nil }
        let letters = Array(orin)
        var text = ""
        for (axis, sign) in cameraFromGoPro {
            guard let k = letters.firstIndex(where: { Character($0.uppercased()) == axis }) else { return nil }
            let channelSign = letters[k].isUppercase ? 1 : -1
            let name = Character(["X", "Y", "Z"][k])
            text.append(sign * channelSign > 0 ? name : Character(name.lowercased()))
        }
        return (.orientation(text), source)
    }
}

extension String {
    init(format3 v: Double) {
        let r = (v * 1000).rounded() / 1000
        self = "\(r)"
    }
}
