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
    /// `--matte` under chromakey and stack: the matte's mix and how it meets the key.
    var matte: (mix: MatteMix, mode: MatteMode)? {
        didSet { if matte != nil && mode == .stack && layout.places.count > 2 { below = YUVBuffer(width: layout.canvas.width, height: layout.canvas.height) } }
    }
    /// An input with alpha is keyed by colour as well (`--key-alpha-and-color`).
    var keyAlphaAndColor = false {
        didSet { if keyAlphaAndColor && mode == .stack && below == nil { below = YUVBuffer(width: layout.canvas.width, height: layout.canvas.height) } }
    }
    /// Alpha planes as weights (full range).
    private let alphaMix = MatteMix(factor: 1, fullRange: true)
    /// Scratch: under a matte in a stack of 3 or more, the layers below the top one; keying a
    /// stack layer by alpha and colour, the picture below it.
    private var below: YUVBuffer?
    // Kept so blending a frame allocates nothing.
    private var frames: [Frame] = []
    private var images: [YUVImage] = []
    /// The HDR working signal: 10-bit frames, keyed on an 8-bit `proxy` of each keyed layer.
    var signal = WorkingSignal.sdr {
        didSet { if signal.isHDR { proxy = YUVBuffer(width: layout.canvas.width, height: layout.canvas.height) } }
    }
    private var proxy: YUVBuffer?
    private var images16: [YUV16Image] = []

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
        case .quad, .grid, .pip, .mix, .single: return .black
        }
    }

    /// `matte`: the matte's picture for this tick (with `matte` set).
    mutating func blend(_ inputs: (Int) -> Frame, matte matteFrame: Frame? = nil, into out: Frame) {
        if signal.isHDR { return blend16(inputs, into: out) }
        var frames: [Frame] = [], images: [YUVImage] = []
        swap(&frames, &self.frames); swap(&images, &self.images)  // borrowed scratch, no copy
        defer { frames.removeAll(keepingCapacity: true); swap(&frames, &self.frames); swap(&images, &self.images) }
        for i in layout.places.indices { frames.append(inputs(i)) }
        if let matteFrame, matte != nil { frames.append(matteFrame) }
        let (mode, layout, key, keyer, weights, matte, below) = (self.mode, self.layout, self.key, self.keyer, self.weights, self.matte, self.below)
        let (alphaMix, andColor) = (self.alphaMix, self.keyAlphaAndColor)
        out.withImage { o in
            Frame.withImages(frames, in: &images) { all in
                if let matte, all.count > layout.places.count {
                    // The foreground's own alpha, if it has one, is its key under `multiply`.
                    let top = mode == .chromakey ? 0 : layout.places.count - 1
                    frames[top].withAlpha { alpha in
                        Self.blend(
                            all, matte: matte, fgAlpha: alpha.map { ($0, alphaMix, andColor) }, below: below?.image, key: key,
                            keyer: keyer, layout: layout, chromakey: mode == .chromakey, into: o)
                    }
                    return
                }
                switch mode {
                case .single:
                    PlaneKernels.copy(all[0], into: o)
                case .chromakey:
                    let keyedByAlpha = frames[0].withAlpha { alpha in
                        alpha.map {
                            Self.keyByAlpha(
                                all[0], alpha: $0, under: all[1], into: o, mix: alphaMix, andColor: andColor,
                                key: key, keyer: keyer, scratch: nil)
                        } != nil
                    }
                    if keyedByAlpha { break }
                    if let keyer {
                        keyer.apply(foreground: all[0], background: all[1], into: o)
                    } else {
                        key.apply(foreground: all[0], background: all[1], into: o)
                    }
                case .stack:
                    if frames.dropFirst().contains(where: { $0.withAlpha { $0 != nil } }) {
                        // Layer by layer, each keyed by its alpha if it has one, else by colour.
                        PlaneKernels.copy(all[0], into: o)
                        for i in 1..<layout.places.count {
                            let keyed = frames[i].withAlpha { alpha in
                                alpha.map {
                                    Self.keyByAlpha(
                                        all[i], alpha: $0, under: o, into: o, mix: alphaMix, andColor: andColor,
                                        key: key, keyer: keyer, scratch: below?.image)
                                } != nil
                            }
                            if keyed { continue }
                            if let keyer { keyer.apply(foreground: all[i], background: o, into: o) } else { key.apply(foreground: all[i], background: o, into: o) }
                        }
                        break
                    }
                    if let keyer { keyer.applyStack(all, into: o); break }
                    PlaneKernels.copy(all[0], into: o)
                    for i in 1..<layout.places.count { key.apply(foreground: all[i], background: o, into: o) }
                case .quad, .grid, .pip:
                    // pip: the first input fills the canvas; the insets are copied over it in order.
                    for i in layout.places.indices { PlaneKernels.copy(all[i], into: o.cropped(to: layout.places[i])) }
                    Self.draw(layout.decor, into: o)
                case .mix:
                    PlaneKernels.mix(all, weights: weights, into: o)
                }
            }
        }
    }

    /// Borders, then labels (white on a black box), over the blended places.
    static func draw(_ decor: Decor, into o: YUVImage) {
        guard !decor.borders.isEmpty || !decor.labels.isEmpty else { return }
        let color = YUVColor(rgb: decor.borderColor)
        for b in decor.borders { PlaneKernels.fill(o, color, in: b) }
        for l in decor.labels {
            PlaneKernels.fill(o, .black, in: l.box)
            BitmapFont.draw(l.text, into: o, x: l.x, y: l.y, scale: l.scale, color: YUVColor(rgb: RGB(r: 255, g: 255, b: 255)))
        }
    }

    /// The matte's blends: the foreground (chromakey: input 1; stack: the top layer) over what
    /// is below it, weighted by the matte alone (`replace`) or by the key's alpha times the
    /// matte (`multiply`: keyed = below + a (fg - below), so mixing keyed over below with the
    /// matte's weight m gives below + a m (fg - below)). A foreground with its own alpha:
    /// `replace` ignores that alpha as it ignores the key colour (the matte is the alpha);
    /// `multiply` multiplies the matte with the alpha (and with the key too under
    /// `--key-alpha-and-color`), as it multiplies a colour key.
    private static func blend(
        _ all: [YUVImage], matte: (mix: MatteMix, mode: MatteMode),
        fgAlpha: (plane: Plane, mix: MatteMix, andColor: Bool)?, below scratch: YUVImage?,
        key: ChromaKey, keyer: Keyer?, layout: Layout, chromakey: Bool, into o: YUVImage
    ) {
        let n = layout.places.count, m = all[n].y
        let fg: YUVImage, under: YUVImage
        if layout.places.count == 2 {
            // chromakey: the first over the second; stack of 2: the second over the first.
            (fg, under) = chromakey ? (all[0], all[1]) : (all[1], all[0])
        } else {
            let b = scratch!
            if let keyer {
                keyer.applyStack(Array(all[..<(n - 1)]), into: b)
            } else {
                PlaneKernels.copy(all[0], into: b)
                for i in 1..<(n - 1) { key.apply(foreground: all[i], background: b, into: b) }
            }
            (fg, under) = (all[n - 1], b)
        }
        switch matte.mode {
        case .replace:
            matte.mix.apply(over: fg, under: under, matte: m, into: o)
        case .multiply:
            if let fgAlpha {
                // `under` is an input or the scratch, never `o`: no copy needed to key by colour too.
                keyByAlpha(
                    fg, alpha: fgAlpha.plane, under: under, into: o, mix: fgAlpha.mix, andColor: fgAlpha.andColor,
                    key: key, keyer: keyer, scratch: nil)
            } else if let keyer {
                keyer.apply(foreground: fg, background: under, into: o)
            } else {
                key.apply(foreground: fg, background: under, into: o)
            }
            matte.mix.apply(over: o, under: under, matte: m, into: o)
        }
    }
}

extension Blender {
    /// The HDR working signal's blends (10-bit): the same layouts and keys; each keyed layer's
    /// matte is computed on its top eight bits (`PlaneKernels16.proxy`). Mattes, alpha inputs,
    /// filters and the snake are refused before a job starts (`CompositeOptions.checkSignal`).
    mutating func blend16(_ inputs: (Int) -> Frame, into out: Frame) {
        var frames: [Frame] = [], images: [YUV16Image] = []
        swap(&frames, &self.frames); swap(&images, &self.images16)  // borrowed scratch, no copy
        defer { frames.removeAll(keepingCapacity: true); swap(&frames, &self.frames); swap(&images, &self.images16) }
        for i in layout.places.indices { frames.append(inputs(i)) }
        let (mode, layout, key, keyer, weights, proxy) = (self.mode, self.layout, self.key, self.keyer, self.weights, self.proxy!.image)
        out.withImage16 { o in
            Frame.withImages16(frames, in: &images) { all in
                func keyed(_ fg: YUV16Image, over bg: YUV16Image) {
                    if let keyer {
                        PlaneKernels16.proxy(fg, into: proxy)
                        keyer.apply(foreground: fg, proxy: proxy, background: bg, into: o)
                    } else {
                        key.apply(foreground: fg, background: bg, into: o)
                    }
                }
                switch mode {
                case .single: PlaneKernels16.copy(all[0], into: o)
                case .chromakey: keyed(all[0], over: all[1])
                case .stack:
                    PlaneKernels16.copy(all[0], into: o)
                    for i in 1..<layout.places.count { keyed(all[i], over: o) }
                case .quad, .grid, .pip:
                    // Borders and labels are refused with --hdr (`checkSignal`): nothing drawn.
                    for i in layout.places.indices { PlaneKernels16.copy(all[i], into: o.cropped(to: layout.places[i])) }
                case .mix:
                    PlaneKernels16.mix(all, weights: weights, into: o)
                }
            }
        }
    }
}
