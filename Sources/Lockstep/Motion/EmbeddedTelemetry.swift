import Media
import Motion

/// The reader of a movie's own motion telemetry (GoPro GPMF or CAMM): one `MotionTrace` on the
/// video's clock, with the axes the camera states and what it records about its picture.
public enum EmbeddedTelemetry {
    /// Reads the gyroscope and accelerometer from the movie's GPMF or CAMM track. Errors are one
    /// line naming the file: "PATH: has no GPMF or CAMM telemetry track", "PATH: GPMF payload 3
    /// of 13 (at 2.002 s): ...".
    public static func read(path: String) throws -> MotionTrace {
        let demuxer = try TelemetryDemuxer(path: path)
        let packets = try demuxer.packets().map { TelemetryPacket(bytes: $0.bytes, time: $0.time, duration: $0.duration) }
        let imu: IMUTelemetry
        let source: MotionTrace.CameraSource
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
        return MotionTrace(camera: imu, path: path, source: source)
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
