/// Spill removal that keeps luma, on chroma alone, limited to the screen's cast.
///
/// Spill is the screen's primary channel standing above the balanced other two:
/// s = max(0, P - (b * lower + (1 - b) * higher)). The primary loses d, and all three
/// channels gain the luma that took away (w_P * d, w_P being the primary's luma weight), so
/// Y' is unchanged: only U and V move, by fixed multiples of d. As s is a linear form of
/// (u, v) clamped at 0, the despill is a few multiply-adds per chroma sample.
///
/// Applied to the premultiplied foreground (the pixel with the screen's share subtracted), s
/// scales with alpha, so an edge pixel loses only its subject's own spill, never the screen's.
///
/// What is removed is the screen's colour cast, not the colour green (as Keylight's screen
/// balance and despill bias do): d = amount x min(s, limit), the limit being
/// - the cast bounce light from the screen can give a surface of this brightness: `cast` of its
///   luma in the screen's colour, i.e. cast x luma x (the screen's strength per unit of luma),
///   more where the matte is partial (`partial` x (1 - alpha) x the same), where the edge's
///   spill and the screen's residue are;
/// - all of s where the pixel's hue is the screen's (within `nearCos2`, fading out by
///   `farCos2`): a grey surface tinted by the screen, however strongly.
/// So a saturated green subject (a leaf, a green shirt) keeps its green less only the cast, a
/// grey or skin-toned one loses all of its spill.
public struct Despill: Sendable, Equatable {
    /// s per unit of u and v (a linear form like the matte's, with the despill balance).
    public let du: Float, dv: Float
    /// How much u and v move per unit of d.
    public let moveU: Float, moveV: Float
    public let amount: Float
    /// The cast allowed everywhere and the extra where the matte is partial, as shares of a
    /// pixel's luma in the screen's colour.
    public let cast: Float, partial: Float
    /// Squared cosines of the angle between the pixel's chroma and the screen's: at or above
    /// `nearCos2` all the spill goes, at or below `farCos2` only the limit; linear between.
    public let nearCos2: Float, farCos2: Float
    /// Whether the limit holds; false: all of the spill goes (a picture without green subjects,
    /// where any green above the balanced other two is the screen's: `GreenSubjects.no`).
    public let limited: Bool

    /// `cast`: the spill cast the matte allows for (`KeyerSettings.spillCast`); the despill
    /// allows that, and half the screen's colour per unit of transparency more (the edge's
    /// stronger spill and the screen's residue).
    public init(screen: RGB, amount: Double, balance: Double, cast: Double = 0.1, limited: Bool = true, matrix: ColorMatrix = .bt709) {
        let difference = ColourDifference(screen: screen, balance: balance, matrix: matrix)
        let p = difference.primary
        du = difference.ku; dv = difference.kv
        self.amount = Float(amount)
        self.cast = Float(cast)
        partial = 0.5
        self.limited = limited
        // 15 and 30 degrees.
        nearCos2 = 0.933; farCos2 = 0.75
        // Change of R and B in 8-bit units per unit of d; U = 128 + 224 Cb, Cb = (B' - Y') / cbToB
        // (1.8556 in BT.709), V = 128 + 224 Cr, Cr = (R' - Y') / crToR (1.5748), and Y' does not change.
        let w = [matrix.kr, matrix.kg, matrix.kb][p]
        let dR = w - (p == 0 ? 1 : 0), dB = w - (p == 2 ? 1 : 0)
        moveU = Float(224.0 / 255.0 * dB / matrix.cbToB)
        moveV = Float(224.0 / 255.0 * dR / matrix.crToR)
    }

    /// The spill s of centred chroma (u, v), in 8-bit R'G'B' units (not scaled by the amount).
    @inline(__always) public func spill(u: Float, v: Float) -> Float {
        max(0, du * u + dv * v)
    }

    /// How much of the spill may go: the limit (in 8-bit R'G'B' units) of premultiplied chroma
    /// (u, v) whose luma above black is `luma` (R'G'B' units), where the screen's strength per
    /// unit of luma is `ratio`, the matte's transparency `k` (1 - alpha), the screen's chroma
    /// (su, sv).
    @inline(__always) public func limit(u: Float, v: Float, luma: Float, ratio: Float, k: Float, su: Float, sv: Float) -> Float {
        let c = u * su + v * sv, pp = u * u + v * v, ss = su * su + sv * sv
        let near = c > 0 ? min(max((c * c - farCos2 * pp * ss) / ((nearCos2 - farCos2) * pp * ss + 1e-6), 0), 1) : 0
        return max(max(luma, 0) * ratio * (cast + partial * k), near * spill(u: u, v: v))
    }

    /// Removes the spill from premultiplied centred chroma in place, within the limit (`limit`)
    /// when `limited`.
    @inline(__always) public func apply(u: inout Float, v: inout Float, luma: Float, ratio: Float, k: Float, su: Float, sv: Float) {
        let s = spill(u: u, v: v)
        let d = (limited ? min(s, limit(u: u, v: v, luma: luma, ratio: ratio, k: k, su: su, sv: sv)) : s) * amount
        u += moveU * d; v += moveV * d
    }
}
