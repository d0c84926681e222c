import Compositor
import Media

/// Turns one frame from each input into the output picture. Inputs arrive already placed and
/// scaled by their readers (see `Layout`), so this is only the blend kernel.
struct Blender {
    let mode: BlendMode
    let layout: Layout
    let key: ChromaKey
    let weights: [Int]
    private var images: [YUVImage] = []

    init(mode: BlendMode, layout: Layout, key: ChromaKey, weights: [Double]) {
        self.mode = mode; self.layout = layout; self.key = key
        self.weights = PlaneKernels.fixedPointWeights(weights)
        images.reserveCapacity(layout.places.count)
    }

    /// How each input's reader fills the part of its place its picture does not cover: keyed
    /// layers with the key colour (so it keys away), others black.
    func marginColor(ofInput i: Int) -> YUVColor {
        switch mode {
        case .chromakey: return i == 0 ? YUVColor(rgb: key.keyColor) : .black
        case .stack: return i == 0 ? .black : YUVColor(rgb: key.keyColor)
        case .quad, .mix, .single: return .black
        }
    }

    mutating func blend(_ inputs: (Int) -> Frame, into out: Frame) {
        let o = out.image
        switch mode {
        case .single:
            PlaneKernels.copy(inputs(0).image, into: o)
        case .chromakey:
            key.apply(foreground: inputs(0).image, background: inputs(1).image, into: o)
        case .stack:
            PlaneKernels.copy(inputs(0).image, into: o)
            for i in 1..<layout.places.count { key.apply(foreground: inputs(i).image, background: o, into: o) }
        case .quad:
            for i in layout.places.indices { PlaneKernels.copy(inputs(i).image, into: o.cropped(to: layout.places[i])) }
        case .mix:
            images.removeAll(keepingCapacity: true)
            for i in layout.places.indices { images.append(inputs(i).image) }
            PlaneKernels.mix(images, weights: weights, into: o)
        }
    }
}
