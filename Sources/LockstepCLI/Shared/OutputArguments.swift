import ArgumentParser
import Lockstep

extension DeinterlaceMode: ExpressibleByArgument {}
extension ToneCurve: ExpressibleByArgument {}
extension VideoCodec: ExpressibleByArgument {}

/// `--hdr`: keep HDR in the output.
enum HDRChoice: String, CaseIterable, ExpressibleByArgument {
    case hlg, pq
    var signal: WorkingSignal { self == .hlg ? .hlg : .pq }
}

/// The output options every frame-producing command takes (composite, concat, filter and its
/// --variants, snake, reverse), with one help text and one meaning. Each is nil when not given,
/// so that a command that cannot honour one refuses it by name (`refuse`) rather than ignore it.
struct OutputArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Output size, even numbers; the picture is fitted into it (default: the first input's display size).", valueName: "WxH"))
    var size: Size?

    @Option(help: ArgumentHelp("Output frame rate (default: the first input's nominal rate, e.g. 29.97 for a phone's variable-rate clip).", valueName: "N[/D]"))
    var fps: Rational?

    @Option(
        help: ArgumentHelp(
            "Keep HDR: a 10-bit output in BT.2020, tagged HLG or PQ, every input converted to it (SDR ones with their white at 203 nits); HEVC unless --codec says prores or dnxhr. Default: SDR BT.709.",
            valueName: "hlg|pq"))
    var hdr: HDRChoice?

    @Option(
        name: .customLong("tonemap"),
        help: ArgumentHelp(
            "How HDR (HLG, PQ) inputs are brought into SDR (or PQ into HLG): FFmpeg's tonemap curves, applied to the largest of R, G, B in linear light (default: hable). Each tone-mapped input is named in a notice.",
            valueName: "hable|mobius|reinhard|clip"))
    var toneCurve: ToneCurve?

    @Option(
        help: ArgumentHelp(
            "Interlaced inputs (field order from the stream or the codec): off leaves the fields woven, frame gives one picture per frame (the default), field one per field (twice the rate). Progressive inputs are never touched.",
            valueName: "off|frame|field"))
    var deinterlace: DeinterlaceMode?

    @Option(
        help: ArgumentHelp(
            "h264 (libx264, SDR only; the SDR default), hevc (libx265; 10-bit under --hdr, the HDR default), prores (ProRes 422 HQ, 10-bit 4:2:2, .mov) or dnxhr (DNxHR HQ, or HQX 10-bit under --hdr; 4:2:2, .mov). ProRes and DNxHR frames carry no provenance (`lockstep verify` says so).",
            valueName: "h264|hevc|prores|dnxhr"))
    var codec: VideoCodec?

    @Option(help: ArgumentHelp("Constant rate factor of h264 and hevc, 0 (lossless) to 51 (default: 18).", valueName: "N"))
    var crf: Int?

    @Option(help: ArgumentHelp("Encoder preset of h264 and hevc (default: veryfast).", valueName: "ultrafast...placebo"))
    var preset: String?

    /// The encoder settings (gop and audio codec at their defaults: `SegmentArguments` sets them).
    var settings: EncodeSettings {
        var s = EncodeSettings(crf: crf ?? EncodeSettings().crf, preset: preset ?? EncodeSettings().preset)
        s.codec = codec
        return s
    }

    var signal: WorkingSignal { hdr?.signal ?? .sdr }
    var tone: ToneCurve { toneCurve ?? .hable }

    /// The rules on these options alone (--crf, --preset, --size, --fps, and --codec against
    /// --hdr, --crf and --preset); the output's container and segment renders are the command's
    /// (it knows -o and --frames), through the library's `check(codec:...)`.
    func validate() throws {
        try asUsage {
            try CompositeOptions.check(encode: settings)
            try CompositeOptions.check(size: size, frameRate: fps, signal: signal, codec: codec)
            try CompositeOptions.check(codec: codec, signal: signal, output: nil, rateFactorGiven: crf != nil, presetGiven: preset != nil)
        }
    }

    /// The codec against the output's name (`-o`) and a scale-out (`--segments`): one
    /// sentence naming both options.
    func check(output: String, segments: Bool = false) throws {
        try asUsage { try CompositeOptions.check(codec: codec, signal: signal, output: output, segments: segments) }
    }

    /// Composite, filter and snake: everything into the composite options.
    func apply(to options: inout CompositeOptions) {
        options.size = size
        options.frameRate = fps
        options.deinterlace = deinterlace ?? .frame
        options.toneCurve = tone
        options.signal = signal
        options.encode.crf = settings.crf
        options.encode.preset = settings.preset
        options.encode.codec = codec
    }
}
