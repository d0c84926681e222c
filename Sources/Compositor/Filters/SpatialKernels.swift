import RealModule

/// Float scratch space owned by a kernel, allocated in `prepare`, freed with the kernel.
final class FloatScratch {
    let pointer: UnsafeMutablePointer<Float>
    let count: Int
    init(count: Int) { self.count = count; pointer = .allocate(capacity: max(1, count)); pointer.initialize(repeating: 0, count: max(1, count)) }
    deinit { pointer.deallocate() }
}

/// A separable gaussian: a horizontal pass into float scratch, then a vertical one; edges repeat
/// the border pixel. Weights are made once, for the standard deviation given.
struct Gaussian {
    let weights: [Float]   // taps -r...r
    let radius: Int

    init(sigma: Double) {
        radius = max(1, Int((3 * sigma).rounded(.up)))
        let w = (-radius...radius).map { Double.exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = w.reduce(0, +)
        weights = w.map { Float($0 / total) }
    }

    /// Blurs `src` into `out` (a w x h float plane, row stride w) using `tmp` (at least w x h).
    func blur(_ src: Plane, tmp: UnsafeMutablePointer<Float>, out: UnsafeMutablePointer<Float>) {
        let w = src.width, h = src.height, r = radius
        weights.withUnsafeBufferPointer { k in
            for y in 0..<h {
                let s = src.row(y), t = tmp + y * w
                for x in 0..<w {
                    var acc: Float = 0
                    if x >= r && x + r < w {
                        for i in 0...(2 * r) { acc += k[i] * Float(s[x + i - r]) }
                    } else {
                        for i in 0...(2 * r) { acc += k[i] * Float(s[min(w - 1, max(0, x + i - r))]) }
                    }
                    t[x] = acc
                }
            }
            for y in 0..<h {
                let o = out + y * w
                for x in 0..<w { o[x] = 0 }
                for i in 0...(2 * r) {
                    let t = tmp + min(h - 1, max(0, y + i - r)) * w, ki = k[i]
                    for x in 0..<w { o[x] += ki * t[x] }
                }
            }
        }
    }
}

@inline(__always) func clamp8(_ x: Float) -> UInt8 { UInt8(max(0, min(255, x.rounded()))) }

/// Gaussian blur of every plane; chroma, at half resolution, with half the standard deviation.
public struct BlurKernel: FilterKernel {
    let luma: Gaussian, chroma: Gaussian
    var tmp: FloatScratch?, out: FloatScratch?

    public init(sigma: Double) { luma = Gaussian(sigma: sigma); chroma = Gaussian(sigma: max(0.15, sigma / 2)) }

    public mutating func prepare(format: FilterFormat) {
        tmp = FloatScratch(count: format.width * format.height)
        out = FloatScratch(count: format.width * format.height)
    }

    public mutating func apply(_ input: YUVImage, into output: YUVImage) {
        guard let tmp, let out else { preconditionFailure("blur: not prepared") }
        // Three calls, not a loop over an array of planes: that array would be allocated per frame.
        Self.blur(input.y, output.y, luma, tmp, out)
        Self.blur(input.u, output.u, chroma, tmp, out)
        Self.blur(input.v, output.v, chroma, tmp, out)
    }

    static func blur(_ s: Plane, _ d: Plane, _ g: Gaussian, _ tmp: FloatScratch, _ out: FloatScratch) {
        g.blur(s, tmp: tmp.pointer, out: out.pointer)
        for y in 0..<s.height {
            let o = d.row(y), f = out.pointer + y * s.width
            for x in 0..<s.width { o[x] = clamp8(f[x]) }
        }
    }
}

/// Unsharp mask on the luma: y + amount * (y - gaussian(y)); chroma unchanged.
public struct SharpenKernel: FilterKernel {
    let amount: Float, gaussian: Gaussian
    var tmp: FloatScratch?, out: FloatScratch?

    public init(amount: Double, sigma: Double) { self.amount = Float(amount); gaussian = Gaussian(sigma: sigma) }

    public mutating func prepare(format: FilterFormat) {
        tmp = FloatScratch(count: format.width * format.height)
        out = FloatScratch(count: format.width * format.height)
    }

    public mutating func apply(_ input: YUVImage, into output: YUVImage) {
        guard let tmp, let out else { preconditionFailure("sharpen: not prepared") }
        let s = input.y
        gaussian.blur(s, tmp: tmp.pointer, out: out.pointer)
        for y in 0..<s.height {
            let a = s.row(y), o = output.y.row(y), f = out.pointer + y * s.width
            for x in 0..<s.width { let v = Float(a[x]); o[x] = clamp8(v + amount * (v - f[x])) }
        }
        PlaneKernels.copyPlane(input.u, output.u); PlaneKernels.copyPlane(input.v, output.v)
    }
}

/// Sobel gradient magnitude of the luma: 16 + strength * |g| / 4, in grey (chroma neutral);
/// borders repeat the edge pixel.
public struct EdgesKernel: FilterKernel {
    let strength: Float
    public init(strength: Double) { self.strength = Float(strength) }

    public mutating func apply(_ input: YUVImage, into output: YUVImage) {
        let s = input.y, w = s.width, h = s.height
        for y in 0..<h {
            let up = s.row(max(0, y - 1)), mid = s.row(y), down = s.row(min(h - 1, y + 1)), o = output.y.row(y)
            for x in 0..<w {
                let l = max(0, x - 1), r = min(w - 1, x + 1)
                let gx = (Int(up[r]) + 2 * Int(mid[r]) + Int(down[r])) - (Int(up[l]) + 2 * Int(mid[l]) + Int(down[l]))
                let gy = (Int(down[l]) + 2 * Int(down[x]) + Int(down[r])) - (Int(up[l]) + 2 * Int(up[x]) + Int(up[r]))
                let m = Float(gx * gx + gy * gy).squareRoot()
                o[x] = UInt8(min(235, max(16, (16 + strength * m / 4).rounded())))
            }
        }
        PlaneKernels.fillPlane(output.u, 128); PlaneKernels.fillPlane(output.v, 128)
    }
}

/// Blocks of `size` x `size` luma pixels (size/2 in chroma), each the rounded mean of its block;
/// blocks start at the top-left corner, the last ones cut by the border.
public struct PixellateKernel: FilterKernel {
    let size: Int
    public init(size: Int) { self.size = size }

    static func blocks(_ s: Plane, _ d: Plane, _ n: Int) {
        var by = 0
        while by < s.height {
            let bh = min(n, s.height - by)
            var bx = 0
            while bx < s.width {
                let bw = min(n, s.width - bx)
                var sum = 0
                for y in by..<(by + bh) { let row = s.row(y); for x in bx..<(bx + bw) { sum += Int(row[x]) } }
                let count = bw * bh
                let mean = UInt8((sum + count / 2) / count)
                for y in by..<(by + bh) { (d.row(y) + bx).update(repeating: mean, count: bw) }
                bx += n
            }
            by += n
        }
    }

    public mutating func apply(_ input: YUVImage, into output: YUVImage) {
        Self.blocks(input.y, output.y, size)
        Self.blocks(input.u, output.u, max(1, size / 2))
        Self.blocks(input.v, output.v, max(1, size / 2))
    }
}
