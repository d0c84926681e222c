/// Where each clip's tile and its two label lines (name, duration) go on a contact sheet: up
/// to `columns` tiles a row in reading order, `gap` pixels around every tile, the labels in a
/// band under each tile. Every edge is even (4:2:0).
public struct ContactSheetLayout: Equatable, Sendable {
    public let canvas: Size
    /// The box each clip's picture is fitted into (aspect kept, centred: `Layout.fit`).
    public let tiles: [Rect]
    /// Top-left corner of each tile's first label line; the second is `lineStep` below.
    public let labels: [Rect]
    public let labelScale: Int
    public let columns: Int
    public let rows: Int
    /// Pixels from one label line to the next.
    public var lineStep: Int { BitmapFont.lineHeight * labelScale + labelScale }

    /// `tile`: the box of one picture (made even). Labels are drawn at scale 2 on tiles 240
    /// pixels wide and more, else 1, and are as wide as the tile.
    public init(count: Int, tile: Size, maxColumns: Int = 4, gap: Int = 8) {
        precondition(count >= 1 && maxColumns >= 1 && tile.width >= 2 && tile.height >= 2)
        let g = max(2, gap & ~1)
        let tw = tile.width & ~1, th = tile.height & ~1
        labelScale = tw >= 240 ? 2 : 1
        let labelBand = (2 * (BitmapFont.lineHeight + 1) * labelScale + 4 + 1) & ~1
        columns = min(count, maxColumns)
        rows = (count + columns - 1) / columns
        let cellW = tw + g, cellH = th + labelBand + g
        canvas = Size(width: g + columns * cellW, height: g + rows * cellH)
        var tiles: [Rect] = [], labels: [Rect] = []
        for i in 0..<count {
            let x = g + (i % columns) * cellW, y = g + (i / columns) * cellH
            tiles.append(Rect(x: x, y: y, width: tw, height: th))
            labels.append(Rect(x: x, y: y + th + 4, width: tw, height: labelBand - 4))
        }
        self.tiles = tiles
        self.labels = labels
    }

    /// `text` cut to fit `width` pixels at `scale`: kept whole if it fits, else its start and
    /// "..." (a file name's start is what tells clips apart in a gallery). Works on Unicode
    /// scalars, the font's cells.
    public static func fit(_ text: String, width: Int, scale: Int) -> String {
        if BitmapFont.width(of: text, scale: scale) <= width { return text }
        let cells = (width / scale + 1) / BitmapFont.advance
        guard cells > 3 else { return String(String.UnicodeScalarView(text.unicodeScalars.prefix(max(0, cells)))) }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(cells - 3))) + "..."
    }

    /// A clip's duration as a label: "4.00 s" under a minute, "1:05.3" under an hour, "1:02:03" above.
    public static func durationLabel(seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "duration unknown" }
        if seconds < 60 {
            let centis = Int((seconds * 100).rounded())
            return "\(centis / 100).\(pad(centis % 100, 2)) s"
        }
        let tenths = Int((seconds * 10).rounded())
        let s = tenths / 10, m = s / 60
        if m < 60 { return "\(m):\(pad(s % 60, 2)).\(tenths % 10)" }
        return "\(m / 60):\(pad(m % 60, 2)):\(pad(s % 60, 2))"
    }

    private static func pad(_ v: Int, _ digits: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, digits - s.count)) + s
    }
}
