/// `--matte`: a greyscale picture as a per-pixel weight between two pictures (AVCamFilter's depth
/// mix, scaled by its slider `--mix-factor`). The matte's luma is read as video-range (16 black:
/// weight 0, 235 white: weight 1), as every movie we decode is converted to yuv420p; a colour
/// matte counts by its luma alone. Chroma samples take the mean weight of the 2x2 luma pixels
/// they cover, so an edge in the matte stays at luma resolution in the luma plane.
///
/// out = under + (over - under) * w, in 8-bit fixed point (w in 0...256). Nothing is allocated
/// per frame: the weight table is made once, for the mix factor.
public struct MatteMix: Sendable, Equatable {
    /// The weight (0...256) of each matte luma value, the mix factor applied.
    private let table: [UInt16]
    public let factor: Double

    /// `fullRange`: the weights are an alpha plane's (0 transparent, 255 opaque) rather than a
    /// matte movie's video-range luma.
    public init(factor: Double, fullRange: Bool = false) {
        precondition(factor >= 0 && factor <= 1, "mix factor outside 0...1")
        self.factor = factor
        table = (0..<256).map { y in
            let w = (fullRange ? Double(y) / 255 : min(max(Double(y - 16) / 219, 0), 1)) * factor
            return UInt16((w * 256).rounded())
        }
    }

    /// The weight (0...256) of one matte luma value.
    public func weight(_ luma: UInt8) -> Int { Int(table[Int(luma)]) }

    @inline(__always) static func lerp(_ under: UInt8, _ over: UInt8, _ w: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: (Int(under) * (256 - w) + Int(over) * w + 128) >> 8)
    }

    /// Mixes `over` onto `under` with the weights of `matte` (a luma or alpha plane) into `out`
    /// (which may be `under` or `over`). All four are the same size.
    public func apply(over: YUVImage, under: YUVImage, matte: Plane, into out: YUVImage) {
        precondition(
            over.width == out.width && under.width == out.width && matte.width == out.width
                && over.height == out.height && under.height == out.height && matte.height == out.height)
        table.withUnsafeBufferPointer { t in
            for y in 0..<out.height {
                let o = over.y.row(y), u = under.y.row(y), m = matte.row(y), d = out.y.row(y)
                for x in 0..<out.width { d[x] = Self.lerp(u[x], o[x], Int(t[Int(m[x])])) }
            }
            Self.chroma(over: over.u, under: under.u, matte: matte, into: out.u, size: (out.width, out.height), t)
            Self.chroma(over: over.v, under: under.v, matte: matte, into: out.v, size: (out.width, out.height), t)
        }
    }

    private static func chroma(
        over op: Plane, under up: Plane, matte: Plane, into dp: Plane, size: (Int, Int),
        _ t: UnsafeBufferPointer<UInt16>
    ) {
        for cy in 0..<dp.height {
            let y0 = min(2 * cy, size.1 - 1), y1 = min(2 * cy + 1, size.1 - 1)
            let m0 = matte.row(y0), m1 = matte.row(y1)
            let o = op.row(cy), u = up.row(cy), d = dp.row(cy)
            for cx in 0..<dp.width {
                let x0 = min(2 * cx, size.0 - 1), x1 = min(2 * cx + 1, size.0 - 1)
                let w = (Int(t[Int(m0[x0])]) + Int(t[Int(m0[x1])]) + Int(t[Int(m1[x0])]) + Int(t[Int(m1[x1])]) + 2) >> 2
                d[cx] = lerp(u[cx], o[cx], w)
            }
        }
    }
}

/// `--matte-mode`: how the matte meets the keyer's own alpha in `composite`.
public enum MatteMode: String, CaseIterable, Sendable {
    /// The matte is the foreground's alpha; the key colour is not looked at.
    case replace
    /// The keyer's alpha times the matte.
    case multiply
}
