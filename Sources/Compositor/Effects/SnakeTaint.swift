/// Which pixels of the snake's output still depend on its trail as it was before some frame s:
/// what a segment render, which cannot have the single pass's previous output, must outrun.
///
/// A pixel of frame t depends on the previous output only through the trail quad's interior:
/// the front quad drawn over it, the border bands and the black clear do not. There it takes the
/// bilinear mix of at most four pixels of frame t - 1 (those of non-zero weight, in the
/// renderer's own 1/256 tables, `SnakeSampling`). So, per pixel, the starts s (the first frame
/// rendered from an unknown trail) that leave it tainted form an interval [lo, t]: s = t leaves
/// the whole previous output unknown, and an earlier start taints it iff it taints one of its
/// sources. `lo` follows the sources: lo_t(p) = min(t, lo_{t-1}(q) over p's sources q), and no
/// start taints a pixel off the trail's interior (lo = infinity). It needs only the trail's
/// shift per frame, no pixels; each plane with its own tables (chroma at half size).
///
/// The pre-roll of a segment starting at frame A must begin before every pixel's lo at A: from
/// s = min lo - 1, D = A - s frames rendered and not written make frame A (and so every later
/// frame) exactly the single pass's.
public final class SnakeTaint {
    public enum PlaneKind: Sendable { case luma, chroma }

    /// One plane's lo per pixel (Int32.max: no start taints it), double-buffered, and its tables.
    private final class PlaneState {
        let width: Int, height: Int
        var lo: [Int32], next: [Int32]
        /// The front quad covers [frontX, frontX + frontWidth) x [frontY, ...): it never moves.
        var frontX = 0..<0, frontY = 0..<0
        var cols: SnakeSampling.AxisTable, rows: SnakeSampling.AxisTable
        init(width: Int, height: Int) {
            self.width = width; self.height = height
            lo = Array(repeating: .max, count: width * height); next = lo
            cols = SnakeSampling.AxisTable(count: width); rows = SnakeSampling.AxisTable(count: height)
        }
    }

    public let width: Int, height: Int
    public let parameters: SnakeParameters
    private let planes: [PlaneState]

    public init(width: Int, height: Int, parameters: SnakeParameters) {
        precondition(width > 0 && height > 0)
        self.width = width; self.height = height; self.parameters = parameters
        planes = [PlaneState(width: width, height: height), PlaneState(width: (width + 1) / 2, height: (height + 1) / 2)]
        for p in planes {
            let c = SnakeSampling.centre(plane: p.width, p.height, luma: width, height, dx: 0, dy: 0)
            SnakeSampling.tables(
                scale: parameters.frontScale, cx: c.x, cy: c.y, dw: p.width, dh: p.height, sw: p.width, sh: p.height,
                border: parameters.border, cols: &p.cols, rows: &p.rows)
            func covered(_ inside: [UInt8], _ n: Int) -> Range<Int> {
                guard let a = inside[0..<n].firstIndex(where: { $0 != 0 }), let b = inside[0..<n].lastIndex(where: { $0 != 0 }) else { return 0..<0 }
                return a..<(b + 1)  // a quad's pixels along an axis are contiguous
            }
            p.frontX = covered(p.cols.inside, p.width); p.frontY = covered(p.rows.inside, p.height)
        }
    }

    /// Starts a window at frame `first`: every pixel of the output before it (frame first - 1)
    /// is taken as tainted by any start up to first - 1 (what came before the window is not
    /// looked at).
    public func begin(at first: Int) {
        for p in planes { p.lo.withUnsafeMutableBufferPointer { $0.update(repeating: Int32(first - 1)) } }
    }

    /// Frame `frame`, drawn with the trail quad shifted by `shift` (luma pixels).
    public func render(frame: Int, shift: (dx: Double, dy: Double)) {
        for p in planes { step(p, frame: Int32(frame), shift: shift) }
    }

    private func step(_ p: PlaneState, frame t: Int32, shift: (dx: Double, dy: Double)) {
        let c = SnakeSampling.centre(plane: p.width, p.height, luma: width, height, dx: shift.dx, dy: shift.dy)
        SnakeSampling.tables(
            scale: parameters.trailScale, cx: c.x, cy: c.y, dw: p.width, dh: p.height, sw: p.width, sh: p.height,
            border: parameters.border, cols: &p.cols, rows: &p.rows)
        let w = p.width, maxX = w - 1, maxY = p.height - 1
        let frontX = p.frontX, frontY = p.frontY, rows = p.rows, cols = p.cols
        p.next.withUnsafeMutableBufferPointer { out in
            out.update(repeating: .max)
            p.lo.withUnsafeBufferPointer { lo in
                cols.inside.withUnsafeBufferPointer { inside in
                    cols.index.withUnsafeBufferPointer { index in
                        cols.frac.withUnsafeBufferPointer { frac in
                            for y in 0..<p.height where rows.inside[y] == 2 {
                                let y0 = Int(rows.index[y]), fy = Int(rows.frac[y])
                                let r0 = y0 * w, r1 = min(y0 + 1, maxY) * w, o = y * w
                                // A source row of weight 0 (fy 0: the next row; fy 256: this one) adds nothing.
                                let useRow0 = fy < 256, useRow1 = fy > 0
                                let rowInFront = frontY.contains(y)
                                for x in 0..<w where inside[x] == 2 && !(rowInFront && frontX.contains(x)) {
                                    let x0 = Int(index[x]), fx = Int(frac[x])
                                    let x1 = min(x0 + 1, maxX)
                                    var m = t
                                    if useRow0 {
                                        if fx < 256 { m = min(m, lo[r0 + x0]) }
                                        if fx > 0 { m = min(m, lo[r0 + x1]) }
                                    }
                                    if useRow1 {
                                        if fx < 256 { m = min(m, lo[r1 + x0]) }
                                        if fx > 0 { m = min(m, lo[r1 + x1]) }
                                    }
                                    out[o + x] = m
                                }
                            }
                        }
                    }
                }
            }
        }
        swap(&p.lo, &p.next)
    }

    /// The earliest start that still taints some pixel of the last frame rendered (nil: none
    /// does: that frame does not depend on the trail at all).
    public var earliestTaint: Int? {
        let m = planes.map { $0.lo.min() ?? .max }.min() ?? .max
        return m == .max ? nil : Int(m)
    }

    /// The earliest start that taints this pixel of the last frame rendered (nil: none).
    public func earliestTaint(_ plane: PlaneKind, x: Int, y: Int) -> Int? {
        let p = planes[plane == .luma ? 0 : 1]
        let m = p.lo[y * p.width + x]
        return m == .max ? nil : Int(m)
    }

    /// Pixels of the last frame rendered that a pre-roll from `start` leaves tainted, per plane.
    public func taintedCount(_ plane: PlaneKind, start: Int) -> Int {
        planes[plane == .luma ? 0 : 1].lo.reduce(0) { $0 + ($1 <= Int32(start) ? 1 : 0) }
    }
}

/// How many frames a segment render of the snake must render (and not write) before its first
/// frame so that the first frame, and so every later one, is the single pass's to the bit.
public enum SnakePreRoll {
    /// The fewest frames D before `start` (frames start - D ..< start) after which frame
    /// `start` no longer depends on the trail before them, given the trail's shift of every
    /// frame (`shift(k)`, k in 0...start, luma pixels). Windows of `firstWindow` frames,
    /// doubled while some pixel at `start` is still tainted from before the window; at frame 0
    /// it stops: a pre-roll from frame 0 is the single pass itself (D = start).
    public static func frames(
        before start: Int, width: Int, height: Int, parameters: SnakeParameters,
        firstWindow: Int = 16, shift: (Int) -> (dx: Double, dy: Double)
    ) -> Int {
        precondition(start >= 0 && firstWindow >= 1)
        let taint = SnakeTaint(width: width, height: height, parameters: parameters)
        var window = firstWindow
        while true {
            let first = start - window
            if first <= 0 { return start }
            taint.begin(at: first)
            for k in first...start { taint.render(frame: k, shift: shift(k)) }
            guard let lo = taint.earliestTaint else { return 0 }  // frame `start` ignores the trail
            if lo >= first { return start + 1 - lo }  // from lo - 1 nothing reaches `start`
            window *= 2
        }
    }
}
