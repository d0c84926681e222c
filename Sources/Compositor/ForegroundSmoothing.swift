/// The foreground's own colour held still in time where the matte is partial (issue 44, ninth
/// session): with `--matte-smoothing` k, a pixel whose matte is partial (6-254) in this frame and
/// the last keeps k of its last un-premultiplied colour F = (composite - (1 - alpha) x background)
/// / alpha, none where F moved (alpha x its change from 6 levels on, none from 16) or where its
/// block moved (`MatteMotion`); each chroma sample likewise with the mean alpha of its four pixels.
///
/// Why: screen subtraction passes the plate's own error (the codec's, at edges that move a
/// sub-pixel a frame) whole at a partial pixel, where a mix of plate and background scales it by
/// alpha. With the true alpha that error alone made the trolls' flicker 1.38 levels against 0.97
/// scaled by alpha (`.build-bench/s10/clean2.py`). The premultiplied foreground changes with the
/// drift (the sixth session filtered it and lagged the edge); the un-premultiplied colour hardly
/// does, the matte carrying the drift, so keeping a share of it removes the error's change and not
/// the edge's.
final class ForegroundSmoothing {
    /// The matte's partial range: from `partialFrom` to 254.
    static let partialFrom: UInt8 = 6
    /// The gate on alpha x the colour's change, in 8-bit levels: full keep up to `gateFrom`, none from `gateTo`.
    static let gateFrom: Float = 6, gateTo: Float = 16
    let width: Int, height: Int
    /// The last frame's un-premultiplied colour (meaningful where its matte was partial) and matte.
    private let lastY: UnsafeMutablePointer<Float>, lastU: UnsafeMutablePointer<Float>, lastV: UnsafeMutablePointer<Float>
    private let lastAlpha: UnsafeMutablePointer<UInt8>
    /// The background's two luma rows and chroma row when the composite is written over it (a
    /// layer keyed in place): `saveBackground`.
    private let savedY: UnsafeMutablePointer<UInt8>, savedU: UnsafeMutablePointer<UInt8>, savedV: UnsafeMutablePointer<UInt8>
    private let scratch = ScratchMemory()

    init(width: Int, height: Int) {
        self.width = width; self.height = height
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        lastY = scratch.buffer(count: width * height)
        lastU = scratch.buffer(count: cw * ch); lastV = scratch.buffer(count: cw * ch)
        lastAlpha = scratch.buffer(count: width * height)
        savedY = scratch.buffer(count: 2 * width); savedU = scratch.buffer(count: cw); savedV = scratch.buffer(count: cw)
    }

    /// Keeps background rows 2cy, 2cy + 1 and chroma row cy before a composite written over them.
    func saveBackground(_ cy: Int, _ bg: YUVImage) {
        let cw = (width + 1) / 2
        savedY.update(from: bg.y.row(2 * cy), count: width)
        if 2 * cy + 1 < height { (savedY + width).update(from: bg.y.row(2 * cy + 1), count: width) }
        savedU.update(from: bg.u.row(cy), count: cw); savedV.update(from: bg.v.row(cy), count: cw)
    }

    /// Filters composite rows 2cy, 2cy + 1 and chroma row cy of `out` (keyed with the matte rows
    /// `rows` over `bg`, or over the rows `saveBackground` kept when `saved`), keeping `keep`
    /// (0: the rows only become the history); `motion`: the blocks that moved, nil for none.
    func apply(
        _ cy: Int, alpha rows: MatteRows, background bg: YUVImage, saved: Bool, into out: YUVImage, keep: Float,
        motion: MatteMotion?
    ) {
        let w = width, cw = (w + 1) / 2
        let y0 = 2 * cy, y1 = min(2 * cy + 1, height - 1)
        let by0 = saved ? UnsafePointer(savedY) : UnsafePointer(bg.y.row(y0))
        let by1 = saved ? UnsafePointer(y1 == y0 ? savedY : savedY + w) : UnsafePointer(bg.y.row(y1))
        let bu = saved ? UnsafePointer(savedU) : UnsafePointer(bg.u.row(cy)), bv = saved ? UnsafePointer(savedV) : UnsafePointer(bg.v.row(cy))
        let a0 = rows.even, a1 = rows.odd, p0 = lastAlpha + y0 * w, p1 = lastAlpha + y1 * w
        let block = MatteMotion.block
        let moving = motion.map { UnsafePointer($0.moving + (y0 / block) * $0.columns) }
        let from = Int(Self.partialFrom)
        @inline(__always) func partial(_ a: UInt8) -> Bool { a >= Self.partialFrom && a < 255 }
        @inline(__always) func still(_ x: Int) -> Bool { keep > 0 && !(moving?[x / block] ?? false) }
        @inline(__always) func share(_ d: Float) -> Float { keep * (1 - min(max((d - Self.gateFrom) / (Self.gateTo - Self.gateFrom), 0), 1)) }
        func lumaRow(
            _ y: Int, _ a: UnsafePointer<UInt8>, _ p: UnsafePointer<UInt8>, _ q: UnsafePointer<UInt8>, _ start: Int, _ end: Int
        ) {
            let o = out.y.row(y)
            for x in start..<end where partial(a[x]) {
                let i = y * w + x
                let m = Float(a[x]) * (1 / 255), k = 1 - m
                let f = (Float(o[x]) - k * Float(q[x])) / m
                guard partial(p[x]) && still(x) else {
                    lastY[i] = f
                    continue
                }
                let kk = share(m * abs(f - lastY[i]))
                let n = f + kk * (lastY[i] - f)
                lastY[i] = n
                if kk > 0 { o[x] = clampByte(m * n + k * Float(q[x])) }
            }
        }
        var x = 0
        while x < w {
            let end = min(x + 16, w)
            // Sixteen columns of both rows all 0 or all 255: nothing partial, no history needed.
            if end - x == 16 && plain(a0 + x) && plain(a0 + x + 8) && plain(a1 + x) && plain(a1 + x + 8) {
                x = end
                continue
            }
            // Chroma first: it reads the last matte of both rows, which the luma then replaces.
            for cx in (x / 2)..<((end + 1) / 2) {
                let xa = 2 * cx, xb = min(2 * cx + 1, w - 1)
                let sum = Int(a0[xa]) + Int(a0[xb]) + Int(a1[xa]) + Int(a1[xb])
                guard sum >= 4 * from && sum < 1020 else { continue }
                let last = Int(p0[xa]) + Int(p0[xb]) + Int(p1[xa]) + Int(p1[xb])
                let i = cy * cw + cx
                let m = Float(sum) * (1 / 1020), k = 1 - m
                let ou = out.u.row(cy), ov = out.v.row(cy)
                let fu = (Float(ou[cx]) - k * Float(bu[cx])) / m, fv = (Float(ov[cx]) - k * Float(bv[cx])) / m
                guard last >= 4 * from && last < 1020 && still(xa) else {
                    lastU[i] = fu; lastV[i] = fv
                    continue
                }
                let kk = share(m * max(abs(fu - lastU[i]), abs(fv - lastV[i])))
                let nu = fu + kk * (lastU[i] - fu), nv = fv + kk * (lastV[i] - fv)
                lastU[i] = nu; lastV[i] = nv
                if kk > 0 {
                    ou[cx] = clampByte(m * nu + k * Float(bu[cx])); ov[cx] = clampByte(m * nv + k * Float(bv[cx]))
                }
            }
            lumaRow(y0, a0, p0, by0, x, end)
            if y1 != y0 { lumaRow(y1, a1, p1, by1, x, end) }
            x = end
        }
        p0.update(from: a0, count: w)
        if y1 != y0 { p1.update(from: a1, count: w) }
    }

    /// Eight matte bytes all 0 or all 255.
    @inline(__always) private func plain(_ p: UnsafePointer<UInt8>) -> Bool {
        let w = KeyerVectors.word(p)
        return w == 0 || w == ~0
    }
}
