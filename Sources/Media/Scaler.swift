import CFFmpeg
import Compositor

/// Owns one SwsContext: converts and scales any decoded picture into a rectangle of a yuv420p
/// frame. Used only when the picture is not already yuv420p video range at the right size.
final class Scaler {
    private var context: OpaquePointer?
    private var fullRange: Int32 = -1
    // Plane pointers handed to sws_scale, kept so the per-frame call allocates nothing.
    private var srcPlanes = [UnsafePointer<UInt8>?](repeating: nil, count: 4)
    private var srcStrides = [Int32](repeating: 0, count: 4)
    private var dstPlanes = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: 4)
    private var dstStrides = [Int32](repeating: 0, count: 4)

    deinit { sws_freeContext(context) }

    /// Converts and scales the whole of `src` into `dst` (a view, often a rectangle of a frame),
    /// and its alpha into `alpha` (luma-sized) when given (yuva420p: `AlphaConformer`).
    func scale(_ src: UnsafeMutablePointer<AVFrame>, into dst: YUVImage, alpha: Plane? = nil) throws {
        let s = src.pointee
        guard s.width > 0, s.height > 0, s.format >= 0, sws_isSupportedInput(AVPixelFormat(rawValue: s.format)) != 0 else {
            throw MediaError("cannot convert \(Scaler.formatName(s.format)) \(s.width)x\(s.height) to yuv420p")
        }
        context = sws_getCachedContext(context, s.width, s.height, AVPixelFormat(rawValue: s.format),
                                       Int32(dst.width), Int32(dst.height), alpha == nil ? AV_PIX_FMT_YUV420P : AV_PIX_FMT_YUVA420P,
                                       SWS_BICUBIC, nil, nil, nil)
        guard let context else { throw MediaError("cannot convert \(Scaler.formatName(s.format)) \(s.width)x\(s.height) to yuv420p") }
        let srcFull: Int32 = s.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        if srcFull != fullRange {
            // Phone footage is often full range; the output is video range.
            let coefficients = sws_getCoefficients(SWS_CS_DEFAULT)
            sws_setColorspaceDetails(context, coefficients, srcFull, coefficients, 0, 0, 1 << 16, 1 << 16)
            fullRange = srcFull
        }
        dstPlanes[0] = dst.y.base; dstPlanes[1] = dst.u.base; dstPlanes[2] = dst.v.base
        dstStrides[0] = Int32(dst.y.stride); dstStrides[1] = Int32(dst.u.stride); dstStrides[2] = Int32(dst.v.stride)
        dstPlanes[3] = alpha?.base; dstStrides[3] = Int32(alpha?.stride ?? 0)
        srcPlanes[0] = UnsafePointer(s.data.0); srcPlanes[1] = UnsafePointer(s.data.1)
        srcPlanes[2] = UnsafePointer(s.data.2); srcPlanes[3] = UnsafePointer(s.data.3)
        srcStrides[0] = s.linesize.0; srcStrides[1] = s.linesize.1; srcStrides[2] = s.linesize.2; srcStrides[3] = s.linesize.3
        let rows = sws_scale(context, srcPlanes, srcStrides, 0, s.height, dstPlanes, dstStrides)
        if rows <= 0 { throw MediaError(code: rows, function: "sws_scale") }
    }

    static func formatName(_ format: Int32) -> String {
        av_get_pix_fmt_name(AVPixelFormat(rawValue: format)).map { String(cString: $0) } ?? "format \(format)"
    }
}
