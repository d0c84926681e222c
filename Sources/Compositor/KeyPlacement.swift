/// Where `chromakey` puts its two pictures (`--fg-scale`, `--fg-position`, `--bg-fit`): the
/// foreground fitted to the canvas as always, then scaled and moved; the background fitted
/// (bars where its shape differs from the canvas's) or filling the canvas, as a grid's cells are
/// (`GridSpec.Fit`). Coordinates are shares of the free room, as CSS's background-position:
/// x 0 puts the foreground's left edge on the canvas's, 1 its right edge on the canvas's right
/// edge, 0.5 centres it; y likewise. So any position in 0...1 keeps a foreground no larger than
/// the canvas wholly on it, and a larger one is cropped where it overhangs.
public struct KeyPlacement: Equatable, Sendable {
    /// The foreground's size against its fit to the canvas (1: as fitted).
    public var scale = 1.0
    public var x = 0.5, y = 0.5
    public var backgroundFit = GridSpec.Fit.fit

    public init() {}

    /// The largest `scale`.
    public static let largestScale = 4.0

    /// Whether the foreground is where it always was (fitted and centred).
    public var keepsForeground: Bool { scale == 1 && x == 0.5 && y == 0.5 }

    /// Named positions (`--fg-position bottom-left`): x, y.
    public static let anchors: [(name: String, x: Double, y: Double)] = [
        ("center", 0.5, 0.5), ("top", 0.5, 0), ("bottom", 0.5, 1), ("left", 0, 0.5), ("right", 1, 0.5),
        ("top-left", 0, 0), ("top-right", 1, 0), ("bottom-left", 0, 1), ("bottom-right", 1, 1)
    ]

    /// What is wrong, as a sentence naming the option; nil when usable.
    public var problem: String? {
        guard scale.isFinite && scale > 0 && scale <= Self.largestScale else {
            return "--fg-scale must be more than 0 and at most \(Self.largestScale.formatted); got \(scale)."
        }
        if let bad = [x, y].first(where: { !($0.isFinite && (0...1).contains($0)) }) {
            return "--fg-position: X and Y must be between 0 and 1 (0,0: the foreground's top-left corner on the canvas's; 1,1: its bottom-right corner on the canvas's); got \(bad)."
        }
        return nil
    }
}

extension Double {
    /// 4 as "4", 0.5 as "0.5".
    fileprivate var formatted: String { self == rounded() ? String(Int(self)) : String(self) }
}

extension Layout {
    /// The foreground of `chromakey` placed by `placement` on `canvas`: the part of its scaled
    /// picture that lies on the canvas (even edges, at least 2x2) and the share of the picture
    /// that part shows.
    public static func placed(_ source: Size, on canvas: Size, _ placement: KeyPlacement) -> (picture: Rect, keep: Keep) {
        let whole = Rect(x: 0, y: 0, width: canvas.width, height: canvas.height)
        let fitted = fit(source, into: whole)
        guard !placement.keepsForeground else { return (fitted, .all) }
        // The scaled picture, in canvas pixels (it may overhang any side).
        let w = Double(fitted.width) * placement.scale, h = Double(fitted.height) * placement.scale
        let x = placement.x * (Double(canvas.width) - w), y = placement.y * (Double(canvas.height) - h)
        /// The visible span along one side, on even pixels, and the share of the picture it shows.
        func span(_ start: Double, _ length: Double, _ room: Int) -> (at: Int, length: Int, skip: Double, share: Double) {
            var a = Int(max(0, start).rounded()) & ~1
            let b = min(room, (Int(min(Double(room), start + length).rounded()) + 1) & ~1)
            let n = min(room, max(2, b - a))
            a = min(a, room - n)
            let skip = min(max((Double(a) - start) / length, 0), 1)
            let end = min(max((Double(a + n) - start) / length, 0), 1)
            return (a, n, skip, max(end - skip, 1e-6))
        }
        let sx = span(x, w, canvas.width), sy = span(y, h, canvas.height)
        let picture = Rect(x: sx.at, y: sy.at, width: sx.length, height: sy.length)
        // Less than a pixel's worth cropped: all of it (rounding, not a crop).
        let all = sx.skip * w < 0.5 && (1 - sx.skip - sx.share) * w < 0.5 && sy.skip * h < 0.5 && (1 - sy.skip - sy.share) * h < 0.5
        return (picture, all ? .all : Keep(width: sx.share, height: sy.share, left: sx.skip, top: sy.skip))
    }
}
