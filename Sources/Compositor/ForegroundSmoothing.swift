import CVectors

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
///
/// Cost (tenth session): the whole blocks of sixteen columns run in C (ForegroundSmoothing.h says
/// why: the colour history is read one cache line a partial pixel); the last frame's matte is the
/// keyer's, not a copy kept here.
final class ForegroundSmoothing {
    /// The matte's partial range: from `partialFrom` to 254.
    static let partialFrom: UInt8 = 6
    /// The gate on alpha x the colour's change, in 8-bit levels: full keep up to `gateFrom`, none from `gateTo`.
    static let gateFrom: Float = 6, gateTo: Float = 16
    let width: Int, height: Int
    /// The last frame's un-premultiplied colour (meaningful where its matte was partial). The last
    /// frame's matte is the keyer's (`apply`'s `last`): the filter's history holds it.
    private let lastY: UnsafeMutablePointer<Float>, lastU: UnsafeMutablePointer<Float>, lastV: UnsafeMutablePointer<Float>
    /// The background's two luma rows and chroma row when the composite is written over it (a
    /// layer keyed in place): `saveBackground`.
    private let savedY: UnsafeMutablePointer<UInt8>, savedU: UnsafeMutablePointer<UInt8>, savedV: UnsafeMutablePointer<UInt8>
    private let scratch = ScratchMemory()

    init(width: Int, height: Int) {
        self.width = width; self.height = height
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        lastY = scratch.buffer(count: width * height)
        lastU = scratch.buffer(count: cw * ch); lastV = scratch.buffer(count: cw * ch)
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
    /// `rows` over `bg`, or over the rows `saveBackground` kept when `saved`; `last`: the same
    /// rows of the last frame's matte), keeping `keep` (0: the rows only become the history);
    /// `motion`: the blocks that moved, nil for none. `avx2`: the whole blocks of sixteen columns
    /// in C (`cvec_foreground_rows_avx2`, ForegroundSmoothing.h); tests pass false to compare.
    func apply(
        _ cy: Int, alpha rows: MatteRows, last: MatteRows, background bg: YUVImage, saved: Bool, into out: YUVImage, keep: Float,
        motion: MatteMotion?, avx2: Bool = KeyerVectors.avx2
    ) {
        let w = width, cw = (w + 1) / 2
        let y0 = 2 * cy, y1 = min(2 * cy + 1, height - 1)
        let by0 = saved ? UnsafePointer(savedY) : UnsafePointer(bg.y.row(y0))
        let by1 = saved ? UnsafePointer(y1 == y0 ? savedY : savedY + w) : UnsafePointer(bg.y.row(y1))
        let bu = saved ? UnsafePointer(savedU) : UnsafePointer(bg.u.row(cy)), bv = saved ? UnsafePointer(savedV) : UnsafePointer(bg.v.row(cy))
        let a0 = rows.even, a1 = rows.odd, p0 = UnsafePointer(last.even), p1 = UnsafePointer(last.odd)
        let block = MatteMotion.block
        let moving = motion.map { UnsafePointer($0.moving + (y0 / block) * $0.columns) }
        var x = 0
        if avx2 {
            func history(_ cy: Int) -> cvec_foreground_rows {
                let y0 = 2 * cy, y1 = min(2 * cy + 1, height - 1)
                return cvec_foreground_rows(
                    a0: a0, a1: a1, p0: p0, p1: p1, by0: by0, by1: by1, bu: bu, bv: bv, o0: out.y.row(y0), o1: out.y.row(y1),
                    ou: out.u.row(cy), ov: out.v.row(cy), y0: lastY + y0 * w, y1: lastY + y1 * w, u: lastU + cy * cw, v: lastV + cy * cw)
            }
            let here = history(cy), next = 2 * cy + 2 < height ? history(cy + 1) : nil
            func blocks(_ moving: UnsafePointer<UInt8>?) -> Int32 {
                withUnsafePointer(to: here) { r in
                    func run(_ n: UnsafePointer<cvec_foreground_rows>?) -> Int32 {
                        cvec_foreground_rows_avx2(
                            r, n, moving, Int32(w), y1 != y0 ? 1 : 0, keep, Self.gateFrom, Self.gateTo, Int32(Self.partialFrom))
                    }
                    guard let next else { return run(nil) }
                    return withUnsafePointer(to: next) { run($0) }
                }
            }
            if let moving, let columns = motion?.columns {
                x = Int(moving.withMemoryRebound(to: UInt8.self, capacity: columns) { blocks($0) })
            } else {
                x = Int(blocks(nil))
            }
        }
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
        while x < w {
            let end = min(x + 16, w)
            // Sixteen columns of both rows all 0 or all 255: nothing partial, no history needed.
            if end - x == 16 && plain(a0 + x) && plain(a0 + x + 8) && plain(a1 + x) && plain(a1 + x + 8) {
                x = end
                continue
            }
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
    }

    /// Eight matte bytes all 0 or all 255.
    @inline(__always) private func plain(_ p: UnsafePointer<UInt8>) -> Bool {
        let w = KeyerVectors.word(p)
        return w == 0 || w == ~0
    }
}
