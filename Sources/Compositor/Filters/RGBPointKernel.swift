import RealModule

/// A colour function of R', G' and B' (0...1 each), the presets that need RGB: rosy, sepia,
/// gamma, posterize, a 3D LUT.
public protocol RGBTransform {
    func apply(_ c: SIMD3<Float>) -> SIMD3<Float>
}

/// Runs an `RGBTransform` on a yuv420p picture without a full-size RGB copy: each 2x2 block
/// shares one chroma sample, so its four pixels are converted to RGB (BT.601 video range, as
/// `YUVColor(rgb:)`), transformed, and converted back; the block's new chroma is the mean of
/// its four. Nothing is allocated: the RGB working values live in registers, one block at a time.
public struct RGBPointKernel<T: RGBTransform>: FilterKernel {
    let transform: T
    public init(_ transform: T) { self.transform = transform }

    @inline(__always) static func toRGB(_ y: UInt8, _ pb: Float, _ pr: Float) -> SIMD3<Float> {
        let yn = (Float(y) - 16) / 219
        return SIMD3(yn + 1.402 * pr, yn - 0.344136 * pb - 0.714136 * pr, yn + 1.772 * pb)
    }

    @inline(__always) static func clamp8(_ x: Float) -> UInt8 { UInt8(max(0, min(255, x.rounded()))) }

    public mutating func apply(_ input: YUVImage, into output: YUVImage) {
        let w = input.width, h = input.height
        for by in 0..<input.u.height {
            let ui = input.u.row(by), vi = input.v.row(by), uo = output.u.row(by), vo = output.v.row(by)
            for bx in 0..<input.u.width {
                let pb = (Float(ui[bx]) - 128) / 224, pr = (Float(vi[bx]) - 128) / 224
                var sumPb: Float = 0, sumPr: Float = 0, n: Float = 0
                for dy in 0..<2 {
                    let yRow = 2 * by + dy
                    guard yRow < h else { break }
                    let yi = input.y.row(yRow), yo = output.y.row(yRow)
                    for dx in 0..<2 {
                        let x = 2 * bx + dx
                        guard x < w else { break }
                        // Clipped to the gamut in RGB, as an RGB filter's 8-bit output would be.
                        let c = simd_clamp01(transform.apply(Self.toRGB(yi[x], pb, pr)))
                        let yn = 0.299 * c.x + 0.587 * c.y + 0.114 * c.z
                        yo[x] = Self.clamp8(16 + 219 * yn)
                        sumPb += (c.z - yn) / 1.772; sumPr += (c.x - yn) / 1.402; n += 1
                    }
                }
                uo[bx] = Self.clamp8(128 + 224 * sumPb / n)
                vo[bx] = Self.clamp8(128 + 224 * sumPr / n)
            }
        }
    }
}

/// AVCamFilter's Rosy: green gone, red and blue kept.
public struct RosyTransform: RGBTransform {
    public init() {}
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> { SIMD3(c.x, 0, c.z) }
}

/// GPUImage's sepia colour matrix, mixed with the picture by `intensity`.
public struct SepiaTransform: RGBTransform {
    let intensity: Float
    public init(intensity: Double) { self.intensity = Float(intensity) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> {
        let s = SIMD3<Float>(0.3588 * c.x + 0.7044 * c.y + 0.1368 * c.z,
                             0.2990 * c.x + 0.5870 * c.y + 0.1140 * c.z,
                             0.2392 * c.x + 0.4696 * c.y + 0.0912 * c.z)
        return c + (s - c) * intensity
    }
}

/// c^gamma per channel (GPUImage's gamma), negative values (out of gamut) kept at 0.
public struct GammaTransform: RGBTransform {
    let gamma: Float
    public init(gamma: Double) { self.gamma = Float(gamma) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3(Float.pow(max(0, c.x), gamma), Float.pow(max(0, c.y), gamma), Float.pow(max(0, c.z), gamma))
    }
}

/// floor(c * levels + 0.5) / levels per channel (GPUImage's posterize).
public struct PosterizeTransform: RGBTransform {
    let levels: Float
    public init(levels: Int) { self.levels = Float(levels) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> {
        (simd_clamp01(c) * levels + 0.5).rounded(.down) / levels
    }
}

@inline(__always) func simd_clamp01(_ c: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(max(0, min(1, c.x)), max(0, min(1, c.y)), max(0, min(1, c.z)))
}

/// c + amount (GPUImage's brightness).
public struct BrightnessTransform: RGBTransform {
    let amount: Float
    public init(amount: Double) { self.amount = Float(amount) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> { c + amount }
}

/// (c - 0.5) * amount + 0.5 (GPUImage's contrast).
public struct ContrastTransform: RGBTransform {
    let amount: Float
    public init(amount: Double) { self.amount = Float(amount) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> { (c - 0.5) * amount + 0.5 }
}

/// mix(luma, c, amount), luma by BT.601's weights (GPUImage's saturation, whose weights are Rec. 709's).
public struct SaturationTransform: RGBTransform {
    let amount: Float
    public init(amount: Double) { self.amount = Float(amount) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> {
        let l = 0.299 * c.x + 0.587 * c.y + 0.114 * c.z
        return l + (c - l) * amount
    }
}

/// c * 2^ev (GPUImage's exposure).
public struct ExposureTransform: RGBTransform {
    let k: Float
    public init(ev: Double) { k = Float.exp2(Float(ev)) }
    public func apply(_ c: SIMD3<Float>) -> SIMD3<Float> { c * k }
}
