import Compositor
import Foundation

/// Output frames [start, end) of a render (`--frames A:B`, 0-based, B excluded): a segment of
/// the movie the same arguments make in one pass. Frame k of the segment is frame `start + k`
/// of the single pass (its provenance says so); the segment's own times start at 0.
///
/// Every end a user gives is a frame number, however large, and a range that reaches past the
/// single pass's end is refused with `pastEnd`'s sentence. Only a cut `--from T` with no `--to`
/// is open (`end` nil): it runs to the single pass's end (`resolved`). The open end was once
/// `Int64.max` in-band, and `--frames 0:9223372036854775807` was read as `0:` (rendered whole).
public struct FrameRange: Equatable, Sendable, CustomStringConvertible {
    public let start: Int64
    /// One past the last frame; nil: open, to the single pass's end (until `resolved`).
    public let end: Int64?
    /// The cut by time this range was resolved from (`--from/--to`), named in its errors.
    public var cut: TimeCut?

    public init(start: Int64, end: Int64?) {
        precondition(start >= 0 && end.map { $0 > start } != false, "frames \(start):\(end.map(String.init) ?? "")")
        self.start = start; self.end = end
    }

    /// "A:B" as the user typed it; the error is the sentence the CLI shows (exit 64).
    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = Int64(parts[0]), let b = Int64(parts[1]) else {
            throw CutError.notARange(text)
        }
        guard a >= 0 else { throw CutError.negativeStart(text) }
        guard b > a else { throw CutError.emptyRange(text) }
        self.init(start: a, end: b)
    }

    /// A cut by time resolved at `frameRate` (an open end stays open: `resolved(length:)`).
    public init(_ cut: TimeCut, frameRate: Rational) {
        let (a, b) = cut.frames(frameRate: frameRate)
        self.init(start: a, end: b)
        self.cut = cut
    }

    public var isOpen: Bool { end == nil }

    /// An open end closed at the single pass's length (an error when the cut starts past it).
    func resolved(length: Int64, input: Int, path: String, frameRate: Rational) throws -> FrameRange {
        guard end == nil else { return self }
        guard start < length else { throw Self.pastEnd(self, input: input, path: path, frames: length, frameRate: frameRate) }
        var r = FrameRange(start: start, end: length)
        r.cut = cut
        return r
    }

    /// Frames in the range; nil while it is open.
    public var count: Int64? { end.map { $0 - start } }
    public var description: String { "\(start):\(end.map(String.init) ?? "")" }

    /// The first sample (48 kHz) of the segment's audio and one past its last: the single pass
    /// cuts its audio at `samples(frames)` with the same rounding, so consecutive segments'
    /// samples add up to the single pass's exactly.
    /// An open range's samples run to its single pass's end: nil.
    public func samples(frameRate: Rational, sampleRate: Int) -> Range<Int64>? {
        guard let end else { return nil }
        return AudioTimeline.samples(coveringFrames: start, frameRate: frameRate, sampleRate: sampleRate)..<AudioTimeline.samples(coveringFrames: end, frameRate: frameRate, sampleRate: sampleRate)
    }

    /// The error when the range reaches past the output the single pass would make.
    static func pastEnd(_ range: FrameRange, input: Int, path: String, frames: Int64, frameRate: Rational) -> CutError {
        if let cut = range.cut {
            let end = String(format: "%.3f", (frameRate.inverse * frames).seconds)
            return .cutPastEnd(cut: "\(cut)", input: input, path: path, end: end, frames: frames)
        }
        return .rangePastEnd(range: "\(range)", input: input, path: path, frames: frames)
    }
}

extension CompositeOptions {
    /// `--gop` and `--audio-codec` against the output (FLAC only into Matroska).
    func checkSegment() throws { try Self.check(layout: encode, audio: audio, output: output) }

    /// The same rules for every command that encodes frames (concat, reverse too): a GOP of
    /// 1-10000 frames; an audio codec the output's container takes, when it has sound.
    public static func check(layout encode: EncodeSettings, audio: Bool, output: String) throws {
        guard (1...10_000).contains(encode.gop) else { throw CutError.gopOutOfRange(encode.gop) }
        let container = OutputPath.container(for: output)
        if audio, !encode.audioCodec.containers.contains(container) {
            throw CutError.audioCodecNeedsMKV(codec: encode.audioCodec.rawValue, output: output)
        }
    }
}
