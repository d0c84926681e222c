/// How `grid`, `quad` and `pip` place their inputs: the grid's shape, how a picture meets its
/// cell, borders, labels, and the picture-in-picture insets' corner and size.
public struct GridSpec: Equatable, Sendable {
    /// The most inputs a grid takes (each is a decoder and a thread of its own).
    public static let mostCells = 64

    public struct Shape: Equatable, Sendable {
        public var rows: Int, columns: Int
        public init(rows: Int, columns: Int) { self.rows = rows; self.columns = columns }
        public var cells: Int { rows * columns }
    }

    /// How a picture meets its cell: `fit` shows all of it (bars where the shapes differ, as
    /// quad always did); `fill` covers the cell, cropping the picture's sides (or top and bottom).
    public enum Fit: String, CaseIterable, Sendable { case fit, fill }

    public enum Corner: String, CaseIterable, Sendable {
        case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"
        public var isLeft: Bool { self == .topLeft || self == .bottomLeft }
        public var isTop: Bool { self == .topLeft || self == .topRight }
    }

    public struct PiP: Equatable, Sendable {
        public var corner = Corner.bottomRight
        /// Each inset's width, as a share of the canvas's.
        public var size = 0.3
        public init() {}
        public static let sizes = 0.05...0.9
    }

    /// rows x columns (`--layout`); nil: the smallest near-square grid that holds the inputs.
    public var layout: Shape?
    public var fit = Fit.fit
    /// Width of the line drawn around each cell (each inset under pip), pixels (0: none); an
    /// odd width is drawn one wider (`Decor.drawnBorder`).
    public var border = 0
    public var borderColor = RGB(r: 255, g: 255, b: 255)
    /// One text per input (the file name, or the user's), drawn in its cell's bottom-left corner.
    public var labels: [String]?
    public var pip = PiP()

    public init() {}

    var shape: (Int, Int)? { layout.map { ($0.rows, $0.columns) } }

    /// The smallest near-square grid for n inputs: columns = ceil(sqrt(n)), rows as needed
    /// (2: 1x2, 3 and 4: 2x2, 5 and 6: 2x3, 7 to 9: 3x3).
    public static func shape(for n: Int) -> (rows: Int, columns: Int) {
        var c = 1
        while c * c < n { c += 1 }
        return ((n + c - 1) / c, c)
    }
}

/// What is drawn over the blended places: border strips and labels, all on even pixels.
public struct Decor: Equatable, Sendable {
    public struct Label: Equatable, Sendable {
        public var text: String
        /// The text's top-left corner and the bitmap font's scale.
        public var x: Int, y: Int, scale: Int
        /// The dark box behind it.
        public var box: Rect
    }
    public var borders: [Rect]
    public var borderColor = RGB(r: 255, g: 255, b: 255)
    public var labels: [Label]

    public init(borders: [Rect], labels: [Label]) { self.borders = borders; self.labels = labels }

    /// Borders around the places from index `borderedFrom` on (pip: 1, the insets; a grid: 0,
    /// every cell), labels in every place that has a text.
    init(places: [Rect], spec: GridSpec, borderedFrom: Int) {
        borderColor = spec.borderColor
        let b = Self.drawnBorder(spec.border)
        borders = []
        if b > 0 {
            for (i, p) in places.enumerated() where i >= borderedFrom {
                let w = min(b, p.width), h = min(b, p.height)
                borders += [
                    Rect(x: p.x, y: p.y, width: p.width, height: h),
                    Rect(x: p.x, y: p.y + p.height - h, width: p.width, height: h),
                    Rect(x: p.x, y: p.y, width: w, height: p.height),
                    Rect(x: p.x + p.width - w, y: p.y, width: w, height: p.height)
                ]
            }
        }
        labels = zip(places, spec.labels ?? []).compactMap { place, text in Decor.label(text, in: place, inset: b) }
    }

    /// The width a border is drawn: `asked`, or one wider when odd. The places sit on even
    /// pixels and 4:2:0 stores colour once per 2x2 pixels, so a border's edge on an odd pixel
    /// would share a colour sample with the picture; up, not down: never thinner than asked.
    public static func drawnBorder(_ asked: Int) -> Int { (asked + 1) & ~1 }

    /// A label in the bottom-left corner of `place`, inside its border: the font scaled to the
    /// place (1 for every 180 rows: 6 in a 1080-row cell, a 42-pixel line), cut to the place's
    /// width; nil when not one character fits.
    static func label(_ text: String, in place: Rect, inset: Int) -> Label? {
        let scale = max(1, place.height / 180)
        let pad = 2 * scale
        // As many characters (one glyph per scalar) as fit, counted once: cutting one at a time
        // measured the whole text each time (a 100 kB label cost seconds per layout).
        let room = place.width - 2 * pad - 2 * inset
        let fits = room < 0 ? 0 : (room / scale + 1) / BitmapFont.advance
        let shown = String(String.UnicodeScalarView(text.unicodeScalars.prefix(fits)))
        guard !shown.isEmpty, BitmapFont.height(scale: scale) + 2 * pad + 2 * inset <= place.height else { return nil }
        let w = (BitmapFont.width(of: shown, scale: scale) + 2 * pad + 1) & ~1
        let h = (BitmapFont.height(scale: scale) + 2 * pad + 1) & ~1
        let box = Rect(x: place.x + inset, y: place.y + place.height - inset - h, width: w, height: h)
        return Label(text: shown, x: box.x + pad, y: box.y + pad, scale: scale, box: box)
    }
}
