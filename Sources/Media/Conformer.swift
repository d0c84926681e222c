import CFFmpeg
import Compositor

/// Fits decoded pictures to their place on the canvas, as GStreamer's convert pad does for an
/// aggregator: converts any pixel format and range to video-range yuv420p, scales to `picture`,
/// turns by the stream's rotation, and paints the rest of the place `fill`. A picture already
/// yuv420p video range at the place's size, unturned, is used as it is (its buffers move, no
/// copy). Owned by one input lane; the per-frame path allocates nothing once its frames have
/// their buffers.
public final class Conformer {
    /// The size of the frames it makes.
    public let place: Size
    /// Where the picture goes inside the place (even edges); the rest is `fill`.
    public let picture: Rect
    public let fill: YUVColor
    /// Clockwise degrees to turn the decoded picture (0, 90, 180, 270).
    public let rotation: Int
    /// The share of the displayed picture's width and height that is kept, centred (`fill`:
    /// the picture covers its place and its overflow is cropped before scaling).
    public let keep: Layout.Keep
    private let scaler = Scaler()
    private var rotationScratch: YUVBuffer?

    /// Throws when the geometry cannot hold a 4:2:0 picture (an empty or odd-placed rectangle).
    public init(place: Size, picture: Rect, fill: YUVColor, rotation: Int, keep: Layout.Keep = .all) throws {
        guard place.width >= 2 && place.height >= 2 else {
            throw MediaError("no room for the picture: its place is \(place) (at least 2x2 is needed)")
        }
        guard picture.width >= 2, picture.height >= 2, picture.x >= 0, picture.y >= 0,
              picture.x % 2 == 0, picture.y % 2 == 0,
              picture.x + picture.width <= place.width, picture.y + picture.height <= place.height else {
            throw MediaError("the picture \(picture) does not fit its place \(place) as 4:2:0 needs (even edges, at least 2x2)")
        }
        guard [0, 90, 180, 270].contains(rotation) else { throw MediaError("rotation \(rotation) is not a right angle") }
        guard keep.width > 0 && keep.width <= 1 && keep.height > 0 && keep.height <= 1 else { throw MediaError("nothing of the picture to keep") }
        self.place = place; self.picture = picture; self.fill = fill; self.rotation = rotation; self.keep = keep
    }

    /// Crops the decoded picture's sides to `keep` (in its stored orientation: a turned picture's
    /// displayed width is its stored height), moving its data pointers, no copy.
    private func crop(_ decoded: Frame) throws {
        let (kw, kh) = rotation == 90 || rotation == 270 ? (keep.height, keep.width) : (keep.width, keep.height)
        let f = decoded.pointer
        let w = Int(f.pointee.width), h = Int(f.pointee.height)
        let cx = Int((Double(w) * (1 - kw) / 2).rounded()), cy = Int((Double(h) * (1 - kh) / 2).rounded())
        guard cx > 0 || cy > 0, 2 * cx < w, 2 * cy < h else { return }
        f.pointee.crop_left = f.pointee.crop_left + cx; f.pointee.crop_right = f.pointee.crop_right + cx
        f.pointee.crop_top = f.pointee.crop_top + cy; f.pointee.crop_bottom = f.pointee.crop_bottom + cy
        try check(av_frame_apply_cropping(f, Int32(AV_FRAME_CROP_UNALIGNED)), "av_frame_apply_cropping")
    }

    /// Fits the picture in `decoded` into `out`. `decoded` is left empty either way.
    public func fit(_ decoded: Frame, into out: Frame) throws {
        let d = decoded.pointer.pointee
        if keep != .all { try crop(decoded) }
        let passthrough = keep == .all && rotation == 0 && d.format == AV_PIX_FMT_YUV420P.rawValue && d.color_range != AVCOL_RANGE_JPEG
            && Int(d.width) == place.width && Int(d.height) == place.height
            && picture == Rect(x: 0, y: 0, width: place.width, height: place.height)
        if passthrough {
            out.unref()
            av_frame_move_ref(out.pointer, decoded.pointer)
            return
        }
        defer { decoded.unref() }
        if !out.hasBuffers || !out.isYUV420P || out.width != place.width || out.height != place.height {
            try out.allocate(width: place.width, height: place.height)
            PlaneKernels.fill(out.image, fill)
        } else {
            // The encoder or a previous zero-copy picture never shares these: made here.
            try out.makeWritable()
        }
        try out.withImage { image in
            let target = image.cropped(to: picture)
            if rotation == 0 {
                try scaler.scale(decoded.pointer, into: target)
            } else {
                // Scale in the stored orientation, then turn into place.
                let stored = rotation == 180 ? Size(width: picture.width, height: picture.height)
                                             : Size(width: picture.height, height: picture.width)
                if rotationScratch?.width != stored.width || rotationScratch?.height != stored.height {
                    rotationScratch = YUVBuffer(width: stored.width, height: stored.height)
                }
                let scratch = rotationScratch!.image
                try scaler.scale(decoded.pointer, into: scratch)
                PlaneKernels.rotate(scratch, clockwise: rotation, into: target)
            }
        }
    }
}
