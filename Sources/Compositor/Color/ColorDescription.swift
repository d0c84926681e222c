/// What a picture's numbers mean: the Y'CbCr matrix, the range, the primaries (which red,
/// green and blue), the transfer (how signal becomes light) and the bits per sample. Read from
/// each input (`Media` turns FFmpeg's tags into this), decided for the output (`WorkingSignal`).
public struct ColorDescription: Equatable, Sendable, CustomStringConvertible {
    public var matrix: ColorMatrix
    public var range: ColorRange
    public var primaries: ColorPrimaries
    public var transfer: ColorTransfer
    /// Bits per sample as stored (8, 10, 12).
    public var bitDepth: Int

    public init(matrix: ColorMatrix, range: ColorRange, primaries: ColorPrimaries, transfer: ColorTransfer, bitDepth: Int) {
        self.matrix = matrix; self.range = range; self.primaries = primaries; self.transfer = transfer; self.bitDepth = bitDepth
    }

    public var isHDR: Bool { transfer == .hlg || transfer == .pq }

    /// "BT.2020 HLG, limited range, 10-bit": how warnings and `probe` name it.
    public var description: String {
        let t: String
        switch transfer {
        case .sdr: t = "SDR"
        case .hlg: t = "HLG"
        case .pq: t = "PQ"
        }
        return "\(matrix.displayName) matrix, \(primaries.displayName) primaries, \(t), \(range.rawValue) range, \(bitDepth)-bit"
    }

    /// What an input that says nothing about some of these is taken to be, FFmpeg's and the
    /// players' convention (mpv's `mp_csp_guess_colorspace`): standard definition (narrower than
    /// 1280 and at most 576 lines) is BT.601, anything larger BT.709; the primaries follow the
    /// matrix (SD: 625-line EBU for 576 lines, else 525-line SMPTE C); SDR; limited range.
    public static func guessMatrix(width: Int, height: Int) -> ColorMatrix {
        width >= 1280 || height > 576 ? .bt709 : .bt601
    }

    public static func guessPrimaries(for matrix: ColorMatrix, height: Int) -> ColorPrimaries {
        switch matrix {
        case .bt709: return .bt709
        case .bt2020: return .bt2020
        case .bt601: return height == 576 || height == 288 ? .bt470bg : .smpte170m
        }
    }
}

public enum ColorRange: String, Equatable, Sendable {
    /// Video range: 8-bit luma 16-235, chroma 16-240 (and the same scaled by 2^(n-8)).
    case limited
    /// Full range (`yuvj`, JPEG): 0 to 2^n - 1.
    case full
}

/// Which red, green and blue (all with a D65 white). BT.601's two sets differ from BT.709's by
/// a few thousandths in x, y: see `treatedAsBT709`.
public enum ColorPrimaries: String, Equatable, Sendable, CaseIterable {
    case bt709
    /// BT.601 625-line (EBU, PAL).
    case bt470bg
    /// BT.601 525-line (SMPTE C, NTSC); SMPTE 240M's are the same.
    case smpte170m
    case bt2020
    /// Display P3 (D65): some phones' stills.
    case smpte432

    var displayName: String {
        switch self {
        case .bt709: "BT.709"
        case .bt470bg: "BT.601-625"
        case .smpte170m: "BT.601-525"
        case .bt2020: "BT.2020"
        case .smpte432: "Display P3"
        }
    }

    /// The CIE 1931 xy chromaticities of red, green, blue and white.
    public var chromaticities: (r: (Double, Double), g: (Double, Double), b: (Double, Double), w: (Double, Double)) {
        let d65 = (0.3127, 0.3290)
        switch self {
        case .bt709: return ((0.640, 0.330), (0.300, 0.600), (0.150, 0.060), d65)
        case .bt470bg: return ((0.640, 0.330), (0.290, 0.600), (0.150, 0.060), d65)
        case .smpte170m: return ((0.630, 0.340), (0.310, 0.595), (0.155, 0.070), d65)
        case .bt2020: return ((0.708, 0.292), (0.170, 0.797), (0.131, 0.046), d65)
        case .smpte432: return ((0.680, 0.320), (0.265, 0.690), (0.150, 0.060), d65)
        }
    }

    /// BT.601's primaries are taken as BT.709's for an SDR picture, as players, FFmpeg's
    /// `scale` and every phone-to-web pipeline do: the difference is within what SD sources
    /// ever held, and converting would make SD footage (every existing SD clip and camera)
    /// go through the non-linear path for nothing visible. Wide gamuts (BT.2020, P3) are converted.
    public var treatedAsBT709: Bool { self == .bt709 || self == .bt470bg || self == .smpte170m }
}

public enum ColorTransfer: String, Equatable, Sendable {
    /// Standard dynamic range: BT.709/601/2020 camera curves, sRGB, gamma 2.2: shown by a
    /// BT.1886 display (pure 2.4 power, reference white 100 nits), the display-referred way
    /// zimg (`zscale`) converts them.
    case sdr
    /// ARIB STD-B67 / BT.2100 hybrid log-gamma.
    case hlg
    /// SMPTE ST 2084 / BT.2100 perceptual quantiser (HDR10, Dolby Vision's HDR10 base layer).
    case pq
}

extension ColorMatrix {
    var displayName: String {
        switch self {
        case .bt601: "BT.601";
        case .bt709: "BT.709";
        case .bt2020: "BT.2020 (NCL)"
        }
    }
}

/// The one signal every picture is converted into before any kernel touches it, and which the
/// output carries (tagged): keying, blending and filters all happen on it.
public enum WorkingSignal: String, Equatable, Sendable, CaseIterable {
    /// BT.709 matrix, primaries and transfer, limited range, 8-bit: the default output.
    case sdr
    /// BT.2020 NCL, HLG, limited range, 10-bit (HEVC output).
    case hlg
    /// BT.2020 NCL, PQ, limited range, 10-bit (HEVC output).
    case pq

    public var description: ColorDescription {
        switch self {
        case .sdr: ColorDescription(matrix: .bt709, range: .limited, primaries: .bt709, transfer: .sdr, bitDepth: 8)
        case .hlg: ColorDescription(matrix: .bt2020, range: .limited, primaries: .bt2020, transfer: .hlg, bitDepth: 10)
        case .pq: ColorDescription(matrix: .bt2020, range: .limited, primaries: .bt2020, transfer: .pq, bitDepth: 10)
        }
    }

    public var isHDR: Bool { self != .sdr }
    public var matrix: ColorMatrix { description.matrix }
}

/// Static HDR metadata: the mastering display (SMPTE ST 2086) and the content light levels
/// (CTA-861.3), in nits and CIE xy. What a PQ picture's tone mapping needs to know its peak.
public struct HDRMetadata: Equatable, Sendable {
    /// Red, green, blue and white point of the mastering display.
    public var displayPrimaries: [Double]?
    public var minLuminance: Double?
    public var maxLuminance: Double?
    /// Maximum content light level and maximum frame-average light level.
    public var maxCLL: Int?
    public var maxFALL: Int?
    public init(displayPrimaries: [Double]? = nil, minLuminance: Double? = nil, maxLuminance: Double? = nil, maxCLL: Int? = nil, maxFALL: Int? = nil) {
        self.displayPrimaries = displayPrimaries; self.minLuminance = minLuminance; self.maxLuminance = maxLuminance
        self.maxCLL = maxCLL; self.maxFALL = maxFALL
    }

    public var isEmpty: Bool { displayPrimaries == nil && maxLuminance == nil && maxCLL == nil }

    /// The signal's peak in nits, as FFmpeg's `tonemap` takes it (`ff_determine_signal_peak`):
    /// MaxCLL, else the mastering display's maximum, else 1000 nits.
    public var peakNits: Double {
        if let c = maxCLL, c > 0 { return Double(c) }
        if let m = maxLuminance, m > 0 { return m }
        return 1000
    }
}
