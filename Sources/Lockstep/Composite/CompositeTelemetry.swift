import Compositor
import Foundation
import Media
import Motion

/// Camera telemetry (GPMF) kept in the output of a job that keeps its one input's timeline:
/// `filter`, `snake`, `composite` of one input, and their cuts (`--frames A:B`), which cut the
/// telemetry with the picture. A blend of several inputs keeps none: no one camera's motion is
/// the picture's. Nor does an input placed in time (`--offsets`, `--trim`, `--sync audio`,
/// `--longest`), or one whose speed changes (index sync at another rate than its own).
extension CompositeJob {
    /// The input's telemetry and where the output's frame 0 lies on its clock (seconds from its
    /// first frame): tick A of the single pass is at A / fps, as the sound's first sample is.
    /// nil, with the sentence why when the user should hear it, when nothing is kept.
    static func keptTelemetry(
        _ options: CompositeOptions, readers: [MovieReader], frameRate: Rational, firstFrame: Int64
    ) throws -> (telemetry: CarriedTelemetry?, start: Double, notice: String?) {
        let none = (CarriedTelemetry?.none, 0.0, String?.none)
        guard options.inputs.count == 1 else { return none }
        let path = options.inputs[0]
        guard let carried = try CarriedTelemetry.read(path: path) else { return none }
        let kind = carried.format.kind == .gpmf ? "GPMF" : "CAMM"
        if let why = carried.format.unwritable {
            return (nil, 0, "\(path): its \(kind) telemetry track is not kept in the output: \(why)")
        }
        if options.placesInputsInTime {
            return (nil, 0, "\(path): its \(kind) telemetry track is not kept in the output: the input is placed in time (--offsets, --trim, --sync audio or --longest)")
        }
        let own = readers[0].video.nominalFrameRate ?? readers[0].video.frameRate
        if options.sync == .index, own != frameRate {
            return (nil, 0, "\(path): its \(kind) telemetry track is not kept in the output: at \(rateText(frameRate)) fps its frames play at another speed than the camera recorded them")
        }
        return (carried, (frameRate.inverse * firstFrame).seconds, nil)
    }

    /// The packets `carried` keeps from `start` on, on the output's clock: the GPMF payload that
    /// straddles the start loses its samples before it (`GPMFTrim`); one that cannot be parsed
    /// or written back is left out (the track then begins at the next payload).
    static func packets(_ carried: CarriedTelemetry, from start: Double) -> [TelemetryTrackPacket] {
        carried.cut(from: start) { packet, offset in
            guard carried.format.kind == .gpmf else { return nil }
            return try? GPMFTrim.droppingFront(of: packet.bytes, before: offset, duration: packet.duration)
        }
    }
}
