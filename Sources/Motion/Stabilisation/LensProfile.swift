import Foundation

/// A lens profile as Gyroflow publishes them (the gyroflow/lens_profiles repository: one JSON per
/// camera, lens and mode): the size it was calibrated at, OpenCV's camera matrix and distortion
/// coefficients, the distortion model (`opencv_fisheye` when absent), and the rolling
/// shutter's readout. Only what the stabiliser uses is read; the rest of the file is ignored.
public struct LensProfile: Equatable, Sendable {
    public var name: String?
    public var calibWidth: Int, calibHeight: Int
    /// At the calibrated size.
    public var lens: CameraLens
    /// Milliseconds from the first row to the last, where the profile says.
    public var frameReadoutMs: Double?
    public var readoutBottomUp: Bool

    /// The models read here (Gyroflow's names).
    public static let models = ["opencv_fisheye", "opencv_standard"]

    /// A profile from its JSON; errors name `source` and the cause in one line.
    public static func decode(_ data: Data, source: String) throws -> LensProfile {
        let raw: Raw
        do { raw = try JSONDecoder().decode(Raw.self, from: data) } catch {
            throw LensProfileError("\(source): not a Gyroflow lens profile (\(MessageText.quote(Calibration.reason(error), limit: 160)))")
        }
        let m = raw.fisheye_params.camera_matrix
        guard m.count == 3, m.allSatisfy({ $0.count == 3 }) else { throw LensProfileError("\(source): fisheye_params.camera_matrix must be 3x3") }
        let (fx, fy, cx, cy) = (m[0][0], m[1][1], m[0][2], m[1][2])
        let w = raw.calib_dimension.w, h = raw.calib_dimension.h
        guard w > 0, h > 0, w <= 100_000, h <= 100_000 else { throw LensProfileError("\(source): calib_dimension must be a size in pixels; got \(w)x\(h)") }
        guard [fx, fy, cx, cy].allSatisfy({ $0.isFinite }), fx > 0, fy > 0 else {
            throw LensProfileError("\(source): fisheye_params.camera_matrix needs positive focal lengths")
        }
        let k = raw.fisheye_params.distortion_coeffs
        guard k.allSatisfy({ $0.isFinite && abs($0) < 1e6 }) else { throw LensProfileError("\(source): distortion_coeffs must be finite numbers") }
        let name = raw.distortion_model ?? "opencv_fisheye"
        let model: CameraLens.Model
        switch name {
        case "opencv_fisheye":
            guard k.count >= 4 else { throw LensProfileError("\(source): opencv_fisheye needs 4 distortion_coeffs; got \(k.count)") }
            model = .opencvFisheye(k: Array(k.prefix(4)))
        case "opencv_standard":
            guard k.count >= 4 else { throw LensProfileError("\(source): opencv_standard needs at least 4 distortion_coeffs (k1, k2, p1, p2); got \(k.count)") }
            model = .opencvStandard(k: Array(k.prefix(8)))
        default:
            throw LensProfileError("\(source): distortion_model \"\(name)\" is not one Lockstep reads (\(models.joined(separator: " or ")))")
        }
        if let r = raw.frame_readout_time, !(r.isFinite && r >= 0 && r <= 1000) {
            throw LensProfileError("\(source): frame_readout_time must be between 0 and 1000 ms; got \(r)")
        }
        return LensProfile(
            name: raw.name, calibWidth: w, calibHeight: h, lens: CameraLens(fx: fx, fy: fy, cx: cx, cy: cy, model: model),
            frameReadoutMs: raw.frame_readout_time, readoutBottomUp: raw.frame_readout_direction == "BottomToTop")
    }

    /// The lens for a picture `width` x `height`: the profile scaled by the width's ratio, when the
    /// picture has the calibrated shape (within 1%); else a sentence saying it is another size's.
    public func lens(width: Int, height: Int, source: String) throws -> CameraLens {
        let sx = Double(width) / Double(calibWidth), sy = Double(height) / Double(calibHeight)
        guard abs(sx / sy - 1) <= 0.01 else {
            throw LensProfileError(
                "\(source): a lens profile for \(calibWidth)x\(calibHeight) pictures, not for this clip's \(width)x\(height) (another shape: another mode of the camera)")
        }
        return lens.scaled(sx)
    }

    /// The JSON's fields, as Gyroflow names them.
    struct Raw: Decodable {
        struct Dimension: Decodable { var w: Int; var h: Int }
        struct Fisheye: Decodable {
            var camera_matrix: [[Double]]
            var distortion_coeffs: [Double]
        }
        var name: String?
        var calib_dimension: Dimension
        var fisheye_params: Fisheye
        var distortion_model: String?
        var frame_readout_time: Double?
        var frame_readout_direction: String?
    }
}

public struct LensProfileError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}
