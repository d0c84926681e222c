import CFFmpeg
import Compositor

/// Fits decoded pictures to their place on the canvas, as GStreamer's convert pad does for an
/// aggregator: converts any pixel format, range, matrix, transfer and primaries to the working
/// signal (`ColorFitter`: video-range yuv420p BT.709 SDR by default), scales to `picture`,
/// turns by the stream's rotation, and paints the rest of the place `fill`. A picture already
/// in the working signal at the place's size, unturned, is used as it is (its buffers move, no
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
    /// The share of the displayed picture's width and height that is kept (`fill`: the picture
    /// covers its place and its overflow is cropped before scaling, centred; a placed foreground
    /// that overhangs the canvas: the part on it).
    public let keep: Layout.Keep
    private let fitter: ColorFitter
    private var rotationScratch: YUVBuffer?
    /// The HDR working signal's: `fill` in it, and the turning scratch.
    private let fill16: YUVColor16
    private var rotationScratch16: YUV16Buffer?
    private var signal: WorkingSignal { fitter.options.working }
    /// Whether the margin repeats the picture's edge pixels instead of `fill` (a keyed
    /// foreground the Lockstep keyer measures the screen of: `PlaneKernels.extendEdges`).
    public var extendsEdges = false
    /// How a picture of exactly twice its place's picture's size is shrunk (`Halving`); a turned
    /// picture keeps swscale's bicubic whatever is asked (the conform does more than shrink).
    public var halving = Halving.bicubic {
        didSet { fitter.halving = rotation == 0 ? halving : .bicubic }
    }
    /// The path the last picture's scaling took, and why it was not the box.
    public var scalePath: ScalePath { halving == .box && rotation != 0 ? .swscale(.turned) : fitter.scalePath }

    /// Throws when the geometry cannot hold a 4:2:0 picture (an empty or odd-placed rectangle).
    public init(place: Size, picture: Rect, fill: YUVColor, rotation: Int, keep: Layout.Keep = .all, color: ColorOptions = ColorOptions()) throws {
        guard place.width >= 2 && place.height >= 2 else {
            throw MediaError("no room for the picture: its place is \(place) (at least 2x2 is needed)")
        }
        guard picture.width >= 2, picture.height >= 2, picture.x >= 0, picture.y >= 0,
            picture.x % 2 == 0, picture.y % 2 == 0,
            picture.x + picture.width <= place.width, picture.y + picture.height <= place.height
        else {
            throw MediaError("the picture \(picture) does not fit its place \(place) as 4:2:0 needs (even edges, at least 2x2)")
        }
        guard [0, 90, 180, 270].contains(rotation) else { throw MediaError("rotation \(rotation) is not a right angle") }
        guard keep.width > 0 && keep.width <= 1 && keep.height > 0 && keep.height <= 1 else { throw MediaError("nothing of the picture to keep") }
        self.place = place; self.picture = picture; self.fill = fill; self.rotation = rotation; self.keep = keep
        fitter = ColorFitter(options: color)
        fill16 = color.working.isHDR ? YUVColor16(fill, in: color.working) : .black
    }

    /// Crops the decoded picture's sides to `keep` (in its stored orientation: a turned picture's
    /// displayed width is its stored height), moving its data pointers, no copy.
    private func crop(_ decoded: Frame) throws {
        let (kw, kh) = rotation == 90 || rotation == 270 ? (keep.height, keep.width) : (keep.width, keep.height)
        let f = decoded.pointer
        let w = Int(f.pointee.width), h = Int(f.pointee.height)
        let left: Int, right: Int, top: Int, bottom: Int
        if keep.isCentred {
            let cx = Int((Double(w) * (1 - kw) / 2).rounded()), cy = Int((Double(h) * (1 - kh) / 2).rounded())
            (left, right, top, bottom) = (cx, cx, cy, cy)
        } else {
            // The displayed picture's sides, then the stored picture's: turned clockwise by 90,
            // its stored left column shows as the top row, its top row as the right column.
            let d = (l: keep.left, t: keep.top, r: 1 - keep.width - keep.left, b: 1 - keep.height - keep.top)
            let s: (l: Double, t: Double, r: Double, b: Double)
            switch rotation {
            case 90: s = (d.t, d.r, d.b, d.l)
            case 180: s = (d.r, d.b, d.l, d.t)
            case 270: s = (d.b, d.l, d.t, d.r)
            default: s = d
            }
            func pixels(_ share: Double, _ n: Int) -> Int { max(0, Int((Double(n) * share).rounded())) }
            (left, right, top, bottom) = (pixels(s.l, w), pixels(s.r, w), pixels(s.t, h), pixels(s.b, h))
        }
        guard left + right + top + bottom > 0, left + right < w, top + bottom < h else { return }
        f.pointee.crop_left = f.pointee.crop_left + left; f.pointee.crop_right = f.pointee.crop_right + right
        f.pointee.crop_top = f.pointee.crop_top + top; f.pointee.crop_bottom = f.pointee.crop_bottom + bottom
        try check(av_frame_apply_cropping(f, Int32(AV_FRAME_CROP_UNALIGNED)), "av_frame_apply_cropping")
    }

    /// The colours of the last picture fitted, as read from its tags (untagged ones guessed),
    /// and the sentences saying what was guessed.
    public var sourceColor: ColorDescription? { fitter.source }
    public var colorNotes: [String] { fitter.notes }
    /// The conversion to the working signal, nil when the picture needed none (or only range).
    public var conversion: ColorConversion? { fitter.conversion }

    /// Fits the picture in `decoded` into `out`. `decoded` is left empty either way.
    public func fit(_ decoded: Frame, into out: Frame) throws {
        let d = decoded.pointer.pointee
        if keep != .all { try crop(decoded) }
        let workingFormat = signal.isHDR ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P
        let passthrough =
            keep == .all && rotation == 0 && d.format == workingFormat.rawValue && d.color_range != AVCOL_RANGE_JPEG
            && Int(d.width) == place.width && Int(d.height) == place.height
            && picture == Rect(x: 0, y: 0, width: place.width, height: place.height)
            && fitter.needsOnlyScaling(decoded.pointer, size: place, bits: signal.isHDR ? 10 : 8)
        if passthrough {
            out.unref()
            av_frame_move_ref(out.pointer, decoded.pointer)
            return
        }
        defer { decoded.unref() }
        if signal.isHDR { return try fit16(decoded, into: out) }
        if !out.hasBuffers || !out.isYUV420P || out.width != place.width || out.height != place.height {
            try out.allocate(width: place.width, height: place.height)
            PlaneKernels.fill(out.image, fill)
        } else {
            // The encoder or a previous zero-copy picture never shares these: made here.
            try out.makeWritable()
        }
        try out.withImage { image in
            let target = image.cropped(to: picture)
            defer { if extendsEdges { PlaneKernels.extendEdges(image, picture: picture) } }
            if rotation == 0 {
                try fitter.fit(decoded.pointer, into: .bytes(target))
            } else {
                // Scale in the stored orientation, then turn into place.
                let stored =
                    rotation == 180
                    ? Size(width: picture.width, height: picture.height)
                    : Size(width: picture.height, height: picture.width)
                if rotationScratch?.width != stored.width || rotationScratch?.height != stored.height {
                    rotationScratch = YUVBuffer(width: stored.width, height: stored.height)
                }
                let scratch = rotationScratch!.image
                try fitter.fit(decoded.pointer, into: .bytes(scratch))
                PlaneKernels.rotate(scratch, clockwise: rotation, into: target)
            }
        }
    }

    /// `fit` into the HDR working signal (10-bit).
    private func fit16(_ decoded: Frame, into out: Frame) throws {
        if !out.hasBuffers || !out.isHDR || out.width != place.width || out.height != place.height {
            try out.allocate(width: place.width, height: place.height, signal: signal)
            PlaneKernels16.fill(out.image16, fill16)
        } else {
            try out.makeWritable()
        }
        try out.withImage16 { image in
            let target = image.cropped(to: picture)
            if rotation == 0 {
                try fitter.fit(decoded.pointer, into: .words(target, bits: 10))
            } else {
                let stored =
                    rotation == 180
                    ? Size(width: picture.width, height: picture.height)
                    : Size(width: picture.height, height: picture.width)
                if rotationScratch16?.width != stored.width || rotationScratch16?.height != stored.height {
                    rotationScratch16 = YUV16Buffer(width: stored.width, height: stored.height)
                }
                let scratch = rotationScratch16!.image
                try fitter.fit(decoded.pointer, into: .words(scratch, bits: 10))
                PlaneKernels16.rotate(scratch, clockwise: rotation, into: target)
            }
        }
    }
}

extension YUVColor16 {
    /// A colour of the SDR working signal (8-bit BT.709) in an HDR one.
    public init(_ c: YUVColor, in signal: WorkingSignal) {
        let sdr = WorkingSignal.sdr.description, target = signal.description
        let n = ColorConversion.normalise(Double(c.y), Double(c.u), Double(c.v), sdr)
        let o = ColorConversion(from: sdr, to: target).convert(n.0, n.1, n.2)
        let q = ColorConversion.quantise(o.0, o.1, o.2, target)
        func s(_ x: Double) -> UInt16 { UInt16(max(0, min(1023, x.rounded()))) }
        self.init(y: s(q.0), u: s(q.1), v: s(q.2))
    }
}
