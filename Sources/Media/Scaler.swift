import CFFmpeg
import Compositor

/// Owns one SwsContext: converts and scales any decoded picture into a rectangle of a 4:2:0
/// picture, video range: 8-bit (yuv420p, the SDR working format), 10-bit (the HDR working
/// format) or 12-bit (`ColorFitter`'s scratch before its colour conversion). Y'CbCr stays in
/// the picture's own matrix (swscale converts range and depth, not matrices: the colour step
/// does that); RGB pictures become Y'CbCr of `rgbMatrix`.
final class Scaler {
    /// A 4:2:0 destination of either sample size.
    enum Target {
        case bytes(YUVImage)
        /// 16-bit samples holding `bits`-bit values (10 or 12).
        case words(YUV16Image, bits: Int)

        var width: Int {
            switch self {
            case .bytes(let i): i.width;
            case .words(let i, _): i.width
            }
        }
        var height: Int {
            switch self {
            case .bytes(let i): i.height;
            case .words(let i, _): i.height
            }
        }
    }

    private var context: OpaquePointer?
    /// The geometry and formats the context was made for, and the colour details last given to
    /// it (source range, table): sws_getCachedContext makes a new context when the first
    /// change, and a new context has swscale's default details.
    private var geometry = (Int32(0), Int32(0), Int32(-1), Int32(0), Int32(0), Int32(-1))
    private var details = (Int32(-1), Int32(-1))
    // Plane pointers handed to sws_scale, kept so the per-frame call allocates nothing.
    private var srcPlanes = [UnsafePointer<UInt8>?](repeating: nil, count: 4)
    private var srcStrides = [Int32](repeating: 0, count: 4)
    private var dstPlanes = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: 4)
    private var dstStrides = [Int32](repeating: 0, count: 4)

    deinit { sws_freeContext(context) }

    /// Converts and scales the whole of `src` into `dst` (a view, often a rectangle of a frame),
    /// and its alpha into `alpha` (luma-sized) when given (yuva420p: `AlphaConformer`).
    /// `matrix`: the picture's Y'CbCr matrix (kept); for an RGB picture, the one it is put into.
    func scale(_ src: UnsafeMutablePointer<AVFrame>, into dst: YUVImage, alpha: Plane? = nil, matrix: ColorMatrix = .bt601) throws {
        try scale(src, into: .bytes(dst), alpha: alpha, matrix: matrix)
    }

    func scale(_ src: UnsafeMutablePointer<AVFrame>, into dst: Target, alpha: Plane? = nil, matrix: ColorMatrix) throws {
        let s = src.pointee
        let format: AVPixelFormat
        switch dst {
        case .bytes: format = alpha == nil ? AV_PIX_FMT_YUV420P : AV_PIX_FMT_YUVA420P
        case .words(_, let bits): format = bits == 12 ? AV_PIX_FMT_YUV420P12LE : AV_PIX_FMT_YUV420P10LE
        }
        guard s.width > 0, s.height > 0, s.format >= 0, sws_isSupportedInput(AVPixelFormat(rawValue: s.format)) != 0 else {
            throw MediaError("cannot convert \(Scaler.formatName(s.format)) \(s.width)x\(s.height) to \(Scaler.formatName(format.rawValue))")
        }
        context = sws_getCachedContext(
            context, s.width, s.height, AVPixelFormat(rawValue: s.format),
            Int32(dst.width), Int32(dst.height), format, SWS_BICUBIC, nil, nil, nil)
        guard let context else { throw MediaError("cannot convert \(Scaler.formatName(s.format)) \(s.width)x\(s.height) to \(Scaler.formatName(format.rawValue))") }
        let srcFull: Int32 = s.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        let table = Scaler.table(matrix)
        // A cached context keeps its details: set them when they change (phone footage is often
        // full range; the output is video range).
        let made = (s.width, s.height, s.format, Int32(dst.width), Int32(dst.height), format.rawValue)
        if made != geometry || details != (srcFull, table) {
            sws_setColorspaceDetails(context, sws_getCoefficients(table), srcFull, sws_getCoefficients(table), 0, 0, 1 << 16, 1 << 16)
            geometry = made; details = (srcFull, table)
        }
        switch dst {
        case .bytes(let d):
            dstPlanes[0] = d.y.base; dstPlanes[1] = d.u.base; dstPlanes[2] = d.v.base
            dstStrides[0] = Int32(d.y.stride); dstStrides[1] = Int32(d.u.stride); dstStrides[2] = Int32(d.v.stride)
        case .words(let d, _):
            dstPlanes[0] = UnsafeMutableRawPointer(d.y.base).assumingMemoryBound(to: UInt8.self)
            dstPlanes[1] = UnsafeMutableRawPointer(d.u.base).assumingMemoryBound(to: UInt8.self)
            dstPlanes[2] = UnsafeMutableRawPointer(d.v.base).assumingMemoryBound(to: UInt8.self)
            dstStrides[0] = Int32(d.y.stride * 2); dstStrides[1] = Int32(d.u.stride * 2); dstStrides[2] = Int32(d.v.stride * 2)
        }
        dstPlanes[3] = alpha?.base; dstStrides[3] = Int32(alpha?.stride ?? 0)
        srcPlanes[0] = UnsafePointer(s.data.0); srcPlanes[1] = UnsafePointer(s.data.1)
        srcPlanes[2] = UnsafePointer(s.data.2); srcPlanes[3] = UnsafePointer(s.data.3)
        srcStrides[0] = s.linesize.0; srcStrides[1] = s.linesize.1; srcStrides[2] = s.linesize.2; srcStrides[3] = s.linesize.3
        let rows = sws_scale(context, srcPlanes, srcStrides, 0, s.height, dstPlanes, dstStrides)
        if rows <= 0 { throw MediaError(code: rows, function: "sws_scale") }
    }

    /// swscale's coefficient table of a matrix (used for RGB pictures; Y'CbCr to Y'CbCr keeps values).
    static func table(_ m: ColorMatrix) -> Int32 {
        switch m {
        case .bt601: SWS_CS_ITU601;
        case .bt709: SWS_CS_ITU709;
        case .bt2020: SWS_CS_BT2020
        }
    }

    static func formatName(_ format: Int32) -> String {
        av_get_pix_fmt_name(AVPixelFormat(rawValue: format)).map { String(cString: $0) } ?? "format \(format)"
    }
}
