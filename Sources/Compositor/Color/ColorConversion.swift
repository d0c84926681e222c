/// How one input's pictures become the working signal: nothing, a linear re-expression (matrix
/// and range: `MatrixConversion`, swscale), or the full chain through light:
///
///     Y'CbCr (source matrix, range) -> R'G'B' -> linear light (source transfer, 1.0 = 100 nits)
///     -> target primaries (3x3 in linear light) -> tone curve on max(R, G, B) when the source
///     is brighter than the target holds -> target transfer -> Y'CbCr (target matrix, range)
///
/// the chain of `zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable:desat=0,
/// zscale=t=bt709:m=bt709:r=tv` (README of ../shared/media/phones). Out-of-gamut colours (a
/// channel below 0 in the target primaries) are clipped to 0 per channel after the tone curve,
/// as zimg does. `convert` is that chain in Double, per colour; `ColorConvertKernel` runs it on
/// pictures from tables made here once per input.
public struct ColorConversion: Sendable {
    public enum Kind: Equatable, Sendable {
        /// The numbers already mean the target's colours (range and bit depth aside).
        case identity
        /// Only matrix and range differ: a linear map of Y'CbCr.
        case affine
        /// Transfer or primaries differ: through linear light.
        case curves
    }

    public let source: ColorDescription
    public let target: ColorDescription
    public let kind: Kind
    public let toneCurve: ToneCurve
    /// The source's brightest light (1.0 = 100 nits) and the target's.
    public let sourcePeak: Double, targetPeak: Double
    /// Source linear RGB to target linear RGB.
    public let gamut: Matrix3
    /// SDR light scaled into an HDR target: SDR's white (100 nits) becomes BT.2408's HDR
    /// reference white, 203 nits (HLG 75%, PQ 58%).
    public let sdrGain: Double
    /// A tone curve is applied (the source may be brighter than the target).
    public let toneMaps: Bool

    /// `metadata`: the source's mastering display and light levels (PQ's peak); none: 1000 nits.
    public init(
        from source: ColorDescription, to target: ColorDescription, toneCurve: ToneCurve = .hable,
        metadata: HDRMetadata = HDRMetadata()
    ) {
        self.source = source; self.target = target; self.toneCurve = toneCurve
        let samePrimaries =
            source.primaries == target.primaries
            || (source.primaries.treatedAsBT709 && target.primaries.treatedAsBT709)
        if source.transfer == target.transfer && samePrimaries {
            kind = source.matrix == target.matrix && source.range == target.range ? .identity : .affine
        } else {
            kind = .curves
        }
        gamut = samePrimaries ? .identity : .gamut(from: source.primaries, to: target.primaries)
        sdrGain = source.transfer == .sdr && target.isHDR ? 2.03 : 1
        sourcePeak = source.isHDR ? metadata.peakNits / 100 : 1
        targetPeak = TransferCurves.nominalPeak(target.transfer)
        toneMaps = sourcePeak * sdrGain > targetPeak * 1.0001
    }

    /// Normalised source Y'CbCr (y 0...1, cb and cr -0.5...0.5 for legal values) of a sample
    /// triple of `source.bitDepth` bits in its range.
    public static func normalise(_ y: Double, _ cb: Double, _ cr: Double, _ d: ColorDescription) -> (Double, Double, Double) {
        let s = Double(1 << (d.bitDepth - 8))
        switch d.range {
        case .limited: return ((y - 16 * s) / (219 * s), (cb - 128 * s) / (224 * s), (cr - 128 * s) / (224 * s))
        case .full:
            let top = Double((1 << d.bitDepth) - 1), mid = Double(1 << (d.bitDepth - 1))
            return (y / top, (cb - mid) / top, (cr - mid) / top)
        }
    }

    /// Sample values (not rounded) of normalised Y'CbCr in `d`'s range and bit depth.
    public static func quantise(_ y: Double, _ cb: Double, _ cr: Double, _ d: ColorDescription) -> (Double, Double, Double) {
        let s = Double(1 << (d.bitDepth - 8))
        switch d.range {
        case .limited: return (16 * s + 219 * s * y, 128 * s + 224 * s * cb, 128 * s + 224 * s * cr)
        case .full:
            let top = Double((1 << d.bitDepth) - 1), mid = Double(1 << (d.bitDepth - 1))
            return (top * y, mid + top * cb, mid + top * cr)
        }
    }

    /// Light (1.0 = 100 nits) of one source channel's signal.
    public func linear(_ e: Double) -> Double { TransferCurves.toLinear(e, source.transfer) * sdrGain }

    /// The factor the tone curve applies to a colour whose largest channel is `m`.
    public func toneGain(_ m: Double) -> Double {
        guard toneMaps else { return 1 }
        let x = max(m, 1e-6)
        // The curve maps the source's peak to 1; the target's white is `targetPeak` light units.
        return targetPeak * toneCurve.map(x / targetPeak, peak: sourcePeak * sdrGain / targetPeak) / x
    }

    /// The target signal of one channel's light.
    public func signal(_ l: Double) -> Double { TransferCurves.toSignal(l, target.transfer) }

    /// The whole chain on normalised Y'CbCr: normalised target Y'CbCr.
    public func convert(_ y: Double, _ cb: Double, _ cr: Double) -> (Double, Double, Double) {
        let (r, g, b) = source.matrix.rgb(y, cb, cr)
        switch kind {
        case .identity, .affine:
            return target.matrix.yuv(r, g, b)
        case .curves:
            let l = gamut.apply((linear(r), linear(g), linear(b)))
            let k = toneGain(max(l.0, l.1, l.2))
            return target.matrix.yuv(signal(l.0 * k), signal(l.1 * k), signal(l.2 * k))
        }
    }
}
