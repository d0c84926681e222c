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
        case .rosy: return RGBPointKernel(RosyTransform())
        case .mono: return PlaneLUTKernel.mono
        case .sepia: return RGBPointKernel(SepiaTransform(intensity: spec.number("intensity")))
        case .invert: return PlaneLUTKernel.invert
        case .brightness: return RGBPointKernel(BrightnessTransform(amount: spec.number("amount")))
        case .contrast: return RGBPointKernel(ContrastTransform(amount: spec.number("amount")))
        case .saturation: return RGBPointKernel(SaturationTransform(amount: spec.number("amount")))
        case .exposure: return RGBPointKernel(ExposureTransform(ev: spec.number("ev")))
        case .gamma: return RGBPointKernel(GammaTransform(gamma: spec.number("gamma")))
        case .hue: return HueKernel(degrees: spec.number("degrees"))
        case .posterize: return RGBPointKernel(PosterizeTransform(levels: Int(spec.number("levels"))))
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
            return RGBPointKernel(LUTTransform(try loadLUT(spec.texts["file"]!), interpolation))
        }
    }
}
