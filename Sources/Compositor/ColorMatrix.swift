/// The Y'CbCr matrix a picture was encoded with: BT.601 (standard definition), BT.709 (HD,
/// and Lockstep's SDR working signal: `WorkingSignal`) or BT.2020 non-constant luminance (HDR
/// phone footage, Lockstep's HDR working signal).
public enum ColorMatrix: String, Equatable, Sendable, CaseIterable {
    case bt601
    case bt709
    case bt2020 = "bt2020nc"

    /// Luma weights of red and blue.
    public var kr: Double {
        switch self {
        case .bt601: 0.299;
        case .bt709: 0.2126;
        case .bt2020: 0.2627
        }
    }
    public var kb: Double {
        switch self {
        case .bt601: 0.114;
        case .bt709: 0.0722;
        case .bt2020: 0.0593
        }
    }
    public var kg: Double { 1 - kr - kb }

    /// R' = Y' + crToR Cr; G' = Y' + cbToG Cb + crToG Cr; B' = Y' + cbToB Cb (normalised).
    public var crToR: Double { 2 * (1 - kr) }
    public var cbToB: Double { 2 * (1 - kb) }
    public var cbToG: Double { -2 * kb * (1 - kb) / kg }
    public var crToG: Double { -2 * kr * (1 - kr) / kg }

    /// Normalised (y, cb, cr) of an R'G'B' colour (0...1), cb and cr in -0.5...0.5.
    public func yuv(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double, Double) {
        let y = kr * r + kg * g + kb * b
        return (y, (b - y) / cbToB, (r - y) / crToR)
    }

    /// R'G'B' of normalised (y, cb, cr).
    public func rgb(_ y: Double, _ cb: Double, _ cr: Double) -> (Double, Double, Double) {
        (y + crToR * cr, y + cbToG * cb + crToG * cr, y + cbToB * cb)
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
