import RealModule

/// A kernel that maps each plane through its own 256-entry table: the presets whose effect on a
/// pixel is a function of that one component and that cannot leave the gamut (invert, mono).
/// The tables are made once, when the preset is made. (Brightness, contrast, saturation and
/// exposure are RGB transforms: done on the planes alone they would leave the gamut where RGB
/// clips, 14 to 41 levels of mean difference from an RGB reference on testsrc2.)
public struct PlaneLUTKernel: FilterKernel, Sendable {
    let y: [UInt8], u: [UInt8], v: [UInt8]

    public init(y: (Int) -> Double, chroma: (Int) -> Double) {
        func table(_ f: (Int) -> Double) -> [UInt8] { (0..<256).map { UInt8(max(0, min(255, f($0).rounded()))) } }
        self.y = table(y)
        let c = table(chroma)
        u = c; v = c
    }

    public mutating func apply(_ input: YUVImage, into output: YUVImage) {
        Self.map(input.y, output.y, y); Self.map(input.u, output.u, u); Self.map(input.v, output.v, v)
    }

    static func map(_ s: Plane, _ d: Plane, _ table: [UInt8]) {
        table.withUnsafeBufferPointer { t in
            for r in 0..<s.height {
                let a = s.row(r), o = d.row(r)
                for x in 0..<s.width { o[x] = t[Int(a[x])] }
            }
        }
    }

    /// The negative, as the ffmpeg CLI's `negate` does it on yuv420p: 255 - x in every plane.
    public static let invert = PlaneLUTKernel(y: { 255 - Double($0) }, chroma: { 255 - Double($0) })
    /// Chroma neutral, luma kept (the ffmpeg CLI's `hue=s=0`).
    public static let mono = PlaneLUTKernel(y: { Double($0) }, chroma: { _ in 128 })
}

/// Turns the hue: the (Cb, Cr) vector rotated by `degrees`, luma kept; the ffmpeg CLI's `hue=h=`.
public struct HueKernel: FilterKernel {
    let c: Int, s: Int  // cos and sin in 1/65536ths

    public init(degrees: Double) {
        let a = degrees * .pi / 180
        c = Int((Double.cos(a) * 65536).rounded()); s = Int((Double.sin(a) * 65536).rounded())
    }

    public mutating func apply(_ input: YUVImage, into output: YUVImage) {
        PlaneKernels.copyPlane(input.y, output.y)
        for r in 0..<input.u.height {
            let ui = input.u.row(r), vi = input.v.row(r), uo = output.u.row(r), vo = output.v.row(r)
            for x in 0..<input.u.width {
                let u = Int(ui[x]) - 128, v = Int(vi[x]) - 128
                uo[x] = UInt8(max(0, min(255, (c * u - s * v + (1 << 15)) >> 16 + 128)))
                vo[x] = UInt8(max(0, min(255, (s * u + c * v + (1 << 15)) >> 16 + 128)))
            }
        }
    }
}

/// Darkens towards the corners: weight 1 inside `start`, 0 beyond `end`, smoothstep between,
/// distances in half diagonals from the centre; luma above black and chroma scaled by it.
/// Eight pixels at a time, in Float (the distances' squares are exact: quarter steps).
public struct VignetteKernel: FilterKernel {
    let start: Double, end: Double
    public init(start: Double, end: Double) { self.start = start; self.end = end }

    /// The weight of eight pixels whose squared distances from the centre are `d2`.
    @inline(__always) static func weight(_ d2: Vector8, halfDiagonal: Float, start: Float, end: Float) -> Vector8 {
        let t = VectorMath.clamp((VectorMath.sqrt(d2) / halfDiagonal - start) / (end - start), 0, 1)
        return 1 - t * t * (3 - 2 * t)
    }

    public mutating func apply(_ input: YUVImage, into output: YUVImage) {
        let w = Float(input.width), h = Float(input.height)
        let half = Float((Double(input.width * input.width + input.height * input.height)).squareRoot() / 2)
        let start = Float(start), end = Float(end)
        for r in 0..<input.height {
            let a = input.y.row(r), o = output.y.row(r)
            let dy = Float(r) + 0.5 - h / 2
            var x = 0
            while x < input.width {
                let n = min(8, input.width - x)
                let dx = Float(x) + VectorMath.index + 0.5 - w / 2
                let k = Self.weight(dx * dx + dy * dy, halfDiagonal: half, start: start, end: end)
                VectorMath.store(VectorMath.bytes(16 + (VectorMath.load(a + x, n) - 16) * k), o + x, n)
                x += 8
            }
        }
        for r in 0..<input.u.height {
            let ui = input.u.row(r), vi = input.v.row(r), uo = output.u.row(r), vo = output.v.row(r)
            // A chroma sample sits at the centre of its 2x2 luma block.
            let dy = Float(2 * r) + 1 - h / 2
            var x = 0
            while x < input.u.width {
                let n = min(8, input.u.width - x)
                let dx = 2 * (Float(x) + VectorMath.index) + 1 - w / 2
                let k = Self.weight(dx * dx + dy * dy, halfDiagonal: half, start: start, end: end)
                VectorMath.store(VectorMath.bytes(128 + (VectorMath.load(ui + x, n) - 128) * k), uo + x, n)
                VectorMath.store(VectorMath.bytes(128 + (VectorMath.load(vi + x, n) - 128) * k), vo + x, n)
                x += 8
            }
        }
    }
}
