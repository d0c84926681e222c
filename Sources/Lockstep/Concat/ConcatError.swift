import Engine
import Foundation

/// Why concat's options cannot work together (`ConcatOptions.check()`), or its clips cannot be
/// joined as asked (`ConcatJob`). Each case renders the one line the user reads; durations are
/// kept as the user writes them ("0", "-1.5", "7/3").
public enum ConcatError: JobFailure, Equatable {
    case noClips
    case maxDurationNotPositive(String)
    case maxDurationUnderAFrame(String, frameRate: String)
    case crossfadeOutOfRange(limit: Int, got: Int)
    /// `option` (--max-duration, --size, --fps, --crossfade-ms) changes the picture's length, size or rate.
    case copyCannotRetime(option: String)
    case copyWithFilters
    case copyWithCut
    case copyWithFrames
    /// `option` is --hdr or --codec.
    case copyWithEncoding(option: String)
    case hdrWithFilters(hdr: String)

    public var description: String {
        switch self {
        case .noClips: "concat needs at least one clip."
        case .maxDurationNotPositive(let got): "--max-duration must be a positive number of seconds; got \(got)."
        case .maxDurationUnderAFrame(let duration, let frameRate): "--max-duration \(duration) is shorter than one frame at \(frameRate) fps."
        case .crossfadeOutOfRange(let limit, let got): "--crossfade-ms must be between 1 and \(limit); got \(got)."
        case .copyCannotRetime(let option):
            "--copy cannot be combined with \(option): copied video is not re-encoded, so it cannot be cut, scaled or retimed."
        case .copyWithFilters: "--copy cannot be combined with --filter or --filter-at: copied video is not decoded, so it cannot be filtered."
        case .copyWithCut: "--copy cannot be combined with --from/--to: copied video is not re-encoded, so it cannot be cut inside a GOP."
        case .copyWithFrames: "--copy cannot be combined with --frames: copied video is not re-encoded, so it cannot be cut inside a GOP."
        case .copyWithEncoding(let option):
            "--copy cannot be combined with \(option): copied video is not re-encoded, so its codec and signal are the clips'."
        case .hdrWithFilters(let hdr):
            "--hdr \(hdr) cannot be combined with filters: they work on the SDR working signal (8-bit BT.709); filter in SDR, or join without them."
        }
    }
}
