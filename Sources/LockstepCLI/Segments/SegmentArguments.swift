import ArgumentParser
import Foundation
import Lockstep

/// Segment renders and the encoder settings that make segments join by copy: shared by
/// `composite`, `snake`, `filter` and `stabilise` (`reverse` takes `--frames` and the
/// settings too, with its own meaning of the range; `concat` the settings).
struct SegmentArguments: ParsableArguments {
    /// `--frames`' help, also `concat`'s (which takes no other segment option).
    static let framesHelp = ArgumentHelp(
        "Render only output frames A (included) to B (excluded) of the full render, with their global frame numbers in the provenance; the segment's times start at 0.", valueName: "A:B")

    @Option(help: Self.framesHelp)
    var frames: String?

    @OptionGroup var layout: GOPAndAudioCodecArguments
    /// `--gop` as given (nil: the default, which a scale-out may lower).
    var gop: Int? { layout.gop }

    /// The range asked for; nil without `--frames` (validate() has refused a malformed one).
    var range: FrameRange? { frames.flatMap { try? FrameRange(parsing: $0) } }

    func validate() throws {
        guard let frames else { return }
        try asUsage { _ = try FrameRange(parsing: frames) }
    }

    func apply(to options: inout CompositeOptions) {
        options.frames = range
        layout.apply(to: &options.encode)
    }
}
