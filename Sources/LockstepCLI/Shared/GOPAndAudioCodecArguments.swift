import ArgumentParser
import Lockstep

extension AudioCodec: ExpressibleByArgument {}

/// `--gop` and `--audio-codec`: how the output's streams are laid out, shared by every command
/// that encodes frames (composite, snake, filter and stabilise through `SegmentArguments`;
/// concat and reverse), with one meaning and one check (`EncodeSettings.checkLayout`).
struct GOPAndAudioCodecArguments: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Frames per GOP: an IDR frame (closed GOP, no scene-cut keyframes) every G frames (default 250; with --segments N, at most the output's frames / N, so that there are N segments).",
            valueName: "G"))
    var gop: Int?

    @Option(name: .customLong("audio-codec"), help: ArgumentHelp("aac, or flac (lossless, no priming: segments that join to the sample; needs a .mkv output).", valueName: "aac|flac"))
    var audioCodec: AudioCodec = .aac

    func apply(to settings: inout EncodeSettings) {
        settings.gop = gop ?? EncodeSettings().gop
        settings.audioCodec = audioCodec
    }
}
