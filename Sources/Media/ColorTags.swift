import CFFmpeg
import Compositor

/// A stream's or frame's colour tags as FFmpeg holds them (names as ffprobe prints them), and
/// what Lockstep takes them to mean (`ColorDescription`), untagged fields guessed as FFmpeg's
/// conversions and players do (`ColorDescription.guessMatrix`).
public struct ColorTags: Equatable, Sendable, Codable {
    /// ffprobe's `color_range`, `color_space`, `color_primaries`, `color_transfer`; nil: unspecified.
    public var range: String?
    public var matrix: String?
    public var primaries: String?
    public var transfer: String?

    public init(range: String? = nil, matrix: String? = nil, primaries: String? = nil, transfer: String? = nil) {
        self.range = range; self.matrix = matrix; self.primaries = primaries; self.transfer = transfer
    }

    init(range: AVColorRange, matrix: AVColorSpace, primaries: AVColorPrimaries, transfer: AVColorTransferCharacteristic) {
        func name(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
        self.range = range == AVCOL_RANGE_UNSPECIFIED ? nil : name(av_color_range_name(range))
        self.matrix = matrix == AVCOL_SPC_UNSPECIFIED ? nil : name(av_color_space_name(matrix))
        self.primaries = primaries == AVCOL_PRI_UNSPECIFIED ? nil : name(av_color_primaries_name(primaries))
        self.transfer = transfer == AVCOL_TRC_UNSPECIFIED ? nil : name(av_color_transfer_name(transfer))
    }

    /// The tags of an encoded stream (what the demuxer and the codec's headers say).
    init(_ par: AVCodecParameters) {
        self.init(range: par.color_range, matrix: par.color_space, primaries: par.color_primaries, transfer: par.color_trc)
    }
}

/// A picture's colours as Lockstep reads them: from its tags, guessing what is missing, with
/// a sentence for each guess and for each tag it does not convert.
struct ColorReading {
    var description: ColorDescription
    /// "untagged matrix taken as BT.601 (standard definition)", ...
    var notes: [String] = []

    /// `format` decides the bit depth and whether the picture is RGB; `width`/`height` the
    /// guesses for an untagged matrix.
    init(
        format: Int32, range: AVColorRange, matrix: AVColorSpace, primaries: AVColorPrimaries,
        transfer: AVColorTransferCharacteristic, width: Int, height: Int
    ) {
        let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: format))
        let depth = desc.map { Int($0.pointee.comp.0.depth) } ?? 8
        let isRGB = desc.map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 } ?? false
        let jpegFormat = [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P]
            .contains { $0.rawValue == format }
        var notes: [String] = []
        let m: ColorMatrix
        switch matrix {
        case AVCOL_SPC_BT709: m = .bt709
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_SMPTE240M: m = .bt601
        case AVCOL_SPC_BT2020_NCL: m = .bt2020
        case AVCOL_SPC_BT2020_CL:
            m = .bt2020
            notes.append("BT.2020 constant-luminance matrix read as non-constant luminance")
        default:
            m = ColorDescription.guessMatrix(width: width, height: height)
            if !isRGB {
                let known = matrix == AVCOL_SPC_UNSPECIFIED || matrix == AVCOL_SPC_RGB
                notes.append("\(known ? "untagged" : "unsupported (\(cName(av_color_space_name(matrix))))") matrix taken as \(m == .bt709 ? "BT.709 (HD)" : "BT.601 (standard definition)")")
            }
        }
        let t: ColorTransfer
        switch transfer {
        case AVCOL_TRC_ARIB_STD_B67: t = .hlg
        case AVCOL_TRC_SMPTE2084: t = .pq
        case AVCOL_TRC_BT709, AVCOL_TRC_SMPTE170M, AVCOL_TRC_BT2020_10, AVCOL_TRC_BT2020_12, AVCOL_TRC_IEC61966_2_1,
            AVCOL_TRC_GAMMA22, AVCOL_TRC_GAMMA28, AVCOL_TRC_SMPTE240M, AVCOL_TRC_UNSPECIFIED, AVCOL_TRC_IEC61966_2_4,
            AVCOL_TRC_BT1361_ECG, AVCOL_TRC_RESERVED0, AVCOL_TRC_RESERVED:
            t = .sdr
        default:
            t = .sdr
            notes.append("unsupported transfer \(cName(av_color_transfer_name(transfer))) taken as SDR")
        }
        let p: ColorPrimaries
        switch primaries {
        case AVCOL_PRI_BT709: p = .bt709
        case AVCOL_PRI_BT470BG: p = .bt470bg
        case AVCOL_PRI_SMPTE170M, AVCOL_PRI_SMPTE240M: p = .smpte170m
        case AVCOL_PRI_BT2020: p = .bt2020
        case AVCOL_PRI_SMPTE432: p = .smpte432
        default:
            // HDR signals are BT.2020 in every camera that records them untagged.
            p = t == .sdr ? ColorDescription.guessPrimaries(for: m, height: height) : .bt2020
            if primaries != AVCOL_PRI_UNSPECIFIED {
                notes.append("unsupported primaries \(cName(av_color_primaries_name(primaries))) taken as \(p.rawValue)")
            }
        }
        let r: ColorRange = range == AVCOL_RANGE_JPEG || jpegFormat || (isRGB && range == AVCOL_RANGE_UNSPECIFIED) ? .full : .limited
        description = ColorDescription(matrix: m, range: r, primaries: p, transfer: t, bitDepth: depth)
        self.notes = notes
    }

    init(_ f: AVFrame) {
        self.init(
            format: f.format, range: f.color_range, matrix: f.colorspace, primaries: f.color_primaries,
            transfer: f.color_trc, width: Int(f.width), height: Int(f.height))
    }

    init(_ par: AVCodecParameters) {
        self.init(
            format: par.format, range: par.color_range, matrix: par.color_space, primaries: par.color_primaries,
            transfer: par.color_trc, width: Int(par.width), height: Int(par.height))
    }
}

/// A C string FFmpeg returns (nil: "?").
private func cName(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "?" }

/// Dolby Vision's configuration record (`dvcC`/`dvvC`): which profile, and what the base layer
/// is to a decoder that ignores the enhancement (profile 8: HDR10, SDR or HLG by compatibility id).
public struct DolbyVision: Equatable, Sendable, Codable {
    public var profile: Int
    public var level: Int
    public var compatibilityID: Int

    /// What Lockstep decodes: the base layer, whose own tags say its colours. Profile 5 has no
    /// compatible base layer (IPTPQc2 colours) and cannot be shown right without Dolby's
    /// reshaping, so it is refused (`MovieReader`).
    public var baseLayer: String {
        switch (profile, compatibilityID) {
        case (8, 1): return "HDR10 (PQ) base layer"
        case (8, 2): return "SDR base layer"
        case (8, 4): return "HLG base layer"
        case (5, _): return "no backward-compatible base layer"
        default: return "base layer"
        }
    }
}

extension HDRMetadata {
    /// From side data of a stream (MP4 `mdcv`/`clli`) or a frame (HEVC SEI).
    init(mastering: UnsafePointer<AVMasteringDisplayMetadata>?, light: UnsafePointer<AVContentLightMetadata>?) {
        self.init()
        if let m = mastering?.pointee {
            if m.has_primaries != 0 {
                displayPrimaries = [
                    m.display_primaries.0.0, m.display_primaries.0.1, m.display_primaries.1.0, m.display_primaries.1.1,
                    m.display_primaries.2.0, m.display_primaries.2.1, m.white_point.0, m.white_point.1
                ].map { av_q2d($0) }
            }
            if m.has_luminance != 0 { minLuminance = av_q2d(m.min_luminance); maxLuminance = av_q2d(m.max_luminance) }
        }
        if let l = light?.pointee { maxCLL = Int(l.MaxCLL); maxFALL = Int(l.MaxFALL) }
    }

    /// A frame's own HDR side data (HEVC SEI), if any.
    static func of(_ f: UnsafeMutablePointer<AVFrame>) -> HDRMetadata {
        let m = av_frame_get_side_data(f, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA)
        let l = av_frame_get_side_data(f, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL)
        return HDRMetadata(
            mastering: m.map { UnsafeRawPointer($0.pointee.data).assumingMemoryBound(to: AVMasteringDisplayMetadata.self) },
            light: l.map { UnsafeRawPointer($0.pointee.data).assumingMemoryBound(to: AVContentLightMetadata.self) })
    }

    /// A stream's HDR side data (MP4 `mdcv` and `clli` boxes), if any.
    static func of(_ st: UnsafeMutablePointer<AVStream>) -> HDRMetadata {
        let m = av_stream_get_side_data(st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, nil)
        let l = av_stream_get_side_data(st, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, nil)
        return HDRMetadata(
            mastering: m.map { UnsafeRawPointer($0).assumingMemoryBound(to: AVMasteringDisplayMetadata.self) },
            light: l.map { UnsafeRawPointer($0).assumingMemoryBound(to: AVContentLightMetadata.self) })
    }

    /// Where this has nothing, `other`'s.
    func merged(over other: HDRMetadata) -> HDRMetadata {
        HDRMetadata(
            displayPrimaries: displayPrimaries ?? other.displayPrimaries, minLuminance: minLuminance ?? other.minLuminance,
            maxLuminance: maxLuminance ?? other.maxLuminance, maxCLL: maxCLL ?? other.maxCLL, maxFALL: maxFALL ?? other.maxFALL)
    }
}

extension DolbyVision {
    static func of(_ st: UnsafeMutablePointer<AVStream>) -> DolbyVision? {
        guard let sd = av_stream_get_side_data(st, AV_PKT_DATA_DOVI_CONF, nil) else { return nil }
        let r = UnsafeRawPointer(sd).assumingMemoryBound(to: AVDOVIDecoderConfigurationRecord.self).pointee
        return DolbyVision(profile: Int(r.dv_profile), level: Int(r.dv_level), compatibilityID: Int(r.dv_bl_signal_compatibility_id))
    }
}

extension HDRMetadata {
    /// The HDR metadata of a movie: its stream's (MP4 boxes), else its first picture's (HEVC
    /// SEI, where phones and x265 put it). Decodes one picture.
    public static func of(movie path: String) throws -> HDRMetadata {
        let still = try StillReader(path: path)
        let frame = Frame()
        var found = still.video.color.hdr
        if found.isEmpty, try still.next(into: frame) != nil { found = HDRMetadata.of(frame.pointer) }
        return found
    }
}
