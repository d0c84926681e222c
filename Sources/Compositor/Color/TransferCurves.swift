import RealModule

/// Signal to light and back, per channel, in linear units where 1.0 is 100 nits (SDR's
/// reference white; `zscale=t=linear:npl=100`). Display-referred, as zimg converts: an SDR
/// signal is shown by an ideal BT.1886 display (x^2.4), HLG through its OOTF with the system
/// gamma 1.2 of a 1000-nit display applied per channel (zimg's per-channel form; BT.2100's
/// luminance form makes saturated colours about 15% less chromatic than `zscale`, measured on
/// the shared colour checker), PQ absolute (10000 nits at signal 1).
public enum TransferCurves {
    // ARIB STD-B67 / BT.2100 HLG constants.
    static let hlgA = 0.17883277, hlgB = 0.28466892, hlgC = 0.55991073
    // SMPTE ST 2084 constants.
    static let pqM1 = 2610.0 / 16384, pqM2 = 2523.0 / 4096 * 128
    static let pqC1 = 3424.0 / 4096, pqC2 = 2413.0 / 4096 * 32, pqC3 = 2392.0 / 4096 * 32

    /// Linear light (1.0 = 100 nits) of a signal value.
    public static func toLinear(_ x: Double, _ transfer: ColorTransfer) -> Double {
        let e = max(x, 0)
        switch transfer {
        case .sdr:
            return Double.pow(e, 2.4)
        case .hlg:
            // Scene light 0...1, then the 1000-nit display's OOTF (gamma 1.2), in units of 100 nits.
            let scene = e <= 0.5 ? e * e / 3 : (Double.exp((e - hlgC) / hlgA) + hlgB) / 12
            return 10 * Double.pow(scene, 1.2)
        case .pq:
            guard e > 0 else { return 0 }
            let p = Double.pow(e, 1 / pqM2)
            return 100 * Double.pow(max(p - pqC1, 0) / max(pqC2 - pqC3 * p, .leastNormalMagnitude), 1 / pqM1)
        }
    }

    /// The signal value of linear light (1.0 = 100 nits); the inverse of `toLinear`.
    public static func toSignal(_ l: Double, _ transfer: ColorTransfer) -> Double {
        let v = max(l, 0)
        switch transfer {
        case .sdr:
            return Double.pow(v, 1 / 2.4)
        case .hlg:
            let scene = Double.pow(v / 10, 1 / 1.2)
            return scene <= 1.0 / 12 ? (3 * scene).squareRoot() : hlgA * Double.log(12 * scene - hlgB) + hlgC
        case .pq:
            guard v > 0 else { return 0 }
            let p = Double.pow(v / 100, pqM1)
            return Double.pow((pqC1 + pqC2 * p) / (1 + pqC3 * p), pqM2)
        }
    }

    /// The brightest light (1.0 = 100 nits) a signal of this transfer holds at 1.0.
    public static func nominalPeak(_ transfer: ColorTransfer) -> Double {
        switch transfer {
        case .sdr: 1;
        case .hlg: 10;
        case .pq: 100
        }
    }
}

/// How light above what the output can show is brought into it: FFmpeg's `tonemap` filter's
/// curves, applied as it applies them (to the largest of R, G, B in linear light, the same
/// factor to all three, so hue is kept; `desat=0`), with the signal's peak mapped to the
/// output's white.
public enum ToneCurve: String, Equatable, Sendable, CaseIterable {
    /// John Hable's filmic curve (Uncharted 2), FFmpeg's constants: a soft shoulder, darker
    /// mid-tones. The reference conversion of `../shared/media/phones/README.md`.
    case hable
    /// Möbius: linear (exact) up to 0.3, then a smooth roll-off to the peak.
    case mobius
    /// Reinhard: x / (x + 1), scaled so the peak lands on white (`reinhardParameter`).
    case reinhard
    /// Clip: linear, everything above white clipped (hue kept by the max-channel scaling).
    case clip

    /// Output light (0...1 of white) of input light `x` (1.0 = 100 nits) for a signal whose
    /// brightest light is `peak`. FFmpeg's vf_tonemap.c definitions and default parameters.
    public func map(_ x: Double, peak: Double) -> Double {
        switch self {
        case .hable: return Self.hable(x) / Self.hable(peak)
        case .mobius:
            let j = 0.3
            if x <= j { return x }
            let a = -j * j * (peak - 1) / (j * j - 2 * j + peak)
            let b = (j * j - 2 * j * peak + peak) / max(peak - 1, 1e-6)
            return (b * b + 2 * b * j + j * j) / (b - a) * (x + a) / (x + b)
        case .reinhard:
            let p = Self.reinhardParameter
            return x / (x + p) * (peak + p) / peak
        case .clip:
            return min(max(x, 0), 1)
        }
    }

    /// Reinhard's constant as FFmpeg uses it by default: 1. vf_tonemap's documented default
    /// "param 0.5" is the contrast c, turned into (1 - c) / c = 1 in `init`, and an unset param
    /// is 1 too. Lockstep had 0.5 here: the colour checker's bright patches came out up to
    /// ΔE 11 from `tonemap=reinhard` (issue 21).
    static let reinhardParameter = 1.0

    static func hable(_ x: Double) -> Double {
        let a = 0.15, b = 0.50, c = 0.10, d = 0.20, e = 0.02, f = 0.30
        return (x * (x * a + b * c) + d * e) / (x * (x * a + b) + d * f) - e / f
    }
}

/// A 3x3 matrix of doubles (row major): gamut conversions.
public struct Matrix3: Equatable, Sendable {
    public var m: [Double]
    public init(_ m: [Double]) { precondition(m.count == 9); self.m = m }
    public static let identity = Matrix3([1, 0, 0, 0, 1, 0, 0, 0, 1])

    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { r[3 * i + j] += a.m[3 * i + k] * b.m[3 * k + j] } } }
        return Matrix3(r)
    }

    public func apply(_ v: (Double, Double, Double)) -> (Double, Double, Double) {
        (m[0] * v.0 + m[1] * v.1 + m[2] * v.2, m[3] * v.0 + m[4] * v.1 + m[5] * v.2, m[6] * v.0 + m[7] * v.1 + m[8] * v.2)
    }

    public var inverse: Matrix3 {
        let a = m
        let c0 = a[4] * a[8] - a[5] * a[7], c1 = a[5] * a[6] - a[3] * a[8], c2 = a[3] * a[7] - a[4] * a[6]
        let det = a[0] * c0 + a[1] * c1 + a[2] * c2
        return Matrix3([
            c0 / det, (a[2] * a[7] - a[1] * a[8]) / det, (a[1] * a[5] - a[2] * a[4]) / det,
            c1 / det, (a[0] * a[8] - a[2] * a[6]) / det, (a[2] * a[3] - a[0] * a[5]) / det,
            c2 / det, (a[1] * a[6] - a[0] * a[7]) / det, (a[0] * a[4] - a[1] * a[3]) / det
        ])
    }

    /// Linear RGB of these primaries to CIE XYZ (SMPTE RP 177).
    public static func rgbToXYZ(_ p: ColorPrimaries) -> Matrix3 {
        let c = p.chromaticities
        func xyz(_ xy: (Double, Double)) -> (Double, Double, Double) { (xy.0 / xy.1, 1, (1 - xy.0 - xy.1) / xy.1) }
        let r = xyz(c.r), g = xyz(c.g), b = xyz(c.b), w = xyz(c.w)
        let primaries = Matrix3([r.0, g.0, b.0, r.1, g.1, b.1, r.2, g.2, b.2])
        let s = primaries.inverse.apply(w)
        return Matrix3([r.0 * s.0, g.0 * s.1, b.0 * s.2, r.1 * s.0, g.1 * s.1, b.1 * s.2, r.2 * s.0, g.2 * s.1, b.2 * s.2])
    }

    /// Linear RGB of primaries `from` to linear RGB of `to` (same white: no adaptation).
    public static func gamut(from: ColorPrimaries, to: ColorPrimaries) -> Matrix3 {
        from == to ? .identity : rgbToXYZ(to).inverse * rgbToXYZ(from)
    }
}
