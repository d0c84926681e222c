/// Gyroscope and accelerometer from a GoPro's GPMF track.
///
/// Timing: GPMF carries no per-sample times (only TICK/STMP per payload). Each payload holds
/// the samples that arrived during its packet's span in the MP4, but a sensor sampling steadily
/// at 397 Hz lands 392 samples in one 1001 ms packet and 399 in the next (karma.mp4): spreading
/// each payload over its own packet alone makes the rate jump by 2% from payload to payload
/// (measured: up to 23.7 ms off). So, like gpmf-parser's GetGPMFSampleRate (precise mode) and
/// telemetry-parser (one mean period for the file), the samples are spread over the packets'
/// spans together: a least-squares line through (packet end time, samples delivered so far)
/// gives the rate and the first sample's time, and sample i sits at first + i / rate. A single
/// payload is spread over its packet's span. TIMO, where present, is subtracted (gpmf-parser
/// does). A stream that strays from one rate by more than a tenth of a payload gets a warning.
public enum GoProIMU {
    /// Parses each packet's payload and assembles the streams. `modelHint` names the camera
    /// when the payloads do not (HERO5/6 write no MINF; the MP4's `firmware` tag, e.g.
    /// "HD5.02.02.00.00", does).
    /// `fileSettings`: the device settings of the file's `udta` GPMF box (HERO7 and later keep
    /// `EISE`/`EISA` there rather than in the track's payloads).
    public static func read(_ packets: [TelemetryPacket], modelHint: String? = nil, fileSettings: [String: String] = [:]) throws -> IMUTelemetry {
        var timed: [(GPMFPayload, TelemetryPacket)] = []
        for (k, p) in packets.enumerated() {
            do { timed.append((try GPMFPayload.read(p.bytes, keys: GPMFPayload.motionKeys), p)) } catch let e as GPMFError {
                throw GPMFError("GPMF payload \(k + 1) of \(packets.count) (at \(String(format3: p.time)) s): \(e.description)")
            }
        }
        return assemble(timed, modelHint: modelHint, fileSettings: fileSettings)
    }

    public static func assemble(_ timed: [(GPMFPayload, TelemetryPacket)], modelHint: String? = nil, fileSettings: [String: String] = [:]) -> IMUTelemetry {
        var out = IMUTelemetry()
        var gyroStream: GPMFSensorStream?
        var settings = fileSettings
        for (payload, _) in timed {
            out.deviceName = out.deviceName ?? payload.deviceName
            out.model = out.model ?? payload.model
            if gyroStream == nil { gyroStream = payload.streams.first { $0.key == "GYRO" } }
            settings.merge(payload.settings) { old, _ in old }
        }
        if out.model == nil { out.model = modelHint }
        out.stabilisation = InCameraStabilisation.goPro(settings)
        // The frames on the camera's clock: the first stamp of the frame-locked exposure stream
        // (or of the per-frame orientation), where the streams carry STMP (MAX, HERO8 and later).
        let frameStamp = ["SHUT", "CORI"].lazy.compactMap { key in
            timed.lazy.compactMap { $0.0.streams.first { $0.key == key } }.first?.timestampUs
        }.first
        var stamped = false
        func vectors(_ key: FourCC) -> ([TimedVector], Double?) {
            let (times, rows, rate, byStamp) = spread(timed, key: key, width: 3, frameStampUs: frameStamp, warnings: &out.warnings)
            stamped = stamped || byStamp
            return (zip(times, rows).map { TimedVector(t: IMUTelemetry.ns($0), $1[0], $1[1], $1[2]) }, rate)
        }
        func quaternions(_ key: FourCC) -> [TimedQuaternion] {
            let (times, rows, _, _) = spread(timed, key: key, width: 4, frameStampUs: frameStamp, warnings: &out.warnings)
            return zip(times, rows).compactMap { t, r in
                let q = Quaternion(w: r[0], x: r[1], y: r[2], z: r[3])
                return q.length > 0.5 ? TimedQuaternion(t: IMUTelemetry.ns(t), q.normalized) : nil
            }
        }
        (out.gyro, out.gyroRateHz) = vectors("GYRO")
        (out.accel, out.accelRateHz) = vectors("ACCL")
        out.cameraOrientation = quaternions("CORI")
        out.imageOrientation = quaternions("IORI")
        if stamped { out.timing = "GoPro's STMP stamps, against the frame-locked \(frameStampKey(timed)) stream" }
        if let m = axisMapping(orientationIn: gyroStream?.orientationIn, model: out.model) {
            out.axisMapping = m.mapping; out.axisMappingSource = m.source
        } else {
            out.axisMappingSource = "unknown: no ORIN and no known model"
        }
        return out
    }

    static func frameStampKey(_ timed: [(GPMFPayload, TelemetryPacket)]) -> String {
        timed.contains { $0.0.streams.contains { $0.key == "SHUT" && $0.timestampUs != nil } } ? "SHUT" : "CORI"
    }

    /// One stream's samples on the video clock (seconds), their rows (at least `width` values
    /// each), its rate, and whether STMP timed them. With `frameStampUs` (the first frame on the
    /// camera's clock) and a STMP in every payload of the stream, as gpmf-parser does: the
    /// least-squares line through (payload stamp, samples before it) gives the rate and the
    /// first sample's stamp, and the first frame is video time 0. Otherwise the packets' times
    /// (see the type's comment).
    static func spread(
        _ timed: [(GPMFPayload, TelemetryPacket)], key: FourCC, width: Int, frameStampUs: Double?,
        warnings: inout [String]
    ) -> (times: [Double], rows: [[Double]], rate: Double?, stamped: Bool) {
        var rows: [[Double]] = []
        var ends: [(t: Double, total: Double)] = []  // each payload's end and the samples up to it
        var stamps: [(t: Double, total: Double)] = []  // each payload's STMP (s) and the samples before it
        var spans: [(start: Double, duration: Double, count: Int)] = []
        var skipped = 0
        var shift = 0.0
        for (payload, packet) in timed {
            guard let s = payload.streams.first(where: { $0.key == key }), !s.samples.isEmpty else { continue }
            guard s.samples[0].count >= width else { skipped += 1; continue }
            shift = s.timeOffsetS ?? shift
            if let us = s.timestampUs { stamps.append((us / 1e6, Double(rows.count))) }
            // GoPro writes rad/s and m/s^2 (SIUN); a stream that says otherwise is converted.
            let factor = width == 3 ? unitFactor(s.units) : 1
            rows += factor == 1 ? s.samples : s.samples.map { $0.map { $0 * factor } }
            ends.append((packet.time + packet.duration, Double(rows.count)))
            spans.append((packet.time, packet.duration, s.samples.count))
        }
        if skipped > 0 { warnings.append("\(key): \(skipped) payloads with fewer than \(width) values per sample skipped") }
        guard !rows.isEmpty else { return ([], [], nil, false) }
        var times: [Double] = []
        times.reserveCapacity(rows.count)
        var rate: Double?
        if let frame = frameStampUs, stamps.count == spans.count, stamps.count >= 2,
            let (r, first) = fit(stamps.map { (t: $0.t, total: $0.total) })
        {
            // Samples before each stamp: the line's zero is the first sample's stamp.
            rate = r
            for i in rows.indices { times.append(first + Double(i) / r - frame / 1e6) }
            return (times, rows, rate, true)
        }
        if let frame = frameStampUs, stamps.count == spans.count, stamps.count == 1 {
            // One stamped payload: spread over its packet's span from its stamp.
            let n = spans[0].count, d = spans[0].duration
            for j in 0..<n { times.append(stamps[0].t - frame / 1e6 + d * Double(j) / Double(n)) }
            return (times, rows, d > 0 ? Double(n) / d : nil, true)
        }
        if let (r, first) = robustFit(Self.steadyEnds(ends, spans), samplesPerPayload: spans.map(\.count).sorted()[spans.count / 2]) {
            rate = r
            for i in rows.indices { times.append(first + Double(i) / r - shift) }
            // Where a payload's count strays from the line by more than a tenth of a payload, the
            // clock was not steady (dropped payloads, a recording pause): say so.
            let worst = ends.map { abs($0.total - (r * ($0.t - first))) / r }.max() ?? 0
            let payloadSpan = (ends.last!.t - (spans.first?.start ?? 0)) / Double(ends.count)
            if worst > 0.1 * payloadSpan {
                warnings.append("\(key): the payloads stray from one steady rate by up to \(String(format3: worst * 1000)) ms")
            }
        } else {
            // One payload (or no usable line): spread over the packet's own span.
            for (start, duration, n) in spans {
                for j in 0..<n { times.append(start + duration * Double(j) / Double(n) - shift) }
            }
            let span = (spans.last!.start + spans.last!.duration) - spans[0].start
            rate = span > 0 ? Double(rows.count) / span : nil
        }
        return (times, rows, rate, false)
    }

    /// The payload ends the rate is fitted on: all but a last payload whose packet lasts more
    /// than a tenth longer than the others' median. The MP4 stretches the track's last sample to
    /// the end of the video, so that payload's end is not where its samples stop: the shared
    /// HERO7's last packet lasts 1.735 s for about 198 samples (one second's worth), and fitting
    /// its end made the timeline 2.8% too long (192.1 Hz where the payloads hold 197.5 Hz; the
    /// samples 244 ms late at the end).
    static func steadyEnds(_ ends: [(t: Double, total: Double)], _ spans: [(start: Double, duration: Double, count: Int)]) -> [(t: Double, total: Double)] {
        guard ends.count >= 3, ends.count == spans.count else { return ends }
        let others = spans.dropLast().map(\.duration).sorted()
        let median = others[others.count / 2]
        guard median > 0, spans.last!.duration > 1.1 * median else { return ends }
        return Array(ends.dropLast())
    }

    /// `fit`, with the payload ends that stray from the line by more than a twentieth of a
    /// payload's samples left out one at a time (the worst first, while three points remain):
    /// the shared HERO7's first two payloads hold 171 and 216 samples where the rest hold 198
    /// (the IMU starts during the first), and that one point tilted the line to 199.2 Hz; without
    /// it the payloads give 197.8 Hz. A steady stream (karma: 392 to 399 per 1001 ms packet at
    /// 397 Hz, a few samples off the line) keeps every point.
    static func robustFit(_ points: [(t: Double, total: Double)], samplesPerPayload: Int) -> (rate: Double, first: Double)? {
        var kept = points
        while var line = fit(kept) {
            let residuals = kept.map { abs($0.total - line.rate * ($0.t - line.first)) }
            guard kept.count > 3, let worst = residuals.indices.max(by: { residuals[$0] < residuals[$1] }),
                residuals[worst] > 0.05 * Double(max(1, samplesPerPayload))
            else { return line }
            kept.remove(at: worst)
            line = fit(kept) ?? line
        }
        return nil
    }

    /// To rad/s or m/s^2 from the units a stream states.
    static func unitFactor(_ units: String?) -> Double {
        switch units?.lowercased() {
        case "deg/s", "dps", "°/s": return Double.pi / 180
        case "g": return standardGravity
        default: return 1
        }
    }

    /// gpmf-parser's GetGPMFSampleRate (GPMF_SAMPLE_RATE_PRECISE): the least-squares line through
    /// (payload end time, samples delivered by then) over all payloads; its slope is the rate, and
    /// where it crosses zero samples is the first sample's time. Nil under two payloads.
    static func fit(_ points: [(t: Double, total: Double)]) -> (rate: Double, first: Double)? {
        guard points.count >= 2 else { return nil }
        let n = Double(points.count)
        let mx = points.map(\.t).reduce(0, +) / n, my = points.map(\.total).reduce(0, +) / n
        var top = 0.0, bottom = 0.0
        for p in points { top += (p.t - mx) * (p.total - my); bottom += (p.t - mx) * (p.t - mx) }
        guard bottom > 0 else { return nil }
        let rate = top / bottom
        guard rate.isFinite, rate > 0 else { return nil }
        let intercept = my - rate * mx
        let first = -intercept / rate
        guard first.isFinite else { return nil }
        return (rate, first)
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
