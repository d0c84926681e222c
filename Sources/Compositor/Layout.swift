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
}

/// The blends Lockstep knows.
public enum BlendMode: String, CaseIterable, Sendable {
    /// 2 inputs: the first's key colour is replaced by the second (GPUImage's chroma key blend).
    case chromakey
    /// 2 to 4 inputs in a 2x2 grid, reading order; empty cells black.
    case quad
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
        case .quad, .stack, .mix: return 2...4
        }
    }

    /// The blends `composite --blend` offers.
    public static let compositing: [BlendMode] = [.chromakey, .quad, .stack, .mix]
}

/// Where each input goes on the canvas: its place (the whole canvas, or its quad cell), and
/// inside it the largest rectangle of the input's display aspect. 4:2:0 needs even numbers,
/// so every edge is on an even pixel.
public struct Layout: Equatable, Sendable {
    public let canvas: Size
    public let places: [Rect]
    public let pictures: [Rect]

    public init(blend: BlendMode, canvas: Size, inputs: [Size]) {
        precondition(canvas.width % 2 == 0 && canvas.height % 2 == 0, "canvas must be even")
        self.canvas = canvas
        let places: [Rect]
        switch blend {
        case .quad:
            let lw = (canvas.width / 4) * 2, th = (canvas.height / 4) * 2
            let cells = [Rect(x: 0, y: 0, width: lw, height: th),
                         Rect(x: lw, y: 0, width: canvas.width - lw, height: th),
                         Rect(x: 0, y: th, width: lw, height: canvas.height - th),
                         Rect(x: lw, y: th, width: canvas.width - lw, height: canvas.height - th)]
            places = Array(cells.prefix(inputs.count))
        case .chromakey, .stack, .mix, .single:
            places = inputs.map { _ in Rect(x: 0, y: 0, width: canvas.width, height: canvas.height) }
        }
        self.places = places
        pictures = zip(places, inputs).map { Layout.fit($0.1, into: $0.0) }
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
