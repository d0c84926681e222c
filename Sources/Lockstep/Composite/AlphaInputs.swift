import Compositor
import Foundation
import Media

/// Inputs that carry alpha, keyed by it in `stack` and `chromakey` (the key colour then ignored
/// for that input unless `--key-alpha-and-color`, which multiplies the two).
extension CompositeOptions {
    /// Whether input `i` is a keyed layer: chromakey's foreground (the first), a stack's upper layers.
    func isKeyedLayer(_ i: Int) -> Bool {
        switch blend {
        case .chromakey: return i == 0
        case .stack: return i > 0
        case .mix, .quad, .grid, .pip, .single: return false
        }
    }

    /// The alpha conformer of input `i`, when it is a keyed layer whose pixels carry alpha and
    /// is not turned (a turned one is keyed by colour, as before).
    func alphaConformer(ofInput i: Int, reader: MovieReader, place: Size, picture: Rect, fill: YUVColor) throws -> AlphaConformer? {
        guard isKeyedLayer(i), reader.video.rotation == 0, PixelFormats.hasAlpha(reader.video.pixelFormat) else { return nil }
        if signal.isHDR {
            throw CompositeOptionsError.hdrAlphaInput(hdr: signal.rawValue, input: i, path: reader.path)
        }
        return try AlphaConformer(place: place, picture: picture, fill: fill, color: color(of: reader))
    }
}

extension Blender {
    /// Keys `fg` over `under` into `o` by `alpha` (and, with `keyAlphaAndColor`, by the key as
    /// well: keyed by colour first, then mixed over `under` by the alpha). `under` must not be
    /// `o` when keying by colour too (`scratch` holds a copy then).
    static func keyByAlpha(
        _ fg: YUVImage, alpha: Plane, under: YUVImage, into o: YUVImage, mix: MatteMix,
        andColor: Bool, key: ChromaKey, keyer: Keyer?, scratch: YUVImage?
    ) {
        guard andColor else { mix.apply(over: fg, under: under, matte: alpha, into: o); return }
        var below = under
        if under.y.base == o.y.base, let scratch { PlaneKernels.copy(under, into: scratch); below = scratch }
        if let keyer { keyer.apply(foreground: fg, background: below, into: o) } else { key.apply(foreground: fg, background: below, into: o) }
        mix.apply(over: o, under: below, matte: alpha, into: o)
    }
}
