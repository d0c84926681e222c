import CFFmpeg
import Compositor

/// What the conformers turn every picture into: the working signal, and how an HDR picture is
/// brought down to it.
public struct ColorOptions: Equatable, Sendable {
    public var working: WorkingSignal
    public var toneCurve: ToneCurve
    /// The input stream's HDR metadata (MP4 `mdcv`/`clli`); the pictures' own (HEVC SEI) win.
    public var metadata: HDRMetadata
    public init(working: WorkingSignal = .sdr, toneCurve: ToneCurve = .hable, metadata: HDRMetadata = HDRMetadata()) {
        self.working = working; self.toneCurve = toneCurve; self.metadata = metadata
    }
}

/// Scales a decoded picture into place and converts its colours to the working signal: the
/// media layer's colour management, one per input lane.
///
/// How, decided again whenever a picture's format, size or tags change (never per frame):
/// - its colours already are the working signal's (range and depth aside): swscale alone; or,
///   where the job asks for it (`halving`, a grid's cells) and the picture is exactly twice the
///   target in both directions in the target's own format and range, each plane's 2x2 means
///   (`BoxDownscale.halve`): `scalePath` says which, and why not the box;
/// - only the matrix differs (BT.601 SD footage, full-range BT.601 phone video): swscale, then
///   the linear `ColorConvertKernel` in place;
/// - its transfer or primaries differ (HLG, PQ, BT.2020): the conversion through light, from
///   the decoded 10- or 12-bit planes when no scaling is needed, else from a 12-bit picture
///   swscale made at the target size.
final class ColorFitter {
    let options: ColorOptions
    private let scaler = Scaler()
    private enum Plan {
        case scale
        /// Each plane's 2x2 means (same format and range in and out, exactly half the size).
        case halve
        /// swscale, then this conversion in place (same depth in and out).
        case scaleThenConvert(ColorConvertKernel)
        /// From the decoded planes (10-bit or 12-bit, the target's size).
        case direct(ColorConvertKernel)
        /// swscale to 12-bit first.
        case viaScratch(ColorConvertKernel)
    }
    private var plan = Plan.scale
    /// How an exact half is shrunk; the conformer sets it (`Conformer.halving`).
    var halving = Halving.bicubic {
        didSet { key = SIMD16<Int32>(repeating: -1) }
    }
    /// The path the last picture's scaling took, and why not the box.
    private(set) var scalePath = ScalePath.swscale(.bicubicAskedFor)
    /// What the plan was decided for (a vector: comparing it allocates nothing).
    private var key = SIMD16<Int32>(repeating: -1)
    private var scratch: YUV16Buffer?
    /// What the first picture's reading guessed or could not convert (untagged matrix, ...).
    private(set) var notes: [String] = []
    /// The colours read from the last picture.
    private(set) var source: ColorDescription?

    init(options: ColorOptions) { self.options = options }

    /// The conversion in use (nil when swscale alone does it): for tests and `probe`-like reports.
    var conversion: ColorConversion? {
        switch plan {
        case .scale, .halve: nil
        case .scaleThenConvert(let k), .direct(let k), .viaScratch(let k): k.conversion
        }
    }

    /// Fits all of `src` into `target` (a view of the target's size), its alpha into `alpha`.
    func fit(_ src: UnsafeMutablePointer<AVFrame>, into target: Scaler.Target, alpha: Plane? = nil) throws {
        switch target {
        case .bytes: prepare(src, width: target.width, height: target.height, bits: 8, alpha: alpha != nil)
        case .words(_, let bits): prepare(src, width: target.width, height: target.height, bits: bits, alpha: alpha != nil)
        }
        let s = src.pointee
        let matrix = source!.matrix
        switch plan {
        case .scale:
            try scaler.scale(src, into: target, alpha: alpha, matrix: matrix)
        case .halve:
            // `prepare` checked the format, so the three planes are there, 8- or 16-bit as the target's.
            switch target {
            case .bytes(let o):
                BoxDownscale.halve(s.data.0!, sourceStride: Int(s.linesize.0), into: o.y)
                BoxDownscale.halve(s.data.1!, sourceStride: Int(s.linesize.1), into: o.u)
                BoxDownscale.halve(s.data.2!, sourceStride: Int(s.linesize.2), into: o.v)
            case .words(let o, _):
                func words(_ p: UnsafeMutablePointer<UInt8>?) -> UnsafePointer<UInt16> {
                    UnsafePointer(UnsafeRawPointer(p!).assumingMemoryBound(to: UInt16.self))
                }
                BoxDownscale.halve(words(s.data.0), sourceStride: Int(s.linesize.0) / 2, into: o.y)
                BoxDownscale.halve(words(s.data.1), sourceStride: Int(s.linesize.1) / 2, into: o.u)
                BoxDownscale.halve(words(s.data.2), sourceStride: Int(s.linesize.2) / 2, into: o.v)
            }
        case .scaleThenConvert(let kernel):
            try scaler.scale(src, into: target, alpha: alpha, matrix: matrix)
            switch target {
            case .bytes(let image): kernel.apply(image, into: image)
            case .words(let image, _): kernel.apply(image, into: image)
            }
        case .direct(let kernel):
            let w = Int(s.width), h = Int(s.height), cw = (w + 1) / 2, ch = (h + 1) / 2
            func plane(_ p: UnsafeMutablePointer<UInt8>?, _ stride: Int32, _ pw: Int, _ ph: Int) -> Plane16 {
                Plane16(base: UnsafeMutableRawPointer(p!).assumingMemoryBound(to: UInt16.self), stride: Int(stride) / 2, width: pw, height: ph)
            }
            let image = YUV16Image(
                y: plane(s.data.0, s.linesize.0, w, h), u: plane(s.data.1, s.linesize.1, cw, ch),
                v: plane(s.data.2, s.linesize.2, cw, ch))
            convert(kernel, image, into: target)
        case .viaScratch(let kernel):
            let image = scratch!.image
            try scaler.scale(src, into: .words(image, bits: 12), matrix: matrix)
            convert(kernel, image, into: target)
        }
    }

    private func convert(_ kernel: ColorConvertKernel, _ image: YUV16Image, into target: Scaler.Target) {
        switch target {
        case .bytes(let out): kernel.apply(image, into: out)
        case .words(let out, _): kernel.apply(image, into: out)
        }
    }

    /// Whether a picture of `size` needs no colour conversion (swscale alone would do): decided
    /// from the same cache as `fit`, so asking costs nothing per frame.
    func needsOnlyScaling(_ src: UnsafeMutablePointer<AVFrame>, size: Size, bits: Int = 8) -> Bool {
        prepare(src, width: size.width, height: size.height, bits: bits, alpha: false)
        switch plan {
        case .scale, .halve: return true
        default: return false
        }
    }

    /// Decides the plan for this picture if its format, size or tags differ from the last one's.
    private func prepare(_ src: UnsafeMutablePointer<AVFrame>, width: Int, height: Int, bits: Int, alpha: Bool) {
        let s = src.pointee
        var now = SIMD16<Int32>()
        now[0] = s.format; now[1] = s.width; now[2] = s.height; now[3] = Int32(width); now[4] = Int32(height)
        now[5] = (alpha ? 1 : 0) + 2 * Int32(bits); now[6] = Int32(s.color_range.rawValue); now[7] = Int32(s.colorspace.rawValue)
        now[8] = Int32(s.color_primaries.rawValue); now[9] = Int32(s.color_trc.rawValue)
        if now == key { return }
        key = now
        let reading = ColorReading(s)
        if source == nil { notes = reading.notes }
        let format = AVPixelFormat(rawValue: s.format)
        let isRGB = av_pix_fmt_desc_get(format).map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 } ?? false
        let working = options.working.description
        var read = reading.description
        // swscale puts RGB into the working signal's matrix (it is what swscale does well).
        if isRGB { read.matrix = working.matrix }
        source = read
        let metadata = HDRMetadata.of(src).merged(over: options.metadata)
        func conversion(_ from: ColorDescription) -> ColorConversion {
            ColorConversion(from: from, to: working, toneCurve: options.toneCurve, metadata: metadata)
        }
        // After swscale: the picture's matrix, video range, the target's depth.
        var scaled = read
        scaled.range = .limited
        scaled.bitDepth = bits
        let viaScale = conversion(scaled)
        switch viaScale.kind {
        case .identity:
            plan = .scale
        case .affine:
            plan = .scaleThenConvert(ColorConvertKernel(viaScale))
        case .curves where alpha:
            // An input with alpha is scaled with its alpha first (8-bit), then converted.
            plan = .scaleThenConvert(ColorConvertKernel(viaScale))
        case .curves:
            let directFormats = [AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_YUV420P12LE]
            if directFormats.contains(format) && Int(s.width) == width && Int(s.height) == height {
                plan = .direct(ColorConvertKernel(conversion(read)))
            } else {
                var twelve = scaled
                twelve.bitDepth = 12
                plan = .viaScratch(ColorConvertKernel(conversion(twelve)))
                if scratch?.width != width || scratch?.height != height {
                    scratch = YUV16Buffer(width: width, height: height)
                }
            }
        }
        let isScale: Bool
        if case .scale = plan { isScale = true } else { isScale = false }
        scalePath = Self.path(s, width: width, height: height, bits: bits, alpha: alpha, onlyScaled: isScale, halving: halving)
        if scalePath == .box { plan = .halve }
    }

    /// The box where the job asks for it and the picture only shrinks, by exactly half: same
    /// colours, no alpha, the target's own format (8- or 10-bit 4:2:0) and video range, twice
    /// the target's even width and height (so its chroma planes are exact halves too). Else
    /// swscale, and the first reason in that order.
    static func path(_ s: AVFrame, width: Int, height: Int, bits: Int, alpha: Bool, onlyScaled: Bool, halving: Halving) -> ScalePath {
        guard halving == .box else { return .swscale(.bicubicAskedFor) }
        guard onlyScaled else { return .swscale(.colours) }
        guard !alpha else { return .swscale(.alpha) }
        let same = bits == 8 ? AV_PIX_FMT_YUV420P.rawValue : bits == 10 ? AV_PIX_FMT_YUV420P10LE.rawValue : nil
        guard s.format == same else { return .swscale(.format) }
        guard s.color_range != AVCOL_RANGE_JPEG else { return .swscale(.range) }
        guard Int(s.width) == 2 * width, Int(s.height) == 2 * height, width % 2 == 0, height % 2 == 0 else {
            return .swscale(.notAnExactHalf)
        }
        return .box
    }
}
