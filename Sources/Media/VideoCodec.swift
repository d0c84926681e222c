import CFFmpeg
import Compositor

/// `--codec`: the video codecs Lockstep writes, each through libavcodec's own encoder.
/// - h264: libx264, 8-bit 4:2:0 (SDR only: Lockstep offers no H.264 HDR).
/// - hevc: libx265, 8-bit 4:2:0 for SDR, 10-bit for HDR (Main, Main 10).
/// - prores: prores_ks, ProRes 422 HQ (10-bit 4:2:2), in MOV.
/// - dnxhr: dnxhd's DNxHR HQ (8-bit 4:2:2) for SDR, DNxHR HQX (10-bit 4:2:2) for HDR, in MOV.
public enum VideoCodec: String, CaseIterable, Sendable {
    case h264, hevc, prores, dnxhr

    /// The codec an output gets when none is asked for: H.264 for SDR, HEVC for HDR.
    public static func standard(for signal: WorkingSignal) -> VideoCodec { signal.isHDR ? .hevc : .h264 }

    /// Whether `--crf` and `--preset` mean anything: libx264's and libx265's rate factor and
    /// presets; ProRes and DNxHR are intra codecs of a fixed profile, with neither.
    public var hasRateFactor: Bool { self == .h264 || self == .hevc }

    /// Whether the codec can carry HDR (BT.2020 HLG or PQ): its 10-bit profiles.
    public var carriesHDR: Bool { self != .h264 }

    /// Whether the codec goes only into a MOV file (.mov): ProRes and DNxHR (MP4 has no sample
    /// entry for either in FFmpeg's muxer).
    public var needsMOV: Bool { self == .prores || self == .dnxhr }

    /// Whether each frame's provenance travels in the stream (a user-data SEI, which `verify`
    /// reads back): H.264 and HEVC. ProRes and DNxHR frames have no place for it.
    public var carriesProvenance: Bool { self == .h264 || self == .hevc }

    /// Whether a segment render (`--frames`, `--segments`) can be written in it: its joins by
    /// copy are H.264 only.
    public var rendersSegments: Bool { self == .h264 }

    /// The encoder's name in libavcodec.
    var encoderName: String {
        switch self {
        case .h264: "libx264"
        case .hevc: "libx265"
        case .prores: "prores_ks"
        case .dnxhr: "dnxhd"
        }
    }

    /// The pixel format the encoder is given for pictures in `signal`.
    func pixelFormat(for signal: WorkingSignal) -> AVPixelFormat {
        switch self {
        case .h264: AV_PIX_FMT_YUV420P
        case .hevc: signal.isHDR ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P
        case .prores: AV_PIX_FMT_YUV422P10LE
        case .dnxhr: signal.isHDR ? AV_PIX_FMT_YUV422P10LE : AV_PIX_FMT_YUV422P
        }
    }

    /// The profile, as the encoder's `profile` option names it (nil: the encoder's choice).
    func profile(for signal: WorkingSignal) -> String? {
        switch self {
        case .h264, .hevc: nil
        case .prores: "hq"
        case .dnxhr: signal.isHDR ? "dnxhr_hqx" : "dnxhr_hq"
        }
    }

    /// What `probe` and ffprobe call the stream's codec.
    public var streamName: String { self == .dnxhr ? "dnxhd" : rawValue }
}

extension VideoCodec {
    /// The codec's name in sentences.
    public var displayName: String {
        switch self {
        case .h264: "H.264"
        case .hevc: "HEVC"
        case .prores: "ProRes"
        case .dnxhr: "DNxHR"
        }
    }
}
