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
    private let fitter: ColorFitter

    public init(place: Size, picture: Rect, fill: YUVColor, color: ColorOptions = ColorOptions()) throws {
        // The same geometry rules, and sentences, as the plain conformer's.
        _ = try Conformer(place: place, picture: picture, fill: fill, rotation: 0)
        self.place = place; self.picture = picture; self.fill = fill
        fitter = ColorFitter(options: color)
    }

    /// A frame of the place with no picture in it: its fill, transparent (an absent input).
    public func emptyFrame() throws -> Frame {
        let out = Frame()
        out.pointer.pointee.format = AV_PIX_FMT_YUVA420P.rawValue
        out.pointer.pointee.width = Int32(place.width)
        out.pointer.pointee.height = Int32(place.height)
        try check(av_frame_get_buffer(out.pointer, 0), "av_frame_get_buffer(\(place) yuva420p)")
        PlaneKernels.fill(out.image, fill)
        out.withAlpha { a in for y in 0..<a!.height { a!.row(y).update(repeating: 0, count: a!.width) } }
        return out
    }

    /// Fits the picture in `decoded` into `out`. `decoded` is left empty either way.
    public func fit(_ decoded: Frame, into out: Frame) throws {
        defer { decoded.unref() }
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
        let (x, y) = (picture.x, picture.y)
        try out.withImage { image in
            try out.withAlpha { a in
                let alpha = Plane(base: a!.base + y * a!.stride + x, stride: a!.stride, width: picture.width, height: picture.height, owner: out)
                try fitter.fit(decoded.pointer, into: .bytes(image.cropped(to: picture)), alpha: alpha)
            }
        }
    }
}
