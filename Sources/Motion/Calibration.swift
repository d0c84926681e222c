import Foundation

/// A device profile: how to turn an IMU's readings into the camera's motion on the video's clock.
/// Stored as JSON in Calibration/ (see Calibration/README.md for what each field means).
public struct Calibration: Codable, Equatable, Sendable {
    public var name: String
    /// IMU axes to camera axes: camera = matrix * imu.
    public var axisMapping: AxisMapping
    /// Gyro bias in rad/s, in IMU axes: subtracted before mapping.
    public var gyroBias: [Double]
    /// Added to IMU timestamps to put them on the video's clock.
    public var timeOffsetMs: Double
    /// Focal length in pixels of the video as stored; or derived from `horizontalFOVDeg`.
    public var focalLengthPx: Double?
    public var horizontalFOVDeg: Double?
    /// The lens's distortion term where `calibrate` searched the lens: `focalLengthPx` is then
    /// the f of r = f * theta * (1 + distortionK1 * theta^2) (OpenCV's fisheye model with one
    /// term; about 1/3 for a rectilinear lens, 0 for an equidistant fisheye). Nil: the focal
    /// length is a pinhole's (or the picture's centre's scale).
    public var distortionK1: Double?
    /// Rolling shutter: time from the first row to the last.
    public var frameReadoutMs: Double?
    /// The standard error of `frameReadoutMs` where `calibrate` estimated it (ms).
    public var frameReadoutUncertaintyMs: Double?
    /// Clock drift of the IMU against the video, ppm: offset(v) = timeOffsetMs + clockDriftPpm * 1e-6 * v * 1000 ms.
    public var clockDriftPpm: Double?
    /// Where the IMU's clock jumped: one line per stretch (see ClockMapping). Overrides the two fields above.
    public var clockPieces: [ClockMapping.Piece]?
    /// The windows `calibrate` measured the offset in and used for the clock mapping.
    public var syncPoints: [SyncPoint]?
    /// How `axisMapping` was decided (absent in hand-written profiles).
    public var axisMappingSource: AxisMappingSource?
    /// True when `calibrate` estimated `focalLengthPx` from the picture's motion against the gyro.
    public var focalLengthEstimated: Bool?
    /// `calibrate`'s confidence in this profile, 0 to 1 (scale: Calibration/README.md).
    public var confidence: Double?

    /// The clock mapping this profile states: its pieces, else its offset and drift.
    public var clock: ClockMapping {
        get {
            if let p = clockPieces, !p.isEmpty { return ClockMapping(pieces: p) }
            return .constant(offsetMs: timeOffsetMs, driftPpm: clockDriftPpm ?? 0)
        }
        set {
            let first = newValue.pieces[0]
            timeOffsetMs = first.offsetMs
            clockDriftPpm = first.driftPpm == 0 ? nil : first.driftPpm
            clockPieces = newValue.pieces.count > 1 ? newValue.pieces : nil
        }
    }

    public init(
        name: String, axisMapping: AxisMapping = .identity, gyroBias: [Double] = [0, 0, 0], timeOffsetMs: Double = 0,
        focalLengthPx: Double? = nil, horizontalFOVDeg: Double? = nil, frameReadoutMs: Double? = nil
    ) {
        self.name = name; self.axisMapping = axisMapping; self.gyroBias = gyroBias; self.timeOffsetMs = timeOffsetMs
        self.focalLengthPx = focalLengthPx; self.horizontalFOVDeg = horizontalFOVDeg; self.frameReadoutMs = frameReadoutMs
    }

    /// Focal length in pixels for a picture `width` pixels wide.
    public func focalLength(forWidth width: Int) -> Double? {
        if let f = focalLengthPx { return f }
        guard let fov = horizontalFOVDeg, fov > 0, fov < 180 else { return nil }
        return Double(width) / 2 / tan(fov * .pi / 360)
    }

    /// A profile from its JSON (`source` names it in errors). Reading the file is MotionIO's
    /// `Calibration.load(_:)`.
    public static func decode(_ data: Data, source: String) throws -> Calibration {
        do {
            let c = try JSONDecoder().decode(Calibration.self, from: data)
            guard c.gyroBias.count == 3 else { throw CalibrationError("\(source): gyroBias needs 3 numbers (x, y, z)") }
            if let problem = c.outOfRange { throw CalibrationError("\(source): \(problem)") }
            return c
        } catch let e as CalibrationError { throw e } catch {
            throw CalibrationError("\(source): not a calibration profile (\(MessageText.quote(reason(error), limit: 200)))")
        }
    }

    /// A decoding error in a few words (its full description is a nested dump with the JSON
    /// parser's NSError inside).
    static func reason(_ error: Error) -> String {
        guard let e = error as? DecodingError else { return "\(error)" }
        func at(_ c: DecodingError.Context) -> String {
            c.codingPath.isEmpty ? c.debugDescription : c.codingPath.map(\.stringValue).joined(separator: ".") + ": " + c.debugDescription
        }
        switch e {
        case .keyNotFound(let key, _): return "no \(key.stringValue)"
        case .dataCorrupted(let c), .typeMismatch(_, let c), .valueNotFound(_, let c): return at(c)
        @unknown default: return "\(e)"
        }
    }

    /// The first field outside what a device can have, as a phrase (nil: all fine). The same
    /// bounds as the command-line options that set them: a profile's `timeOffsetMs` of 1e300
    /// reached the snake's integer nanoseconds.
    var outOfRange: String? {
        func bad(_ v: Double?, _ range: ClosedRange<Double>) -> Bool { v.map { !range.contains($0) } ?? false }
        if gyroBias.contains(where: { !(-100...100).contains($0) }) { return "gyroBias must be 3 numbers between -100 and 100 rad/s" }
        if bad(timeOffsetMs, -3_600_000...3_600_000) { return "timeOffsetMs must be between -3600000 and 3600000" }
        if let f = focalLengthPx, !(f > 0 && f <= 1_000_000) { return "focalLengthPx must be above 0 and at most 1000000" }
        if let f = horizontalFOVDeg, !(f > 0 && f < 180) { return "horizontalFOVDeg must be above 0 and below 180" }
        if bad(distortionK1, -1...10) { return "distortionK1 must be between -1 and 10" }
        if bad(frameReadoutMs, 0...10_000) { return "frameReadoutMs must be between 0 and 10000" }
        if bad(frameReadoutUncertaintyMs, 0...10_000) { return "frameReadoutUncertaintyMs must be between 0 and 10000" }
        if bad(clockDriftPpm, -100_000...100_000) { return "clockDriftPpm must be between -100000 and 100000" }
        if bad(confidence, 0...1) { return "confidence must be between 0 and 1" }
        for p in clockPieces ?? []
        where bad(p.fromVideoS, -86_400...86_400 * 365) || bad(p.offsetMs, -3_600_000...3_600_000)
            || bad(p.driftPpm, -100_000...100_000)
        {
            return "clockPieces: each needs fromVideoS, offsetMs within an hour and driftPpm within 100000"
        }
        return nil
    }

    /// The profile as JSON, keys sorted (MotionIO's `save(_:)` writes it).
    public func encoded() throws -> Data {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try enc.encode(self)
    }
}

/// Where a profile's axis mapping came from.
public enum AxisMappingSource: String, Codable, Sendable, CaseIterable {
    /// `--axis-mapping`.
    case given
    /// The base profile (`--calibration`).
    case profile
    /// The trace itself: a gcsv's `orientation` line, a camera file's own metadata.
    case trace
    /// The orientation search of `calibrate`.
    case searched
}

public struct CalibrationError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Why calibrate could not answer, as a kind the caller can phrase for what it knows (a
    /// stabilised picture, the trace's source).
    public enum Cause: String, Sendable, Equatable {
        case tooLittleMotion, offsetOutsideRange, axes, noSyncPoint, lowConfidence, implausibleFocalLength, stabilised, other
    }
    public var description: String
    public var cause: Cause
    /// The search's view when it got that far.
    public var diagnosis: Diagnosis?
    public init(_ d: String, cause: Cause = .other, diagnosis: Diagnosis? = nil) { description = d; self.cause = cause; self.diagnosis = diagnosis }
    public static func == (a: CalibrationError, b: CalibrationError) -> Bool { a.description == b.description && a.cause == b.cause }
}

/// What the orientation search saw: the best orientation's peak, the one used, and a stated one's.
public struct Diagnosis: Sendable {
    public var orientation: String
    public var score: Double
    public var offsetMs: Double
    public var used: String
    public var usedScore: Double
    public var stated: (orientation: String, score: Double?)?
}

/// IMU-to-camera axes: a 3x3 matrix, or an orientation string as Gyroflow writes it: the letter
/// at position i names the IMU axis that becomes camera axis i; lowercase means inverted
/// ("XYZ" is identity, "xzY" is camera x = -imu x, camera y = -imu z, camera z = imu y).
public enum AxisMapping: Equatable, Sendable {
    case orientation(String)
    case matrix([[Double]])

    public static let identity = AxisMapping.orientation("XYZ")

    public var rows: [[Double]] {
        switch self {
        case .matrix(let m): return m
        case .orientation(let s):
            return s.map { c -> [Double] in
                let sign: Double = c.isUppercase ? 1 : -1
                switch c.lowercased() {
                case "x": return [sign, 0, 0]
                case "y": return [0, sign, 0]
                default: return [0, 0, sign]
                }
            }
        }
    }

    public func apply(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let m = rows
        return SIMD3(
            m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z,
            m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
            m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z)
    }

    /// A Gyroflow `orientation` string (gcsv header, Gyroflow's "IMU orientation") as a mapping
    /// into Lockstep's camera axes. Gyroflow applies the string as Lockstep does (letter i names
    /// the IMU axis that becomes axis i, lowercase inverted: telemetry-parser's `orient`,
    /// gyroflow's imu_transforms.rs), but into its own gyro frame, which is (up, left, backward)
    /// in camera terms: its optical-flow sync turns a pose rotation in OpenCV's axes (x right,
    /// y down, z forward: Lockstep's) into gyro rates by swapping x and y (synchronization/mod.rs,
    /// "Swap X and Y"), and a pose is the inverse of the camera's turn, so every sign flips; the
    /// gcsv docs' figure for "YxZ" shows an IMU with x right, y up, z out of the back. So camera
    /// = [[0,-1,0],[-1,0,0],[0,0,-1]] * Gyroflow's: camera x is Gyroflow's y negated, camera y
    /// its x negated, camera z its z negated ("xyZ" here is "YXz"; the default "xzY" is "ZXy").
    public static func gyroflow(_ orientation: String) -> AxisMapping? {
        guard isValidOrientation(orientation) else { return nil }
        let c = Array(orientation)
        func flip(_ ch: Character) -> Character { ch.isUppercase ? Character(ch.lowercased()) : Character(ch.uppercased()) }
        return .orientation(String([flip(c[1]), flip(c[0]), flip(c[2])]))
    }

    /// The orientation string, or the matrix's rows as text.
    public var orientationText: String {
        switch self {
        case .orientation(let s): return s
        case .matrix(let m): return "[" + m.map { "[" + $0.map { "\($0)" }.joined(separator: ",") + "]" }.joined(separator: ",") + "]"
        }
    }

    public static func isValidOrientation(_ s: String) -> Bool {
        s.count == 3 && Set(s.lowercased()) == ["x", "y", "z"]
    }
}

extension AxisMapping: Codable {
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) {
            guard AxisMapping.isValidOrientation(s) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "axisMapping \"\(s)\" is not an orientation like XYZ or xzY")
            }
            self = .orientation(s)
        } else {
            let m = try c.decode([[Double]].self)
            guard m.count == 3, m.allSatisfy({ $0.count == 3 }) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "axisMapping matrix must be 3x3")
            }
            self = .matrix(m)
        }
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .orientation(let s): try c.encode(s)
        case .matrix(let m): try c.encode(m)
        }
    }
}
