/// GPUImage's chroma key, computed on the chroma planes:
///
///     Cb = 0.5647 (B - Y),  Cr = 0.7132 (R - Y)        (BT.601, R'G'B' in 0...1)
///     d  = distance((Cb, Cr), key's (Cb, Cr))
///     alpha = 1 - smoothstep(similarity, similarity + smoothness, d)
///     out = mix(foreground, background, alpha)
///
/// Those Cb and Cr are BT.601 chroma; the planes hold the working signal's (BT.709 for SDR).
/// Either is R'G'B' minus luma in fixed mixes, and R'G'B' is Y' plus a fixed mix of the planes'
/// chroma, so GPUImage's Cb and Cr are linear in the planes' (U, V) alone, whatever the luma:
/// alpha is tabulated once per key, 256 x 256 entries, and the per-pixel work is a lookup and a
/// blend. (On BT.601 planes the map is the identity.)
public struct ChromaKey: Sendable {
    public var keyColor: RGB
    public var similarity: Double
    public var smoothness: Double
    /// alpha * 255 for every (U, V): 0 keeps the foreground, 255 shows the background.
    public let table: [UInt8]

    /// `matrix`: the planes' (the working signal's).
    public init(
        keyColor: RGB = RGB(r: 0, g: 255, b: 0), similarity: Double = 0.4, smoothness: Double = 0.1,
        matrix: ColorMatrix = .bt709
    ) {
        self.keyColor = keyColor; self.similarity = similarity; self.smoothness = smoothness
        let r = Double(keyColor.r) / 255, g = Double(keyColor.g) / 255, b = Double(keyColor.b) / 255
        let y = 0.2989 * r + 0.5866 * g + 0.1145 * b
        let keyCb = 0.5647 * (b - y), keyCr = 0.7132 * (r - y)
        var table = [UInt8](repeating: 0, count: 256 * 256)
        for u in 0..<256 {
            for v in 0..<256 {
                // The pixel's R'G'B' minus its luma, then GPUImage's Cb and Cr of that.
                let (pr, pg, pb) = matrix.rgb(0, (Double(u) - 128) / 224, (Double(v) - 128) / 224)
                let py = 0.2989 * pr + 0.5866 * pg + 0.1145 * pb
                let cb = 0.5647 * (pb - py), cr = 0.7132 * (pr - py)
                let d = ((cb - keyCb) * (cb - keyCb) + (cr - keyCr) * (cr - keyCr)).squareRoot()
                let a = 1 - ChromaKey.smoothstep(similarity, similarity + smoothness, d)
                table[u << 8 | v] = UInt8((a * 255).rounded())
            }
        }
        self.table = table
    }

    /// alpha (0...1) of one chroma sample.
    public func alpha(u: UInt8, v: UInt8) -> Double { Double(table[Int(u) << 8 | Int(v)]) / 255 }

    static func smoothstep(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
        guard e1 > e0 else { return x < e0 ? 0 : 1 }
        let t = min(1, max(0, (x - e0) / (e1 - e0)))
        return t * t * (3 - 2 * t)
    }

    /// out = key(foreground over background). `out` may be `background` (keying in place, as
    /// a stack does); all three are the same size.
    public func apply(foreground fg: YUVImage, background bg: YUVImage, into out: YUVImage) {
        precondition(fg.width == bg.width && fg.height == bg.height && out.width == fg.width && out.height == fg.height)
        table.withUnsafeBufferPointer { lut in
            let cw = fg.u.width, ch = fg.u.height, w = fg.width, h = fg.height
            for cy in 0..<ch {
                let fu = fg.u.row(cy), fv = fg.v.row(cy), bu = bg.u.row(cy), bv = bg.v.row(cy)
                let ou = out.u.row(cy), ov = out.v.row(cy)
                let y0 = 2 * cy, y1 = min(2 * cy + 1, h - 1)
                let fy0 = fg.y.row(y0), fy1 = fg.y.row(y1), by0 = bg.y.row(y0), by1 = bg.y.row(y1)
                let oy0 = out.y.row(y0), oy1 = out.y.row(y1)
                for cx in 0..<cw {
                    let a = Int(lut[Int(fu[cx]) << 8 | Int(fv[cx])])
                    let x0 = 2 * cx, x1 = min(2 * cx + 1, w - 1)
                    if a == 0 {
                        ou[cx] = fu[cx]; ov[cx] = fv[cx]
                        oy0[x0] = fy0[x0]; oy0[x1] = fy0[x1]; oy1[x0] = fy1[x0]; oy1[x1] = fy1[x1]
                    } else if a == 255 {
                        ou[cx] = bu[cx]; ov[cx] = bv[cx]
                        oy0[x0] = by0[x0]; oy0[x1] = by0[x1]; oy1[x0] = by1[x0]; oy1[x1] = by1[x1]
                    } else {
                        ou[cx] = blend(fu[cx], bu[cx], a); ov[cx] = blend(fv[cx], bv[cx], a)
                        oy0[x0] = blend(fy0[x0], by0[x0], a); oy0[x1] = blend(fy0[x1], by0[x1], a)
                        oy1[x0] = blend(fy1[x0], by1[x0], a); oy1[x1] = blend(fy1[x1], by1[x1], a)
                    }
                }
            }
        }
    }
}

/// mix(a, b, alpha/255), rounded.
@inline(__always) func blend(_ a: UInt8, _ b: UInt8, _ alpha: Int) -> UInt8 {
    let x = Int(a) * (255 - alpha) + Int(b) * alpha + 127
    return UInt8(truncatingIfNeeded: (x + 1 + (x >> 8)) >> 8)
}
