import Engine
import Foundation

/// Why a cut (`--frames A:B`, `--from`/`--to`) or a segment's output settings cannot work. Each
/// case renders the one line the user reads.
public enum CutError: JobFailure, Equatable {
    case notARange(String)
    case negativeStart(String)
    case emptyRange(String)
    case notATime(option: String, text: String)
    /// Longer than `TimeCut.longest`: `--from 9223372036854775807` trapped in the frame arithmetic.
    case tooLate(option: String, text: String)
    case endsBeforeStart(from: String, to: String)
    /// `--to 0` (or 0:00...) without a `--from`: a cut of no frames.
    case endsAtZero(String)
    /// The cut (`cut`, as `TimeCut` says it) reaches past the output input `input` (0-based) ends.
    case cutPastEnd(cut: String, input: Int, path: String, end: String, frames: Int64)
    case rangePastEnd(range: String, input: Int, path: String, frames: Int64)
    case gopOutOfRange(Int)
    case audioCodecNeedsMKV(codec: String, output: String)

    public var description: String {
        switch self {
        case .notARange(let text): "--frames \(text): expected A:B, two whole numbers of output frames (A included, B excluded)."
        case .negativeStart(let text): "--frames \(text): A must be 0 or more."
        case .emptyRange(let text): "--frames \(text): B must be greater than A."
        case .notATime(let option, let text): "\(option) \(text): expected a time in seconds (12.5) or HH:MM:SS.mmm (00:01:02.500), 0 or more."
        case .tooLate(let option, let text): "\(option) \(text): later than any movie's end (at most 1000000 hours)."
        case .endsBeforeStart(let from, let to): "--from \(from) --to \(to): the cut must end after it starts."
        case .endsAtZero(let to): "--to \(to): the cut must end after 0 (the output's start)."
        case .cutPastEnd(let cut, let input, let path, let end, let frames):
            "\(cut): input \(input + 1) (\(path)) ends the output at \(end) s (\(frames) frames); the cut must lie within 0-\(end) s."
        case .rangePastEnd(let range, let input, let path, let frames):
            "--frames \(range): input \(input + 1) (\(path)) ends the output after \(frames) frames; the range must lie within 0:\(frames)."
        case .gopOutOfRange(let gop): "--gop \(gop): the GOP length must be between 1 and 10000 frames."
        case .audioCodecNeedsMKV(let codec, let output):
            "--audio-codec \(codec) needs a .mkv output (FFmpeg 5.1 writes FLAC into Matroska; into MP4 only as an experimental feature); got \(output)."
        }
    }
}
