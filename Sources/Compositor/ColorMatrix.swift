/// The Y'CbCr matrix a picture was encoded with: BT.601 (standard definition, and what
/// Lockstep's planes are taken to be) or BT.709 (HD, nearly every phone clip).
public enum ColorMatrix: Equatable, Sendable {
    case bt601
    case bt709

    /// Luma weights of red and blue.
    var kr: Double { self == .bt601 ? 0.299 : 0.2126 }
    var kb: Double { self == .bt601 ? 0.114 : 0.0722 }

    /// Normalised (y, cb, cr) of an R'G'B' colour (0...1), cb and cr in -0.5...0.5.
    func yuv(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double, Double) {
        let y = kr * r + (1 - kr - kb) * g + kb * b
        return (y, (b - y) / (2 * (1 - kb)), (r - y) / (2 * (1 - kr)))
    }

    /// R'G'B' of normalised (y, cb, cr).
    func rgb(_ y: Double, _ cb: Double, _ cr: Double) -> (Double, Double, Double) {
        let r = y + 2 * (1 - kr) * cr, b = y + 2 * (1 - kb) * cb
        return (r, (y - kr * r - kb * b) / (1 - kr - kb), b)
    }
}

/// Re-expresses video-range 4:2:0 pictures from one matrix in another, in place, so that a
/// BT.709 picture encoded for a viewer that assumes BT.601 (Lockstep's RGB output) keeps its
/// colours. The map is linear: luma gains a multiple of the block's chroma (grey stays grey),
/// chroma is mixed by a 2x2 matrix. Coefficients are computed once; applying allocates nothing.
public struct MatrixConversion: Equatable, Sendable {
    public let from: ColorMatrix, to: ColorMatrix
    // y' = y + yb * cb + yr * cr; cb' = bb * cb + br * cr; cr' = rb * cb + rr * cr (normalised).
    let yb: Double, yr: Double, bb: Double, br: Double, rb: Double, rr: Double

    public init(from: ColorMatrix, to: ColorMatrix) {
        self.from = from; self.to = to
        func through(_ cb: Double, _ cr: Double) -> (Double, Double, Double) {
            let (r, g, b) = from.rgb(0, cb, cr)
            return to.yuv(r, g, b)
        }
        let (y1, b1, r1) = through(1, 0), (y2, b2, r2) = through(0, 1)
        yb = y1; bb = b1; rb = r1; yr = y2; br = b2; rr = r2
    }

    /// Converts `image` in place (video range: luma 16...235 is 219 steps, chroma 224).
    public func apply(to image: YUVImage) {
        guard from != to else { return }
        let lumaGainB = 219.0 / 224 * yb, lumaGainR = 219.0 / 224 * yr
        for cy in 0..<image.u.height {
            let u = image.u.row(cy), v = image.v.row(cy)
            for cx in 0..<image.u.width {
                let cb = Double(u[cx]) - 128, cr = Double(v[cx]) - 128
                u[cx] = MatrixConversion.clamp(128 + bb * cb + br * cr)
                v[cx] = MatrixConversion.clamp(128 + rb * cb + rr * cr)
                let dy = lumaGainB * cb + lumaGainR * cr
                for y in (2 * cy)..<min(image.y.height, 2 * cy + 2) {
                    let row = image.y.row(y)
                    for x in (2 * cx)..<min(image.y.width, 2 * cx + 2) {
                        row[x] = MatrixConversion.clamp(Double(row[x]) + dy)
                    }
                }
            }
        }
    }

    @inline(__always) static func clamp(_ v: Double) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }
}
