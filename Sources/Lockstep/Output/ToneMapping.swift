import Compositor
import Media

/// What every command that converts its inputs into one working signal says and passes on about
/// HDR: the inputs tone-mapped (never silently: joined HDR phone clips once came out SDR with no
/// word), and the first HDR input's mastering display and light levels for an HDR output.
enum ToneMapping {
    /// One line naming the HDR inputs the output's signal brings down (HDR into SDR, PQ into
    /// HLG) and how, or nil when none is.
    static func notice(_ inputs: [(path: String, video: VideoInfo)], signal: WorkingSignal, curve: ToneCurve) -> String? {
        let mapped = inputs.enumerated().compactMap { i, r -> String? in
            guard let d = r.video.color.description, d.isHDR else { return nil }
            let transfer = d.transfer == .hlg ? "HLG" : "PQ"
            switch signal {
            case .sdr: return "input \(i + 1) (\(r.path), \(transfer))"
            case .hlg: return d.transfer == .pq ? "input \(i + 1) (\(r.path), PQ)" : nil
            case .pq: return nil
            }
        }
        guard !mapped.isEmpty else { return nil }
        let into = signal == .sdr ? "SDR BT.709" : "HLG"
        let keep = signal == .sdr ? "; --hdr hlg or --hdr pq keeps HDR" : ""
        return "HDR tone-mapped into \(into) with --tonemap \(curve.rawValue): " + mapped.joined(separator: ", ") + keep
    }

    /// `encode` for pictures in `signal`: an HDR output passes on the first HDR input's
    /// mastering display and light levels (its stream's, else its first picture's).
    static func settings(_ encode: EncodeSettings, signal: WorkingSignal, inputs: [(path: String, video: VideoInfo)]) throws -> EncodeSettings {
        var encode = encode
        encode.signal = signal
        guard signal.isHDR else { return encode }
        for r in inputs where r.video.color.description?.isHDR == true {
            let hdr = try HDRMetadata.of(movie: r.path)
            if !hdr.isEmpty { encode.hdr = hdr; break }
        }
        return encode
    }
}
