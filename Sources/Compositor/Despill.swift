/// Spill removal that keeps luma, on chroma alone.
///
/// Spill is the screen's primary channel standing above the balanced other two:
/// d = amount * max(0, P - (b * lower + (1 - b) * higher)). The primary loses d, and all three
/// channels gain the luma that took away (w_P * d, w_P being the primary's luma weight), so
/// Y' is unchanged: only U and V move, by fixed multiples of d. As d is a linear form of
/// (u, v) clamped at 0, the whole despill is a few multiply-adds per chroma sample.
///
/// Applied to the premultiplied foreground (the pixel with the screen's share subtracted), d
/// scales with alpha, so an edge pixel loses only its subject's own spill, never the screen's.
public struct Despill: Sendable, Equatable {
    /// d per unit of u and v (a linear form like the matte's, with the despill balance).
    public let du: Float, dv: Float
    /// How much u and v move per unit of d.
    public let moveU: Float, moveV: Float
    public let amount: Float

    public init(screen: RGB, amount: Double, balance: Double, matrix: ColorMatrix = .bt709) {
        let difference = ColourDifference(screen: screen, balance: balance, matrix: matrix)
        let p = difference.primary
        du = difference.ku; dv = difference.kv
        self.amount = Float(amount)
        // Change of R and B in 8-bit units per unit of d; U = 128 + 224 Cb, Cb = (B' - Y') / cbToB
        // (1.8556 in BT.709), V = 128 + 224 Cr, Cr = (R' - Y') / crToR (1.5748), and Y' does not change.
        let w = [matrix.kr, matrix.kg, matrix.kb][p]
        let dR = w - (p == 0 ? 1 : 0), dB = w - (p == 2 ? 1 : 0)
        moveU = Float(224.0 / 255.0 * dB / matrix.cbToB)
        moveV = Float(224.0 / 255.0 * dR / matrix.crToR)
    }

    /// The spill of centred chroma (u, v), already scaled by the amount, in 8-bit R'G'B' units.
    @inline(__always) public func spill(u: Float, v: Float) -> Float {
        max(0, du * u + dv * v) * amount
    }

    /// Removes the spill from centred chroma in place.
    @inline(__always) public func apply(u: inout Float, v: inout Float) {
        let d = spill(u: u, v: v)
        u += moveU * d; v += moveV * d
    }
}
