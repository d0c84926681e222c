import ArgumentParser
import Foundation
import Lockstep

extension AudioCodec: ExpressibleByArgument {}

/// Segment renders and the encoder settings that make segments join by copy: shared by
/// `composite`, `snake`, `filter` and `stabilise`.
struct SegmentArguments: ParsableArguments {
    /// `--frames`' help, also `concat`'s (which takes no other segment option).
    static let framesHelp = ArgumentHelp(
        "Render only output frames A (included) to B (excluded) of the full render, with their global frame numbers in the provenance; the segment's times start at 0.", valueName: "A:B")

    @Option(help: Self.framesHelp)
    var frames: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Frames per GOP: an IDR frame (closed GOP, no scene-cut keyframes) every G frames (default 250; with --segments N, at most the output's frames / N, so that there are N segments).",
            valueName: "G"))
    var gop: Int?

    @Option(name: .customLong("audio-codec"), help: ArgumentHelp("aac, or flac (lossless, no priming: segments that join to the sample; needs a .mkv output).", valueName: "aac|flac"))
    var audioCodec: AudioCodec = .aac

    /// The range asked for; nil without `--frames` (validate() has refused a malformed one).
    var range: FrameRange? { frames.flatMap { try? FrameRange(parsing: $0) } }

    func validate() throws {
        guard let frames else { return }
        try asUsage { _ = try FrameRange(parsing: frames) }
    }

    func apply(to options: inout CompositeOptions) {
        options.frames = range
        options.encode.gop = gop ?? EncodeSettings().gop
        options.encode.audioCodec = audioCodec
    }
}
