import CFFmpeg
import Compositor

/// Inputs that carry alpha (ProRes 4444, PNG or QuickTime Animation in MOV, FFV1 with alpha):
/// fitted into yuva420p frames, the alpha plane at luma resolution, so a soft or thin edge
/// survives scaling as it was drawn rather than at chroma resolution.
public enum PixelFormats {
    /// Whether FFmpeg's pixel format of this name has an alpha channel.
    public static func hasAlpha(_ name: String) -> Bool {
        let format = av_get_pix_fmt(name)
        guard format != AV_PIX_FMT_NONE, let d = av_pix_fmt_desc_get(format) else { return false }
        return d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
    }
}

extension Frame {
    /// The alpha plane of a frame an `AlphaConformer` filled (0 transparent, 255 opaque), lent
    /// like `withImage`'s planes; nil for a picture without alpha.
    public func withAlpha<R>(_ body: (Plane?) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) {
            let f = pointer.pointee
            guard f.format == AV_PIX_FMT_YUVA420P.rawValue, let a = f.data.3 else { return try body(nil) }
            return try body(Plane(base: a, stride: Int(f.linesize.3), width: Int(f.width), height: Int(f.height), owner: self))
        }
    }

    var isYUVA420P: Bool { pointer.pointee.format == AV_PIX_FMT_YUVA420P.rawValue }
}

/// `Conformer` for an input with alpha: converts and scales each decoded picture to yuva420p at
/// `picture` inside a frame of size `place`, whose margins are transparent (alpha 0, colour
/// `fill`). No rotation (the caller uses the plain conformer for a turned alpha input). Owned by
/// one input lane; the per-frame path allocates nothing once its frames have their buffers.
public final class AlphaConformer {
    public let place: Size
    public let picture: Rect
    public let fill: YUVColor
    private var context: OpaquePointer?
    private var fullRange: Int32 = -1
    private var srcPlanes = [UnsafePointer<UInt8>?](repeating: nil, count: 4)
    private var srcStrides = [Int32](repeating: 0, count: 4)
    private var dstPlanes = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: 4)
    private var dstStrides = [Int32](repeating: 0, count: 4)

    public init(place: Size, picture: Rect, fill: YUVColor) throws {
        // The same geometry rules, and sentences, as the plain conformer's.
        _ = try Conformer(place: place, picture: picture, fill: fill, rotation: 0)
        self.place = place; self.picture = picture; self.fill = fill
    }
    deinit { sws_freeContext(context) }

    /// Fits the picture in `decoded` into `out`. `decoded` is left empty either way.
    public func fit(_ decoded: Frame, into out: Frame) throws {
        defer { decoded.unref() }
        let s = decoded.pointer.pointee
        if !out.hasBuffers || !out.isYUVA420P || out.width != place.width || out.height != place.height {
            out.unref()
            out.pointer.pointee.format = AV_PIX_FMT_YUVA420P.rawValue
            out.pointer.pointee.width = Int32(place.width)
            out.pointer.pointee.height = Int32(place.height)
            try check(av_frame_get_buffer(out.pointer, 0), "av_frame_get_buffer(\(place) yuva420p)")
            PlaneKernels.fill(out.image, fill)
            out.withAlpha { a in for y in 0..<a!.height { a!.row(y).update(repeating: 0, count: a!.width) } }
        } else {
            try out.makeWritable()
        }
        guard s.width > 0, s.height > 0, s.format >= 0, sws_isSupportedInput(AVPixelFormat(rawValue: s.format)) != 0 else {
            throw MediaError("cannot convert \(Scaler.formatName(s.format)) \(s.width)x\(s.height) to yuva420p")
        }
        context = sws_getCachedContext(context, s.width, s.height, AVPixelFormat(rawValue: s.format),
                                       Int32(picture.width), Int32(picture.height), AV_PIX_FMT_YUVA420P,
                                       SWS_BICUBIC, nil, nil, nil)
        guard let context else { throw MediaError("cannot convert \(Scaler.formatName(s.format)) \(s.width)x\(s.height) to yuva420p") }
        let srcFull: Int32 = s.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        if srcFull != fullRange {
            let coefficients = sws_getCoefficients(SWS_CS_DEFAULT)
            sws_setColorspaceDetails(context, coefficients, srcFull, coefficients, 0, 0, 1 << 16, 1 << 16)
            fullRange = srcFull
        }
        let o = out.pointer.pointee
        let x = picture.x, y = picture.y
        dstPlanes[0] = o.data.0! + y * Int(o.linesize.0) + x
        dstPlanes[1] = o.data.1! + (y / 2) * Int(o.linesize.1) + x / 2
        dstPlanes[2] = o.data.2! + (y / 2) * Int(o.linesize.2) + x / 2
        dstPlanes[3] = o.data.3! + y * Int(o.linesize.3) + x
        dstStrides[0] = o.linesize.0; dstStrides[1] = o.linesize.1; dstStrides[2] = o.linesize.2; dstStrides[3] = o.linesize.3
        srcPlanes[0] = UnsafePointer(s.data.0); srcPlanes[1] = UnsafePointer(s.data.1)
        srcPlanes[2] = UnsafePointer(s.data.2); srcPlanes[3] = UnsafePointer(s.data.3)
        srcStrides[0] = s.linesize.0; srcStrides[1] = s.linesize.1; srcStrides[2] = s.linesize.2; srcStrides[3] = s.linesize.3
        let rows = sws_scale(context, srcPlanes, srcStrides, 0, s.height, dstPlanes, dstStrides)
        if rows <= 0 { throw MediaError(code: rows, function: "sws_scale") }
    }
}
