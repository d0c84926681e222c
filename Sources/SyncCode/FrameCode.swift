import Compositor

/// The frame-number code in the picture: one row of 40 large black and white cells near the top,
/// from 5% to 95% of the width, 8% of the height tall. Cells 0 and 39 are white, 1 and 38 black:
/// the references that give the local black and white (whatever range conversion or gain the
/// pipeline applied) and the threshold between them; cells 2-37 carry a `CodeWord`, 1 = white.
/// Everything is placed in fractions of the picture, so the code is read at any scale once the
/// picture's rectangle is known: a quarter-width copy still has cells of 10 pixels at 1080p, and
/// letterbox or pillarbox bars are found and skipped (`pictureRect`).
public enum FrameCode {
    public static let cells = 40
    static let left = 0.05, span = 0.90
    static let top = 0.05, height = 0.08
    public static let white = YUVColor(y: 235, u: 128, v: 128)
    public static let black = YUVColor(y: 16, u: 128, v: 128)
    /// The grey every test picture is painted on: never taken for a letterbox bar.
    public static let background = YUVColor(y: 112, u: 128, v: 128)

    /// Whether cell `i` of the code for `number` is white.
    @inline(__always) static func cellIsWhite(_ i: Int, word: UInt64) -> Bool {
        switch i {
        case 0, cells - 1: return true
        case 1, cells - 2: return false
        default: return (word >> UInt64(i - 2)) & 1 == 1
        }
    }

    /// Cell `i`'s rectangle in a picture of `size` (the band is the union of them).
    static func cell(_ i: Int, in size: Size) -> Rect {
        let x0 = Int((Double(size.width) * (left + span * Double(i) / Double(cells))).rounded())
        let x1 = Int((Double(size.width) * (left + span * Double(i + 1) / Double(cells))).rounded())
        let y0 = Int((Double(size.height) * top).rounded()), y1 = Int((Double(size.height) * (top + height)).rounded())
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Paints the code of `number` into `image` (luma, and neutral chroma under the band).
    public static func paint(_ number: Int, into image: YUVImage) {
        let word = CodeWord.encode(number)
        let size = Size(width: image.width, height: image.height)
        for i in 0..<cells {
            let r = cell(i, in: size)
            fill(image, r, cellIsWhite(i, word: word) ? white : black)
        }
    }

    /// Paints any rectangle (odd edges too: chroma covers the pixels it touches).
    static func fill(_ image: YUVImage, _ r: Rect, _ c: YUVColor) {
        fill(image.y, r, c.y)
        let cr = Rect(x: r.x / 2, y: r.y / 2, width: (r.x + r.width + 1) / 2 - r.x / 2, height: (r.y + r.height + 1) / 2 - r.y / 2)
        fill(image.u, cr, c.u); fill(image.v, cr, c.v)
    }

    static func fill(_ p: Plane, _ r: Rect, _ value: UInt8) {
        let x0 = max(0, r.x), x1 = min(p.width, r.x + r.width)
        guard x1 > x0 else { return }
        for y in max(0, r.y)..<min(p.height, r.y + r.height) { (p.row(y) + x0).update(repeating: value, count: x1 - x0) }
    }

    /// Reads the code from `luma` where the picture occupies `rect`; nil when there is no code
    /// there (too little contrast between the references, an undecided cell, a bad checksum).
    public static func read(_ luma: Plane, in rect: Rect) -> Int? {
        guard rect.width >= cells, rect.height >= 12 else { return nil }
        let size = Size(width: rect.width, height: rect.height)
        // Sample the middle of each cell: a box 40% of the cell each way, away from blurred edges.
        func level(_ i: Int) -> Double {
            let c = cell(i, in: size)
            let hx = max(0, c.width / 5), hy = max(0, c.height / 5)
            let cx = rect.x + c.x + c.width / 2, cy = rect.y + c.y + c.height / 2
            var sum = 0, n = 0
            for y in max(0, cy - hy)...min(luma.height - 1, cy + hy) {
                let row = luma.row(y)
                for x in max(0, cx - hx)...min(luma.width - 1, cx + hx) { sum += Int(row[x]); n += 1 }
            }
            return n > 0 ? Double(sum) / Double(n) : 0
        }
        let w0 = level(0), b0 = level(1), b1 = level(cells - 2), w1 = level(cells - 1)
        let c0 = w0 - b0, c1 = w1 - b1
        guard c0 > 40, c1 > 40 else { return nil }
        var word: UInt64 = 0
        for i in 2..<(cells - 2) {
            // Black and white references interpolated across the band: a gradient (vignetting,
            // a lit edge) moves the threshold with it.
            let f = Double(i) / Double(cells - 1)
            let threshold = ((w0 + b0) / 2) * (1 - f) + ((w1 + b1) / 2) * f
            let contrast = c0 * (1 - f) + c1 * f
            let v = level(i)
            guard abs(v - threshold) > 0.2 * contrast else { return nil }
            if v > threshold { word |= 1 << UInt64(i - 2) }
        }
        return CodeWord.decode(word)
    }

    /// The rectangle the picture occupies inside `region` of `luma`: letterbox and pillarbox bars
    /// (rows and columns darker than 48 on average, black in either range) are cut off. Nil if
    /// the whole region is dark.
    public static func pictureRect(_ luma: Plane, in region: Rect) -> Rect? {
        let step = 4, dark = 48
        func rowActive(_ y: Int) -> Bool {
            let row = luma.row(y)
            var sum = 0, n = 0
            var x = region.x
            while x < region.x + region.width { sum += Int(row[x]); n += 1; x += step }
            return sum > dark * n
        }
        var top = region.y, bottom = region.y + region.height - 1
        while top <= bottom && !rowActive(top) { top += 1 }
        while bottom > top && !rowActive(bottom) { bottom -= 1 }
        guard top <= bottom else { return nil }
        func columnActive(_ x: Int) -> Bool {
            var sum = 0, n = 0
            var y = top
            while y <= bottom { sum += Int(luma.row(y)[x]); n += 1; y += step }
            return sum > dark * n
        }
        var l = region.x, r = region.x + region.width - 1
        while l <= r && !columnActive(l) { l += 1 }
        while r > l && !columnActive(r) { r -= 1 }
        guard l <= r else { return nil }
        return Rect(x: l, y: top, width: r - l + 1, height: bottom - top + 1)
    }

    /// `pictureRect`, then `read`.
    public static func find(_ luma: Plane, in region: Rect) -> Int? {
        guard let r = pictureRect(luma, in: region) else { return nil }
        return read(luma, in: r)
    }
}
