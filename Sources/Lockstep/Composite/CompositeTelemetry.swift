import Compositor
import Foundation
import Media
import Motion

/// Camera telemetry (GPMF, CAMM) kept in the output of a job that keeps its one input's
/// timeline: `filter`, `filter --variants`, `snake`, `composite` of one input, and their cuts
/// (`--frames A:B`, `--from/--to`), which cut the telemetry with the picture. A blend of several
/// inputs keeps none: no one camera's motion is the picture's. Nor does an input placed in time
/// (`--offsets`, `--trim`, `--sync audio`, `--longest`), one whose speed changes (index sync at
/// another rate than its own), or a stabilised one (`stabilise`, `--stabilise`: its picture
/// no longer turns as its gyro says, and a tool stabilising the output from the carried gyro
/// would correct it twice). `reverse` keeps none either: its time runs backwards
/// (ReverseJob writes no telemetry track, and says so: `notKeptLine(path:why:)`).
extension CompositeJob {
    /// The input's telemetry and where the output's frame 0 lies on its clock (seconds from its
    /// first frame): tick A of the single pass is at A / fps, as the sound's first sample is.
    /// nil, with the sentence why when the user should hear it, when nothing is kept.
    static func keptTelemetry(
        _ options: CompositeOptions, readers: [MovieReader], frameRate: Rational, firstFrame: Int64
    ) throws -> (telemetry: CarriedTelemetry?, start: Double, notice: String?) {
        guard options.inputs.count == 1 else { return (nil, 0, nil) }
        let why: String?
        if options.placesInputsInTime {
            why = "the input is placed in time (--offsets, --trim, --sync audio or --longest)"
        } else if options.stabilise?.applies(to: 0) == true {
            why = Self.stabilisedTelemetry
        } else {
            why = nil
        }
        return try keptTelemetry(path: options.inputs[0], reader: readers[0], sync: options.sync, frameRate: frameRate, firstFrame: firstFrame, refused: why)
    }

    /// The line that tells the user `path`'s track is left out, and why.
    static func notKeptLine(path: String, _ carried: CarriedTelemetry, why: String) -> String {
        notKeptLine(path: path, carried.format.kind, why: why)
    }

    static func notKeptLine(path: String, _ kind: TelemetryTrackKind, why: String) -> String {
        "\(path): its \(kind == .gpmf ? "GPMF" : "CAMM") telemetry track is not kept in the output: \(why)"
    }

    /// The line for a job that never keeps telemetry (`reverse`), when `path` has a track: its
    /// stream list says so, none of the track is read (a regular file only, as `carried`).
    static func notKeptLine(path: String, why: String) throws -> String? {
        guard isRegularFile(path) else { return nil }
        return try TelemetryDemuxer.trackKind(path: path).map { notKeptLine(path: path, $0, why: why) }
    }

    private static func isRegularFile(_ path: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular
    }

    /// `path`'s telemetry track; nil without one, or when `path` is not a regular file (a pipe
    /// is read once, by the decoder: a second reader here would take its bytes).
    static func carried(path: String) throws -> CarriedTelemetry? {
        isRegularFile(path) ? try CarriedTelemetry.read(path: path) : nil
    }

    /// Why a reversed input's telemetry is not kept.
    static let reversedTelemetry = "the output's time runs backwards: the camera's samples would not match its picture"

    /// Why a stabilised input's telemetry is not kept.
    static let stabilisedTelemetry = "the picture is stabilised: it no longer moves as the camera's gyro says"

    /// One input's telemetry as `keptTelemetry(_:readers:frameRate:firstFrame:)` gives it, for
    /// the jobs with one input (`filter --variants` too); `refused`: the job's own reason not
    /// to keep it, said only when the input has a track.
    static func keptTelemetry(
        path: String, reader: MovieReader, sync: SyncMode, frameRate: Rational, firstFrame: Int64, refused: String? = nil
    ) throws -> (telemetry: CarriedTelemetry?, start: Double, notice: String?) {
        guard let carried = try Self.carried(path: path) else { return (nil, 0, nil) }
        func notKept(_ why: String) -> (telemetry: CarriedTelemetry?, start: Double, notice: String?) {
            (nil, 0, notKeptLine(path: path, carried, why: why))
        }
        if let refused { return notKept(refused) }
        let own = reader.video.nominalFrameRate ?? reader.video.frameRate
        if sync == .index, own != frameRate {
            return notKept("at \(rateText(frameRate)) fps its frames play at another speed than the camera recorded them")
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
