import CVectors

/// The colour-difference key, written as linear forms on video-range chroma.
///
/// Every R'G'B' channel is Y' plus a fixed mix of Cb and Cr (in any matrix: the working
/// signal's, BT.709 for SDR), so the difference of two
/// channels does not depend on luma at all: a green screen's strength `G - (b R + (1 - b) B)`
/// is `ku * u + kv * v` with u = U - 128, v = V - 128, in 8-bit R'G'B' units. That is why the
/// matte can be computed from chroma alone, on chroma that has been upsampled to every luma pixel.
public struct ColourDifference: Sendable, Equatable {
    /// The screen's strongest channel: 0 red, 1 green, 2 blue.
    public let primary: Int
    public let ku: Float, kv: Float
    /// Primary minus each of the two other channels (a pixel is screen only where both are positive).
    public let d1u: Float, d1v: Float, d2u: Float, d2v: Float
    /// The strength is at most `cap` times the primary's lead over the larger other channel
    /// (`strength(u:v:)`).
    public let cap: Float

    /// 8-bit R'G'B' per 8-bit chroma step: 255 / 224.
    static let scale = 255.0 / 224.0

    /// `balance` weighs the lower-numbered other channel (red for green and blue screens), as
    /// Blender's keying node does: 0.5 is their average. `matrix`: the planes' (the working signal's).
    public init(screen: RGB, balance: Double, cap: Double = 2, matrix: ColorMatrix = .bt709) {
        // (Cb, Cr) weights of R', G', B' in the matrix.
        let cbWeights = [0, matrix.cbToG, matrix.cbToB], crWeights = [matrix.crToR, matrix.crToG, 0]
        let c = [Int(screen.r), Int(screen.g), Int(screen.b)]
        // The strongest channel; a tie goes to green, then blue (the usual screens).
        let p = [1, 2, 0].max { c[$0] < c[$1] }!
        let others = [0, 1, 2].filter { $0 != p }
        let o1 = others[0], o2 = others[1]
        primary = p
        self.cap = Float(cap)
        func form(_ w1: Double, _ w2: Double) -> (Float, Float) {
            (
                Float(Self.scale * (cbWeights[p] - w1 * cbWeights[o1] - w2 * cbWeights[o2])),
                Float(Self.scale * (crWeights[p] - w1 * crWeights[o1] - w2 * crWeights[o2]))
            )
        }
        (ku, kv) = form(balance, 1 - balance)
        (d1u, d1v) = form(1, 0)
        (d2u, d2v) = form(0, 1)
    }

    /// The screen strength of chroma (u, v) (centred on 0): 0 where the primary is not the
    /// largest channel (Blender's rule: such a pixel is foreground, whatever the balance says),
    /// and at most twice the primary's lead over the larger other channel, so it falls to 0
    /// continuously there. (With a switch to 0, an orange or pink edge half over the screen,
    /// whose mix sits at that boundary, flipped with the noise between partly keyed and opaque:
    /// issue 44's flowers and trolls plates, the matte's crawl.)
    @inline(__always) public func strength(u: Float, v: Float) -> Float {
        let s = ku * u + kv * v
        let e1 = d1u * u + d1v * v, e2 = d2u * u + d2v * v
        return max(min(s, cap * min(e1, e2)), 0)
    }

    public func strength(of color: YUVColor) -> Float {
        strength(u: Float(Int(color.u) - 128), v: Float(Int(color.v) - 128))
    }
}

/// Matte levels: the raw matte (1 - strength / screen strength) mapped so that `clipBlack` and
/// below is 0, `clipWhite` and above is 1, linear between.
public struct MatteLevels: Sendable, Equatable {
    public let black: Float, white: Float
    /// 255 / (white - black): one multiplication per pixel instead of a division.
    let scale: Float
    /// A pixel whose screen share p (1 - raw matte) is at least `transparentFrom` is 0, at most
    /// `opaqueUpTo` is 255: `byte` lands within half a step of 0 or 255 there. The slack (a
    /// thousandth of a step and 1e-6) is at least nine times the rounding of `byte`'s few Float
    /// operations (about 1.2e-7 of p). The lane kernel skips the levels for blocks wholly past
    /// a cut.
    let transparentFrom: Float, opaqueUpTo: Float
    public init(black: Double, white: Double) {
        precondition(white > black)
        self.black = Float(black); self.white = Float(white)
        scale = Float(255 / (white - black))
        let step = (white - black) / 255, slack = 1e-6 + 0.001 * step
        transparentFrom = Float(1 - black - 0.5 * step + slack)
        opaqueUpTo = Float(1 - white + 0.5 * step - slack)
    }
    /// alpha * 255, rounded (half to even), from the raw matte.
    @inline(__always) public func byte(_ raw: Float) -> UInt8 {
        // Adding 1.5 * 2^23 leaves the rounded integer in the low mantissa bits: an unchecked
        // conversion the compiler can vectorise (Int32(_:) checks its range on every pixel).
        let a = min(max((raw - black) * scale, 0), 255)
        return UInt8(truncatingIfNeeded: (a + 12_582_912).bitPattern)
    }
}

/// The screen as it is lit in this frame, on a coarse grid (one cell per 16x16 luma pixels):
/// its luma, its chroma and its strength, measured from the pixels that look like screen.
/// Cells with no screen in them take their neighbours' values. The matte is normalised by the
/// local screen strength (so a shadow on the screen still keys), and the screen colour is what
/// the composite subtracts from the edge pixels before adding the background.
final class ScreenEstimate {
    static let cell = 8  // chroma samples per cell side (16 luma pixels)
    let gridWidth: Int, gridHeight: Int
    /// Per cell: weight, then weighted Y, u, v sums; then the finished Y, u, v, the matte's
    /// 1 / strength and its spill allowance per luma step (`finish`). (Memory the estimate owns:
    /// an array property would be checked for exclusive access and uniqueness on every element
    /// written.)
    let weight: UnsafeMutablePointer<Float>, sy: UnsafeMutablePointer<Float>, su: UnsafeMutablePointer<Float>
    let sv: UnsafeMutablePointer<Float>, inverse: UnsafeMutablePointer<Float>, allowance: UnsafeMutablePointer<Float>
    /// The screen's strength per unit of luma above black (both in R'G'B' units): the despill's
    /// limit per unit of a pixel's luma (`Despill`).
    let ratio: UnsafeMutablePointer<Float>
    /// The screen as measured in the last frame: its strongest cell (nil: no screen seen).
    private(set) var measured: YUVColor?
    private let filledRows: UnsafeMutablePointer<Bool>
    /// gridWidth x gridHeight.
    let cells: Int
    /// Per luma column: the two grid columns around it and the interpolation weight (memory
    /// this estimate owns, read on every row of the hot path).
    let column0: UnsafeMutablePointer<Int32>, column1: UnsafeMutablePointer<Int32>, columnT: UnsafeMutablePointer<Float>
    /// Per group of eight luma columns (8j ..< 8j + 8): its two grid columns. Cell centres sit
    /// at 8 + 16c, so every group lies between the same two (checked in init); the lane kernels
    /// rely on it.
    let group0: UnsafeMutablePointer<Int32>, group1: UnsafeMutablePointer<Int32>
    /// Per chroma sample: the interpolation weight at its even (2cx) and odd (2cx + 1) luma column.
    let evenT: UnsafeMutablePointer<Float>, oddT: UnsafeMutablePointer<Float>
    let width: Int

    /// One measured row's samples: weight, luma, u, v.
    private let sampleWeight: UnsafeMutablePointer<Float>, sampleLuma: UnsafeMutablePointer<Float>
    private let sampleU: UnsafeMutablePointer<Float>, sampleV: UnsafeMutablePointer<Float>
    /// Owns every buffer above.
    private let scratch = ScratchMemory()

    /// The per-cell values a row can be interpolated from.
    enum Table { case y, u, v, inverse, allowance, ratio }

    init(width: Int, height: Int) {
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        self.width = width
        gridWidth = (cw + Self.cell - 1) / Self.cell; gridHeight = (ch + Self.cell - 1) / Self.cell
        let n = gridWidth * gridHeight
        cells = n
        let m = scratch
        weight = m.buffer(count: n); sy = m.buffer(count: n); su = m.buffer(count: n); sv = m.buffer(count: n); inverse = m.buffer(count: n); allowance = m.buffer(count: n)
        ratio = m.buffer(count: n)
        filledRows = m.buffer(count: gridHeight, value: false)
        column0 = m.buffer(count: width); column1 = m.buffer(count: width); columnT = m.buffer(count: width)
        let groups = (width + 7) / 8
        group0 = m.buffer(count: groups); group1 = m.buffer(count: groups)
        evenT = m.buffer(count: cw); oddT = m.buffer(count: cw)
        let samples = 4 * gridWidth
        sampleWeight = m.buffer(count: samples); sampleLuma = m.buffer(count: samples)
        sampleU = m.buffer(count: samples); sampleV = m.buffer(count: samples)
        for x in 0..<width {
            let (i0, i1, f) = Self.position(Double(x) + 0.5, cells: gridWidth)
            column0[x] = Int32(i0); column1[x] = Int32(i1); columnT[x] = f
        }
        for j in 0..<groups {
            group0[j] = column0[8 * j]; group1[j] = column1[8 * j]
            for x in (8 * j)..<min(8 * j + 8, width) {
                precondition(column0[x] == group0[j] && column1[x] == group1[j], "grid columns change inside a group of eight")
            }
        }
        for cx in 0..<cw { evenT[cx] = columnT[2 * cx]; oddT[cx] = 2 * cx + 1 < width ? columnT[2 * cx + 1] : 0 }
    }

    /// Grid coordinates of a luma coordinate (pixel centres at +0.5; cell centres every 16).
    @inline(__always) static func position(_ luma: Double, cells: Int) -> (Int, Int, Float) {
        let g = min(max((luma - 8) / 16, 0), Double(cells - 1))
        let i0 = Int(g.rounded(.down)), i1 = min(i0 + 1, cells - 1)
        return (i0, i1, Float(g - Double(i0)))
    }

    /// Measures the screen of `image`. A chroma sample counts when its strength is over 15% of
    /// the reference screen's, weighted by (strength x strength-to-luma ratio)^4: edge pixels
    /// (part screen, part subject) are weaker, and a light semi-transparent subject over the
    /// screen (glass, a veil) is weaker *for its brightness* than the screen, whereas a shadow
    /// on the screen dims strength and luma alike. So they barely move the estimate of a cell
    /// that also holds pure screen.
    /// `cast`: the spill cast (`KeyerSettings.spillCast`) the matte allows for (`finish`).
    func measure(
        _ image: YUVImage, key: ColourDifference, reference: Float, fallback: YUVColor, cast: Float, avx2: Bool = KeyerVectors.avx2
    ) {
        for i in 0..<cells { weight[i] = 0; sy[i] = 0; su[i] = 0; sv[i] = 0 }
        let cw = image.u.width, ch = image.u.height, h = image.height, w = image.width
        let threshold = 0.15 * reference, invRef = 1 / reference
        let lumaScale: Float = 255 / 219
        let wt = weight, gy = sy, gu = su, gv = sv
        var k = key.lanes
        do {
            // Every other chroma sample both ways: 16 samples per cell are plenty for a mean,
            // and the measurement costs a quarter of a full pass. A cell's four samples of a row
            // are summed in registers, in the same order as one at a time.
            for cy in stride(from: 0, to: ch, by: 2) {
                let ur = image.u.row(cy), vr = image.v.row(cy)
                let y0 = image.y.row(2 * cy), y1 = image.y.row(min(2 * cy + 1, h - 1))
                let rowBase = (cy / Self.cell) * gridWidth
                // First each sample's weight (0 under the threshold: adding +0 changes no sum)
                // and luma, in a loop without a carried dependency; then the sums, cell by cell.
                var n = 0
                // Eight samples (sixteen chroma, thirty-two luma columns) at a time on lanes,
                // the same operations as the scalar loop below; in C (KeyerRows.h) where it runs.
                var cx = 0
                if avx2 {
                    cx = Int(
                        cvec_screen_samples_avx2(
                            &k, ur, vr, y0, y1, Int32(cw), Int32(w), threshold, invRef, sampleWeight, sampleLuma, sampleU, sampleV))
                    n = cx / 2
                }
                while cx + 16 <= cw && 2 * cx + 32 <= w {
                    // Little-endian words: the low byte of each is the sample (or luma column) wanted.
                    let u = KeyerVectors.evenBytes(ur + cx), v = KeyerVectors.evenBytes(vr + cx)
                    let uf = VectorMath.float(u) - 128, vf = VectorMath.float(v) - 128
                    let s = KeyerVectors.strength(uf, vf, key)
                    // Columns 2cx and 2cx + 1 of every other sample: the two low bytes of 32-bit words.
                    let q0 = UnsafeRawPointer(y0 + 2 * cx).loadUnaligned(as: IntVector8.self)
                    let q1 = UnsafeRawPointer(y1 + 2 * cx).loadUnaligned(as: IntVector8.self)
                    let sum = (q0 & 0xFF) &+ ((q0 &>> 8) & 0xFF) &+ (q1 & 0xFF) &+ ((q1 &>> 8) & 0xFF)
                    let luma = VectorMath.float(sum) * 0.25
                    let ratio = s / VectorMath.max((luma - 16) * lumaScale, Vector8(repeating: 8))
                    let t = s * invRef * ratio, t2 = t * t, wgt = t2 * t2
                    KeyerVectors.storeFloats(KeyerVectors.keep(wgt, where: s .> threshold), sampleWeight + n)
                    KeyerVectors.storeFloats(luma, sampleLuma + n)
                    KeyerVectors.storeFloats(uf, sampleU + n); KeyerVectors.storeFloats(vf, sampleV + n)
                    n += 8; cx += 16
                }
                for cx in stride(from: cx, to: cw, by: 2) {
                    let u = Float(Int32(ur[cx]) - 128), v = Float(Int32(vr[cx]) - 128)
                    let s = key.strength(u: u, v: v)
                    let x0 = 2 * cx, x1 = min(2 * cx + 1, w - 1)
                    let luma = Float(Int32(y0[x0]) + Int32(y0[x1]) + Int32(y1[x0]) + Int32(y1[x1])) * 0.25
                    let t = s * invRef * Self.ratio(strength: s, luma: luma), t2 = t * t, wgt = t2 * t2
                    sampleWeight[n] = s > threshold ? wgt : 0; sampleLuma[n] = luma
                    sampleU[n] = u; sampleV[n] = v
                    n += 1
                }
                // Cell c holds samples 4c ..< 4c + 4 (a short last cell: padded with weight 0,
                // which adds +0 to every sum, as skipping it would). Four cells at a time, one
                // per lane, each summing its samples in order: the same sums as one at a time.
                for j in n..<(4 * gridWidth) { sampleWeight[j] = 0; sampleLuma[j] = 0; sampleU[j] = 0; sampleV[j] = 0 }
                @inline(__always) func columns(_ p: UnsafeMutablePointer<Float>) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
                    let r = UnsafeRawPointer(p)
                    let a = r.loadUnaligned(as: SIMD4<Float>.self), b = r.loadUnaligned(fromByteOffset: 16, as: SIMD4<Float>.self)
                    let c = r.loadUnaligned(fromByteOffset: 32, as: SIMD4<Float>.self), d = r.loadUnaligned(fromByteOffset: 48, as: SIMD4<Float>.self)
                    return (
                        SIMD4(a[0], b[0], c[0], d[0]), SIMD4(a[1], b[1], c[1], d[1]),
                        SIMD4(a[2], b[2], c[2], d[2]), SIMD4(a[3], b[3], c[3], d[3])
                    )
                }
                @inline(__always) func load(_ p: UnsafeMutablePointer<Float>) -> SIMD4<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self) }
                @inline(__always) func store(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self) }
                var c = 0
                while c + 4 <= gridWidth {
                    let (w0, w1, w2, w3) = columns(sampleWeight + 4 * c), (l0, l1, l2, l3) = columns(sampleLuma + 4 * c)
                    let (u0, u1, u2, u3) = columns(sampleU + 4 * c), (v0, v1, v2, v3) = columns(sampleV + 4 * c)
                    let i = rowBase + c
                    var sw = load(wt + i), sl = load(gy + i), su = load(gu + i), sv = load(gv + i)
                    sw += w0; sl += w0 * l0; su += w0 * u0; sv += w0 * v0
                    sw += w1; sl += w1 * l1; su += w1 * u1; sv += w1 * v1
                    sw += w2; sl += w2 * l2; su += w2 * u2; sv += w2 * v2
                    sw += w3; sl += w3 * l3; su += w3 * u3; sv += w3 * v3
                    store(sw, wt + i); store(sl, gy + i); store(su, gu + i); store(sv, gv + i)
                    c += 4
                }
                for c in c..<gridWidth {
                    let i = rowBase + c
                    for j in (4 * c)..<(4 * c + 4) {
                        let wgt = sampleWeight[j]
                        wt[i] += wgt; gy[i] += wgt * sampleLuma[j]; gu[i] += wgt * sampleU[j]; gv[i] += wgt * sampleV[j]
                    }
                }
            }
        }
        finish(key: key, fallback: fallback, cast: cast)
    }

    /// Weighted sums to means. Cells whose screen is under 35% of the strongest cell's are not
    /// screen (a green cast on a subject, a dim reflection) and count as empty. Empty cells are
    /// filled along rows (linear between filled ones), then whole empty rows from the nearest
    /// filled row; no screen at all: the fallback colour.
    ///
    /// Then what the matte needs per cell. Green bounce light from the screen lights the subject
    /// too: a share `cast` of a surface's light has the screen's colour, which gives it the
    /// screen's strength per unit of luma times `cast` times its luma (a white shirt at twice
    /// the screen's luma and a 10% cast reads as 20% screen, and keyed 18% see-through). So the
    /// matte takes from a pixel's screen share p = strength / screen strength the share such a
    /// cast would give it, cast x luma / screen luma, and scales the rest by 1 / (1 - cast) so
    /// the screen itself stays at 1: p' = p / (1 - cast) - luma x allowance. A pixel of
    /// screen share t over a surface with exactly that cast keys to t; glass or hair over the
    /// screen keep their share, less the cast their own light carries; a dark pixel is hardly
    /// moved. `cast` 0 is the plain colour-difference matte.
    private func finish(key: ColourDifference, fallback: YUVColor, cast: Float) {
        let gw = gridWidth, gh = gridHeight
        var strongest: Float = 0, strongestRatio: Float = 0, strongestY: Float = 0, strongestU: Float = 0, strongestV: Float = 0
        for i in 0..<cells where weight[i] > 0 {
            sy[i] /= weight[i]; su[i] /= weight[i]; sv[i] /= weight[i]
            inverse[i] = key.strength(u: su[i], v: sv[i])
            if inverse[i] > strongest {
                strongest = inverse[i]; strongestRatio = Self.ratio(strength: inverse[i], luma: sy[i])
                strongestY = sy[i]; strongestU = su[i]; strongestV = sv[i]
            }
        }
        measured = strongest > 0 ? YUVColor(y: clampByte(strongestY), u: clampByte(strongestU + 128), v: clampByte(strongestV + 128)) : nil
        // Not screen: a cell much weaker than the strongest (a green cast), weak for its
        // brightness (a light semi-transparent subject covering the whole cell), or of another
        // hue than the screen's (more than 20 degrees of chroma away: a cell full of green leaves
        // or green hair, which is green but not the screen's green).
        let ss = strongestU * strongestU + strongestV * strongestV
        for i in 0..<cells where weight[i] > 0 {
            let c = su[i] * strongestU + sv[i] * strongestV, pp = su[i] * su[i] + sv[i] * sv[i]
            if inverse[i] < 0.35 * strongest || Self.ratio(strength: inverse[i], luma: sy[i]) < 0.7 * strongestRatio
                || c <= 0 || c * c < 0.883 * pp * ss
            {
                weight[i] = 0
            }
        }
        for r in 0..<gh { filledRows[r] = false }
        for r in 0..<gh {
            var last = -1
            for c in 0..<gw {
                let i = r * gw + c
                guard weight[i] > 0 else { continue }
                // Cells between the previous filled one and this one: linear between them;
                // cells before the first filled one: copies of it.
                for k in (last + 1)..<c {
                    let j = r * gw + k
                    if last < 0 {
                        copyCell(from: i, to: j)
                    } else {
                        let f = Float(k - last) / Float(c - last), a = r * gw + last
                        sy[j] = sy[a] + f * (sy[i] - sy[a]); su[j] = su[a] + f * (su[i] - su[a]); sv[j] = sv[a] + f * (sv[i] - sv[a])
                    }
                }
                last = c
            }
            if last >= 0 {
                for k in (last + 1)..<gw { copyCell(from: r * gw + last, to: r * gw + k) }
                filledRows[r] = true
            }
        }
        if !(0..<gh).contains(where: { filledRows[$0] }) {
            for i in 0..<cells { sy[i] = Float(fallback.y); su[i] = Float(Int(fallback.u) - 128); sv[i] = Float(Int(fallback.v) - 128) }
        } else {
            for r in 0..<gh where !filledRows[r] {
                // The nearest filled row (the upper one on a tie).
                var d = 1
                while true {
                    if r - d >= 0 && filledRows[r - d] { copyRow(from: r - d, to: r); break }
                    if r + d < gh && filledRows[r + d] { copyRow(from: r + d, to: r); break }
                    d += 1
                }
            }
        }
        // A screen too weak to divide by (no screen: the fallback grey) keys nothing. The
        // allowance is per step of 8-bit luma above black (Y' - 16): 255 / 219 R'G'B' units.
        let keep = 1 - cast
        for i in 0..<cells {
            let s = key.strength(u: su[i], v: sv[i])
            inverse[i] = s > 1 ? 1 / (s * keep) : 0
            allowance[i] = s > 1 ? cast * (255 / 219) / (keep * max(8, (sy[i] - 16) * (255 / 219))) : 0
            ratio[i] = s > 1 ? Self.ratio(strength: s, luma: sy[i]) : 0
        }
    }

    /// Screen strength per unit of luma (both in 8-bit R'G'B' units): the same for a screen in
    /// light and in shadow.
    @inline(__always) static func ratio(strength s: Float, luma: Float) -> Float {
        s / max(8, (luma - 16) * (255 / 219))
    }

    private func copyCell(from i: Int, to j: Int) { sy[j] = sy[i]; su[j] = su[i]; sv[j] = sv[i] }
    private func copyRow(from a: Int, to b: Int) { for c in 0..<gridWidth { copyCell(from: a * gridWidth + c, to: b * gridWidth + c) } }

    /// One grid row interpolated at luma row coordinate `y` (pixel centre), into `out` (gridWidth values).
    func interpolateRow(_ table: Table, lumaY y: Double, into out: UnsafeMutablePointer<Float>) {
        switch table {
        case .y: Self.interpolate(sy, gridWidth, gridHeight, y, out)
        case .u: Self.interpolate(su, gridWidth, gridHeight, y, out)
        case .v: Self.interpolate(sv, gridWidth, gridHeight, y, out)
        case .inverse: Self.interpolate(inverse, gridWidth, gridHeight, y, out)
        case .allowance: Self.interpolate(allowance, gridWidth, gridHeight, y, out)
        case .ratio: Self.interpolate(ratio, gridWidth, gridHeight, y, out)
        }
    }

    private static func interpolate(_ v: UnsafeMutablePointer<Float>, _ gridWidth: Int, _ gridHeight: Int, _ y: Double, _ out: UnsafeMutablePointer<Float>) {
        let (r0, r1, f) = position(y, cells: gridHeight)
        let a = v + r0 * gridWidth, b = v + r1 * gridWidth
        var c = 0
        while c + 8 <= gridWidth {
            let x = KeyerVectors.loadFloats(a + c), y = KeyerVectors.loadFloats(b + c)
            KeyerVectors.storeFloats(x + f * (y - x), out + c)
            c += 8
        }
        for c in c..<gridWidth {
            let a = v[r0 * gridWidth + c], b = v[r1 * gridWidth + c]
            out[c] = a + f * (b - a)
        }
    }

    /// An interpolated grid row (`interpolateRow`) at luma column `x`.
    @inline(__always) func at(_ row: UnsafePointer<Float>, _ x: Int) -> Float {
        let g0 = row[Int(column0[x])], g1 = row[Int(column1[x])]
        return g0 + columnT[x] * (g1 - g0)
    }

    /// The two grid cells (values of `row`) around each of chroma samples cx ..< cx + 8, whose
    /// sixteen luma columns 2cx ..< 2cx + 16 are two groups of eight (cx a multiple of 4).
    @inline(__always) func cells(_ row: UnsafePointer<Float>, chroma cx: Int) -> (Vector8, Vector8) {
        let j = cx / 4
        return (
            Vector8(lowHalf: SIMD4(repeating: row[Int(group0[j])]), highHalf: SIMD4(repeating: row[Int(group0[j + 1])])),
            Vector8(lowHalf: SIMD4(repeating: row[Int(group1[j])]), highHalf: SIMD4(repeating: row[Int(group1[j + 1])]))
        )
    }

    /// An interpolated grid row at the even and odd luma column of every chroma sample (`at`),
    /// eight samples (two groups) at a time.
    func spreadRow(
        _ row: UnsafePointer<Float>, even: UnsafeMutablePointer<Float>, odd: UnsafeMutablePointer<Float>,
        avx2: Bool = KeyerVectors.avx2
    ) {
        let cw = (width + 1) / 2
        var cx = 0
        if avx2 {
            // The same blocks in C (KeyerRows.h); the tail below stays.
            cx = Int(cvec_spread_row_avx2(row, group0, group1, evenT, oddT, Int32(width), even, odd))
        }
        while 2 * cx + 16 <= width {
            let (g0, g1) = cells(row, chroma: cx)
            let d = g1 - g0
            KeyerVectors.storeFloats(g0 + KeyerVectors.loadFloats(evenT + cx) * d, even + cx)
            KeyerVectors.storeFloats(g0 + KeyerVectors.loadFloats(oddT + cx) * d, odd + cx)
            cx += 8
        }
        for cx in cx..<cw {
            even[cx] = at(row, 2 * cx)
            odd[cx] = 2 * cx + 1 < width ? at(row, 2 * cx + 1) : 0
        }
    }
}
