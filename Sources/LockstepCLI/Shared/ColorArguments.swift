import ArgumentParser
import Lockstep

extension DeinterlaceMode: ExpressibleByArgument {}
extension ToneCurve: ExpressibleByArgument {}

/// `--hdr`: keep HDR in the output.
enum HDRChoice: String, CaseIterable, ExpressibleByArgument {
    case hlg, pq
    var signal: WorkingSignal { self == .hlg ? .hlg : .pq }
}

/// How inputs' colours and scanning are brought into the output: composite and filter.
struct ColorArguments: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Interlaced inputs (field order from the stream or the codec): off leaves the fields woven, frame gives one picture per frame, field one per field (twice the rate). Progressive inputs are never touched.",
            valueName: "off|frame|field"))
    var deinterlace: DeinterlaceMode = .frame

    @Option(
        name: .customLong("tonemap"),
        help: ArgumentHelp("How HDR (HLG, PQ) inputs are brought into SDR: FFmpeg's tonemap curves, applied to the largest of R, G, B in linear light.", valueName: "hable|mobius|reinhard|clip"))
    var toneCurve: ToneCurve = .hable

    @Option(
        help: ArgumentHelp(
            "Keep HDR: a 10-bit HEVC output in BT.2020, tagged HLG or PQ, every input converted to it (SDR ones with their white at 203 nits). Default: SDR BT.709 H.264.", valueName: "hlg|pq"))
    var hdr: HDRChoice?

    func apply(to options: inout CompositeOptions) {
        options.deinterlace = deinterlace
        options.toneCurve = toneCurve
        options.signal = hdr?.signal ?? .sdr
    }
}
