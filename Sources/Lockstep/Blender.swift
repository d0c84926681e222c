import Compositor
import Media

/// Turns one frame from each input into the output picture. Inputs arrive already fitted to
/// their places by their lanes' conformers (see `Layout`), so this is only the blend kernel.
struct Blender {
    let mode: BlendMode
    let layout: Layout
    let key: ChromaKey
    /// Lockstep's keyer, when it is the one chosen (else `key`, GPUImage's math, keys).
    let keyer: Keyer?
    let weights: [Int]
    // Kept so blending a frame allocates nothing.
    private var frames: [Frame] = []
    private var images: [YUVImage] = []

    init(mode: BlendMode, layout: Layout, key: ChromaKey, keyer: Keyer? = nil, weights: [Double]) {
        self.mode = mode; self.layout = layout; self.key = key; self.keyer = keyer
        self.weights = PlaneKernels.fixedPointWeights(weights)
        frames.reserveCapacity(layout.places.count)
        images.reserveCapacity(layout.places.count)
    }

    /// How each input's conformer fills the part of its place its picture does not cover: keyed
    /// layers with the key colour (so it keys away), others black.
    func marginColor(ofInput i: Int) -> YUVColor {
        switch mode {
        case .chromakey: return i == 0 ? YUVColor(rgb: key.keyColor) : .black
        case .stack: return i == 0 ? .black : YUVColor(rgb: key.keyColor)
        case .quad, .mix, .single: return .black
        }
    }

    mutating func blend(_ inputs: (Int) -> Frame, into out: Frame) {
        var frames: [Frame] = [], images: [YUVImage] = []
        swap(&frames, &self.frames); swap(&images, &self.images)  // borrowed scratch, no copy
        defer { frames.removeAll(keepingCapacity: true); swap(&frames, &self.frames); swap(&images, &self.images) }
        for i in layout.places.indices { frames.append(inputs(i)) }
        let (mode, layout, key, keyer, weights) = (self.mode, self.layout, self.key, self.keyer, self.weights)
        out.withImage { o in
            Frame.withImages(frames, in: &images) { all in
                switch mode {
                case .single:
                    PlaneKernels.copy(all[0], into: o)
                case .chromakey:
                    if let keyer { keyer.apply(foreground: all[0], background: all[1], into: o) } else {
                        key.apply(foreground: all[0], background: all[1], into: o)
                    }
                case .stack:
                    if let keyer { keyer.applyStack(all, into: o); break }
                    PlaneKernels.copy(all[0], into: o)
                    for i in 1..<layout.places.count { key.apply(foreground: all[i], background: o, into: o) }
                case .quad:
                    for i in layout.places.indices { PlaneKernels.copy(all[i], into: o.cropped(to: layout.places[i])) }
                case .mix:
                    PlaneKernels.mix(all, weights: weights, into: o)
                }
            }
        }
    }
}
