/// Makes the renderers a parsed chain names. `loadLUT` turns a `lut` filter's `file=` into a
/// table (the job reads the file; tests hand one in), so this stays free of I/O.
public enum FilterFactory {
    public static func renderer(for spec: FilterSpec, loadLUT: (String) throws -> CubeLUT) throws -> KernelRenderer {
        KernelRenderer(name: spec.text, kernel: try kernel(for: spec, loadLUT: loadLUT))
    }

    public static func chain(_ spec: FilterChainSpec, loadLUT: (String) throws -> CubeLUT) throws -> FilterChain {
        FilterChain(name: spec.text, renderers: try spec.filters.map { try renderer(for: $0, loadLUT: loadLUT) })
    }

    static func kernel(for spec: FilterSpec, loadLUT: (String) throws -> CubeLUT) throws -> any FilterKernel {
        switch spec.name {
        case .rosy: return rgb(RosyTransform())
        case .mono: return PlaneLUTKernel.mono
        case .sepia: return rgb(SepiaTransform(intensity: spec.number("intensity")))
        case .invert: return PlaneLUTKernel.invert
        case .brightness: return rgb(BrightnessTransform(amount: spec.number("amount")))
        case .contrast: return rgb(ContrastTransform(amount: spec.number("amount")))
        case .saturation: return rgb(SaturationTransform(amount: spec.number("amount")))
        case .exposure: return rgb(ExposureTransform(ev: spec.number("ev")))
        case .gamma: return rgb(GammaTransform(gamma: spec.number("gamma")))
        case .hue: return HueKernel(degrees: spec.number("degrees"))
        case .posterize: return rgb(PosterizeTransform(levels: Int(spec.number("levels"))))
        case .vignette:
            guard spec.number("end") > spec.number("start") else {
                throw FilterError("filter vignette: end must be greater than start; got start=\(spec.number("start")) end=\(spec.number("end")).")
            }
            return VignetteKernel(start: spec.number("start"), end: spec.number("end"))
        case .pixellate: return PixellateKernel(size: Int(spec.number("size")))
        case .blur: return BlurKernel(sigma: spec.number("radius"))
        case .sharpen: return SharpenKernel(amount: spec.number("amount"), sigma: spec.number("radius"))
        case .edges: return EdgesKernel(strength: spec.number("strength"))
        case .lut:
            let interpolation = CubeLUT.Interpolation(rawValue: spec.texts["interp"] ?? "trilinear") ?? .trilinear
            return rgb(LUTTransform(try loadLUT(spec.texts["file"]!), interpolation))
        }
    }

    /// The RGB kernel for `transform`, specialised. Called through `any FilterKernel`, a generic
    /// type's `apply` runs its unspecialised code, where every SIMD3 operation goes through type
    /// metadata (measured: 100-240 ms per 1080p frame); a closure made here, where T is known,
    /// runs the specialised loop.
    static func rgb<T: RGBTransform>(_ transform: T) -> any FilterKernel {
        var kernel = RGBPointKernel(transform)
        return ClosureKernel { kernel.apply($0, into: $1) }
    }
}

/// A kernel that is a closure (see `FilterFactory.rgb`).
struct ClosureKernel: FilterKernel {
    let body: (YUVImage, YUVImage) -> Void
    mutating func apply(_ input: YUVImage, into output: YUVImage) { body(input, output) }
}
