/// An integer rectangle in pixels.
public struct Rect: Equatable, Sendable, CustomStringConvertible {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) { self.x = x; self.y = y; self.width = width; self.height = height }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

public struct Size: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var width: Int, height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var description: String { "\(width)x\(height)" }

    /// The canvas a picture of this size gives a job that takes its size from it: each side
    /// rounded down to even (4:2:0 chroma halves it), and at least 2.
    public var evenCanvas: Size { Size(width: max(2, width & ~1), height: max(2, height & ~1)) }
}

/// The blends Lockstep knows.
public enum BlendMode: String, CaseIterable, Sendable {
    /// 2 inputs: the first's key colour is replaced by the second (GPUImage's chroma key blend).
    case chromakey
    /// 2 to 4 inputs in a 2x2 grid, reading order; empty cells black (`grid` of 2x2).
    case quad
    /// 2 to 64 inputs in a grid of rows x columns (`GridSpec`), reading order; empty cells black.
    case grid
    /// The first input on the whole canvas, each next one in a small picture in a corner.
    case pip
    /// 2 to 4 inputs: the first is the bottom layer; each next one is keyed over what is below.
    case stack
    /// 2 to 4 inputs, weighted average.
    case mix
    /// One input, as it is (`lockstep snake`: the effect is the only stage).
    case single

    public var inputRange: ClosedRange<Int> {
        switch self {
        case .chromakey: return 2...2
        case .single: return 1...1
        case .quad, .stack, .mix, .pip: return 2...4
        case .grid: return 2...GridSpec.mostCells
        }
    }

    /// The blends `composite --blend` offers.
    public static let compositing: [BlendMode] = [.chromakey, .quad, .grid, .pip, .stack, .mix]

    /// The blends that put each input in a place of its own (a cell, an inset), where cell
    /// fitting, borders and labels apply.
    public var placesInputs: Bool { self == .quad || self == .grid || self == .pip }
}

/// Where each input goes on the canvas: its place (the whole canvas, its grid cell, its inset),
/// and inside it the largest rectangle of the input's display aspect (`fit`), or the whole
/// place with the input cropped to the place's shape (`fill`: `keep` says how much of the
/// picture shows). 4:2:0 needs even numbers, so every edge is on an even pixel.
public struct Layout: Equatable, Sendable {
    public let canvas: Size
    public let places: [Rect]
    public let pictures: [Rect]
    /// Per input, the share of its displayed picture's width and height that shows (1, 1 but
    /// under `fill`), centred.
    public let keep: [Keep]
    /// Borders and labels drawn over the places.
    public let decor: Decor

    public struct Keep: Equatable, Sendable {
        public var width: Double, height: Double
        /// The share cropped from the displayed picture's left and top (centred: half of what
        /// is not kept; a placed foreground that overhangs one side: more on that side).
        public var left: Double, top: Double
        /// Centred.
        public init(width: Double, height: Double) { self.init(width: width, height: height, left: (1 - width) / 2, top: (1 - height) / 2) }
        public init(width: Double, height: Double, left: Double, top: Double) {
            self.width = width; self.height = height; self.left = left; self.top = top
        }
        public static let all = Keep(width: 1, height: 1)
        /// Whether as much is cropped from the left as from the right, from the top as from the bottom.
        public var isCentred: Bool { left == (1 - width) / 2 && top == (1 - height) / 2 }
    }

    /// `keyed`: where `chromakey` puts its foreground and background (`placed`).
    public init(blend: BlendMode, canvas: Size, inputs: [Size], cells spec: GridSpec = GridSpec(), keyed: KeyPlacement = KeyPlacement()) {
        precondition(canvas.width % 2 == 0 && canvas.height % 2 == 0, "canvas must be even")
        self.canvas = canvas
        let places: [Rect]
        switch blend {
        case .quad:
            places = Array(Layout.cells(rows: 2, columns: 2, canvas: canvas).prefix(inputs.count))
        case .grid:
            let (r, c) = spec.shape ?? GridSpec.shape(for: inputs.count)
            places = Array(Layout.cells(rows: r, columns: c, canvas: canvas).prefix(inputs.count))
        case .pip:
            places =
                [Rect(x: 0, y: 0, width: canvas.width, height: canvas.height)]
                + Layout.insets(spec.pip, canvas: canvas, inputs: Array(inputs.dropFirst()))
        case .chromakey, .stack, .mix, .single:
            places = inputs.map { _ in Rect(x: 0, y: 0, width: canvas.width, height: canvas.height) }
        }
        self.places = places
        // An inset is made to its input's shape: fitting it is exact either way.
        let fills = blend.placesInputs && spec.fit == .fill
        var pictures = zip(places, inputs).map { fills ? $0.0 : Layout.fit($0.1, into: $0.0) }
        var keep = zip(places, inputs).map { fills ? Layout.keep($0.1, filling: $0.0) : Keep.all }
        if blend == .chromakey && inputs.count == 2 {
            (pictures[0], keep[0]) = Layout.placed(inputs[0], on: canvas, keyed)
            if keyed.backgroundFit == .fill { (pictures[1], keep[1]) = (places[1], Layout.keep(inputs[1], filling: places[1])) }
        }
        self.pictures = pictures
        self.keep = keep
        decor =
            blend.placesInputs
            ? Decor(places: places, spec: spec, borderedFrom: blend == .pip ? 1 : 0)
            : Decor(borders: [], labels: [])
    }

    /// rows x columns cells tiling the canvas, reading order; every edge even, the last row and
    /// column taking what the division leaves.
    public static func cells(rows: Int, columns: Int, canvas: Size) -> [Rect] {
        func edges(_ length: Int, _ n: Int) -> [Int] { (0...n).map { $0 == n ? length : (length * $0 / n) & ~1 } }
        let xs = edges(canvas.width, columns), ys = edges(canvas.height, rows)
        return (0..<rows).flatMap { r in
            (0..<columns).map { c in
                Rect(x: xs[c], y: ys[r], width: xs[c + 1] - xs[c], height: ys[r + 1] - ys[r])
            }
        }
    }

    /// Picture-in-picture insets: each `size` of the canvas's width, of its input's shape, the
    /// first in the corner and the next ones beside it along the top or bottom edge, `margin`
    /// (2% of the canvas width) from the edges and from each other.
    static func insets(_ pip: GridSpec.PiP, canvas: Size, inputs: [Size]) -> [Rect] {
        let margin = max(2, Int(Double(canvas.width) * 0.02)) & ~1
        var x = pip.corner.isLeft ? margin : canvas.width - margin
        return inputs.map { input in
            let w = max(2, Int(Double(canvas.width) * pip.size) & ~1)
            let h = max(2, min(canvas.height - 2 * margin, Int((Double(w) * Double(input.height) / Double(max(1, input.width))).rounded())) & ~1)
            let left = pip.corner.isLeft ? x : x - w
            let top = pip.corner.isTop ? margin : canvas.height - margin - h
            x = pip.corner.isLeft ? x + w + margin : x - w - margin
            return Rect(x: max(0, min(left, canvas.width - w)), y: max(0, top), width: w, height: h)
        }
    }

    /// `fill`: the share of `source` that shows when it covers `place` (the rest cropped equally
    /// from both sides).
    public static func keep(_ source: Size, filling place: Rect) -> Keep {
        let s = Double(source.width) / Double(max(1, source.height)), p = Double(place.width) / Double(max(1, place.height))
        return s > p ? Keep(width: p / s, height: 1) : Keep(width: 1, height: s / p)
    }

    /// The canvas of a blend whose inputs each have a place (quad, grid, pip) when no --size is
    /// given: not the first input's size, which made tiny cells when the first was a portrait
    /// phone among landscape cameras, but one chosen from all of them: the largest input (by
    /// pixels) of the orientation most inputs have (landscape on a tie), the reference. pip: the
    /// first input's own size (it fills the canvas). quad and grid: cells of the reference's
    /// shape, as many pixels in all as the reference has (a 2x2 grid of 1920x1080 inputs is
    /// 1920x1080; 1x3 of them is 3 cells of 1108x624).
    public static func canvas(blend: BlendMode, inputs: [Size], cells spec: GridSpec = GridSpec()) -> Size {
        guard let first = inputs.first else { return Size(width: 2, height: 2) }
        func even(_ v: Double) -> Int { max(2, Int(v.rounded()) & ~1) }
        switch blend {
        case .quad, .grid:
            let portrait = inputs.filter { $0.height > $0.width }.count
            let majority = inputs.filter { (portrait * 2 > inputs.count) == ($0.height > $0.width) }
            let ref = majority.max { $0.width * $0.height < $1.width * $1.height } ?? first
            let (r, c) = blend == .quad ? (2, 2) : (spec.shape ?? GridSpec.shape(for: inputs.count))
            let cell = (Double(ref.width) * Double(ref.height) / Double(r * c)).squareRoot()
            let aspect = Double(ref.width) / Double(max(1, ref.height))
            let cw = cell * aspect.squareRoot(), ch = cell / aspect.squareRoot()
            return Size(width: min(16384, even(cw * Double(c))), height: min(16384, even(ch * Double(r))))
        case .pip, .chromakey, .stack, .mix, .single:
            return Size(width: even(Double(first.width)), height: even(Double(first.height)))
        }
    }

    /// The largest even-sized rectangle of `source`'s aspect inside `place`, centred.
    public static func fit(_ source: Size, into place: Rect) -> Rect {
        // Compare aspects exactly: source.w / source.h against place.w / place.h.
        var w: Int, h: Int
        if source.width * place.height >= place.width * source.height {
            w = place.width
            h = Int((Double(place.width) * Double(source.height) / Double(source.width)).rounded())
        } else {
            h = place.height
            w = Int((Double(place.height) * Double(source.width) / Double(source.height)).rounded())
        }
        w = min(place.width, max(2, w & ~1)); h = min(place.height, max(2, h & ~1))
        let x = place.x + ((place.width - w) / 2) & ~1
        let y = place.y + ((place.height - h) / 2) & ~1
        return Rect(x: x, y: y, width: w, height: h)
    }
}
