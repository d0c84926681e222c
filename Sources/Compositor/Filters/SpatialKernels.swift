import RealModule

/// A separable gaussian, streamed a row at a time: each source row is widened to Float with
/// its border pixel repeated, filtered across into a ring holding the 2r + 1 rows the vertical
/// taps need, and each output row is the weighted sum down that ring (edges repeat the border
/// row). The sums run in the order of the two-pass definition (across, then down, taps in
/// order), eight pixels to a vector. Weights are made once, for the standard deviation given.
struct Gaussian {
    let weights: [Float]  // taps -r...r
    let radius: Int

    init(sigma: Double) {
        radius = max(1, Int((3 * sigma).rounded(.up)))
        let w = (-radius...radius).map { Double.exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = w.reduce(0, +)
        weights = w.map { Float($0 / total) }
    }

    /// Blurs `src`, handing each finished row (`src.width` floats, valid until the next call)
    /// to `body` in order, top to bottom.
    func blur(_ src: Plane, _ scratch: GaussianScratch, _ body: (Int, UnsafePointer<Float>) -> Void) {
        let w = src.width, h = src.height, r = radius, taps = 2 * r + 1, stride = scratch.stride
        precondition(w <= scratch.width && taps <= scratch.ringRows, "gaussian: scratch prepared for a smaller plane")
        let padded = scratch.padded, ring = scratch.ring, out = scratch.out, rows = scratch.rows
        weights.withUnsafeBufferPointer { kb in
            let k = kb.baseAddress!
            // Row j of the horizontal pass, into its ring slot.
            @inline(__always) func across(_ j: Int) {
                let s = src.row(j)
                padded.update(repeating: Float(s[0]), count: r)
                var x = 0
                while x < w { (padded + r + x).storeVector(VectorMath.load(s + x, min(8, w - x))); x += 8 }
                (padded + r + w).update(repeating: Float(s[w - 1]), count: r)
                let t = ring + (j % taps) * stride
                x = 0
                while x < w {
                    var a0 = Vector8(), a1 = Vector8()
                    for i in 0..<taps {
                        let ki = k[i], p = padded + x + i
                        a0 += ki * p.lanes(); a1 += ki * (p + 8).lanes()
                    }
                    (t + x).storeVector(a0); (t + x + 8).storeVector(a1)
                    x += 16
                }
            }
            var filled = 0
            for y in 0..<h {
                while filled <= min(h - 1, y + r) { across(filled); filled += 1 }
                for i in 0..<taps { rows[i] = UnsafePointer(ring + (min(h - 1, max(0, y + i - r)) % taps) * stride) }
                var x = 0
                while x < w {
                    var a0 = Vector8(), a1 = Vector8()
                    for i in 0..<taps {
                        let ki = k[i], p = rows[i] + x
                        a0 += ki * p.lanes(); a1 += ki * (p + 8).lanes()
                    }
                    (out + x).storeVector(a0); (out + x + 8).storeVector(a1)
                    x += 16
                }
                body(y, out)
            }
        }
    }
}

/// The float rows a `Gaussian` streams through, for planes up to `width` wide and kernels up to
/// `ringRows` taps: allocated in `prepare`, freed with the kernel.
final class GaussianScratch {
    let width: Int, stride: Int, ringRows: Int
    let padded: UnsafeMutablePointer<Float>, ring: UnsafeMutablePointer<Float>, out: UnsafeMutablePointer<Float>
    let rows: UnsafeMutablePointer<UnsafePointer<Float>>
    /// Owns every buffer above.
    private let scratch = ScratchMemory()

    init(width: Int, radius: Int) {
        self.width = width
        stride = (width + 15) / 16 * 16  // whole 16-pixel chunks: the last one computes past the edge
        ringRows = 2 * radius + 1
        let m = scratch
        padded = m.buffer(count: stride + 2 * radius + 16)
        ring = m.buffer(count: ringRows * stride)
        out = m.buffer(count: stride)
        rows = m.buffer(count: ringRows, value: UnsafePointer(out))
    }
}

extension UnsafePointer<Float> {
    @inline(__always) func lanes() -> Vector8 { UnsafeRawPointer(self).loadUnaligned(as: Vector8.self) }
}

extension UnsafeMutablePointer<Float> {
    @inline(__always) func lanes() -> Vector8 { UnsafeRawPointer(self).loadUnaligned(as: Vector8.self) }
    @inline(__always) func storeVector(_ v: Vector8) { UnsafeMutableRawPointer(self).storeBytes(of: v, as: Vector8.self) }
}

/// Gaussian blur of every plane; chroma, at half resolution, with half the standard deviation.
public struct BlurKernel: FilterKernel {
    let luma: Gaussian, chroma: Gaussian
    var scratch: GaussianScratch?

    public init(sigma: Double) { luma = Gaussian(sigma: sigma); chroma = Gaussian(sigma: max(0.15, sigma / 2)) }

    public mutating func prepare(format: FilterFormat) {
        scratch = GaussianScratch(width: format.width, radius: max(luma.radius, chroma.radius))
    }

    public mutating func apply(_ input: YUVImage, into output: YUVImage) {
        guard let scratch else { preconditionFailure("blur: not prepared") }
        // Three calls, not a loop over an array of planes: that array would be allocated per frame.
        Self.blur(input.y, output.y, luma, scratch)
        Self.blur(input.u, output.u, chroma, scratch)
        Self.blur(input.v, output.v, chroma, scratch)
    }

    static func blur(_ s: Plane, _ d: Plane, _ g: Gaussian, _ scratch: GaussianScratch) {
        let w = s.width
        g.blur(s, scratch) { y, f in
            let o = d.row(y)
            var x = 0
            while x < w { VectorMath.store(VectorMath.bytes((f + x).lanes()), o + x, min(8, w - x)); x += 8 }
        }
    }
}

/// Unsharp mask on the luma: y + amount * (y - gaussian(y)); chroma unchanged.
public struct SharpenKernel: FilterKernel {
    let amount: Float, gaussian: Gaussian
    var scratch: GaussianScratch?

    public init(amount: Double, sigma: Double) { self.amount = Float(amount); gaussian = Gaussian(sigma: sigma) }

    public mutating func prepare(format: FilterFormat) { scratch = GaussianScratch(width: format.width, radius: gaussian.radius) }

    public mutating func apply(_ input: YUVImage, into output: YUVImage) {
        guard let scratch else { preconditionFailure("sharpen: not prepared") }
        let s = input.y, w = s.width, amount = amount
        gaussian.blur(s, scratch) { y, f in
            let a = s.row(y), o = output.y.row(y)
            var x = 0
            while x < w {
                let n = min(8, w - x), v = VectorMath.load(a + x, n)
                VectorMath.store(VectorMath.bytes(v + amount * (v - (f + x).lanes())), o + x, n)
                x += 8
            }
        }
        PlaneKernels.copyPlane(input.u, output.u); PlaneKernels.copyPlane(input.v, output.v)
    }
}

/// Sobel gradient magnitude of the luma: 16 + strength * |g| / 4, in grey (chroma neutral);
/// borders repeat the edge pixel. Eight pixels at a time; the first and last columns read their
/// neighbours one by one, clamped to the row.
public struct EdgesKernel: FilterKernel {
    let strength: Float
    public init(strength: Double) { self.strength = Float(strength) }

    public mutating func apply(_ input: YUVImage, into output: YUVImage) {
        let s = input.y, w = s.width, h = s.height, strength = strength
        for y in 0..<h {
            let up = s.row(max(0, y - 1)), mid = s.row(y), down = s.row(min(h - 1, y + 1)), o = output.y.row(y)
            var x = 0
            while x < w {
                let n = min(8, w - x)
                var u0, u1, u2, m0, m2, d0, d1, d2: Vector8
                if x >= 1 && x + 9 <= w {
                    u0 = VectorMath.load(up + x - 1, 8); u1 = VectorMath.load(up + x, 8); u2 = VectorMath.load(up + x + 1, 8)
                    m0 = VectorMath.load(mid + x - 1, 8); m2 = VectorMath.load(mid + x + 1, 8)
                    d0 = VectorMath.load(down + x - 1, 8); d1 = VectorMath.load(down + x, 8); d2 = VectorMath.load(down + x + 1, 8)
                } else {
                    (u0, u1, u2, m0, m2, d0, d1, d2) = (Vector8(), Vector8(), Vector8(), Vector8(), Vector8(), Vector8(), Vector8(), Vector8())
                    for i in 0..<8 {
                        let c = min(w - 1, x + i), l = max(0, c - 1), r = min(w - 1, c + 1)
                        u0[i] = Float(up[l]); u1[i] = Float(up[c]); u2[i] = Float(up[r])
                        m0[i] = Float(mid[l]); m2[i] = Float(mid[r])
                        d0[i] = Float(down[l]); d1[i] = Float(down[c]); d2[i] = Float(down[r])
                    }
                }
                // Whole numbers all the way to the square (at most 2 * 1020^2): exact in Float.
                let gx = (u2 + 2 * m2 + d2) - (u0 + 2 * m0 + d0)
                let gy = (d0 + 2 * d1 + d2) - (u0 + 2 * u1 + u2)
                let m = VectorMath.sqrtOfWhole(gx * gx + gy * gy)
                VectorMath.store(VectorMath.bytes(VectorMath.clamp(16 + strength * m / 4, 16, 235)), o + x, n)
                x += 8
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
