/// Where the picture moves, for the matte's temporal filter (`KeyerVectors.smoothRow`), per block
/// of 16x16 luma pixels: a block moves when any of its pixels' luma changed by more than
/// `threshold` levels since the last frame, or a pixel's of a block within `reach` blocks did
/// (a square of 5x5 blocks: 32 to 47 pixels around).
///
/// Why (issue 44, eighth session): the filter's own gate is per pixel (its luma's change from 6
/// levels on). Inside a motion-blurred edge, and where a moving subject's luma is near the
/// screen's, a pixel's luma barely changes while its matte does; the filter then kept 0.6 of the
/// last frame's matte there and trailed the moving edge (the generated motion plate, 24 pixels
/// a frame, lost 0.2 dB in the edge band to it). A block that moves, or lies within two blocks
/// of one that does, is not filtered at all. A slow sub-pixel drift under camera noise (the real-edge
/// plates: 0.13 pixels a frame) changes no pixel's luma by 16 levels, so the filter holds the
/// matte still there as before.
final class MatteMotion {
    static let block = 16
    static let threshold: UInt8 = 16
    /// 2, not 1 (measured, eighth session): the motion plate 27.33 dB against 27.25, the real plates'
    /// numbers the same; 8 levels instead of 16 left the motion plate at the filter-off 27.36 and
    /// raised the real plates' flicker (flowers 0.05 levels); 12 levels: 27.30, flowers +0.007.
    static let reach = 2
    let columns: Int, rows: Int
    /// Per block: the largest luma change, then whether it moves (it or a block within `reach` over the threshold).
    private let change: UnsafeMutablePointer<UInt8>
    /// Per block column: the lane-wise largest change over the block row's rows so far, reduced
    /// to one number once a block row is done (one horizontal reduction a block, not a row).
    private let lanes: UnsafeMutablePointer<SIMD16<UInt8>>
    let moving: UnsafeMutablePointer<Bool>
    private let scratch = ScratchMemory()

    init(width: Int, height: Int) {
        columns = (width + Self.block - 1) / Self.block
        rows = (height + Self.block - 1) / Self.block
        change = scratch.buffer(count: columns * rows)
        lanes = scratch.buffer(count: columns, value: SIMD16<UInt8>())
        moving = scratch.buffer(count: columns * rows, value: false)
    }

    /// Measures which blocks of `luma` moved since `history` (the last frame's luma, `width`
    /// bytes a row).
    func measure(_ luma: Plane, history: UnsafePointer<UInt8>) {
        let w = luma.width, h = luma.height, b = Self.block
        for i in 0..<(columns * rows) { change[i] = 0 }
        let whole = w / b
        for i in 0..<whole { lanes[i] = SIMD16() }
        for y in 0..<h {
            let l = luma.row(y), hl = history + y * w, base = (y / b) * columns
            for c in 0..<whole {
                let p = UnsafeRawPointer(l + c * b).loadUnaligned(as: SIMD16<UInt8>.self)
                let q = UnsafeRawPointer(hl + c * b).loadUnaligned(as: SIMD16<UInt8>.self)
                // |p - q| without widening: the larger less the smaller.
                lanes[c] = pointwiseMax(lanes[c], pointwiseMax(p, q) &- pointwiseMin(p, q))
            }
            for x in (whole * b)..<w {
                let d = l[x] > hl[x] ? l[x] - hl[x] : hl[x] - l[x]
                if d > change[base + x / b] { change[base + x / b] = d }
            }
            if y % b == b - 1 || y == h - 1 {
                for c in 0..<whole {
                    change[base + c] = lanes[c].max()
                    lanes[c] = SIMD16()
                }
            }
        }
        for r in 0..<rows {
            for c in 0..<columns {
                var m = false
                for rr in max(r - Self.reach, 0)...min(r + Self.reach, rows - 1) {
                    for cc in max(c - Self.reach, 0)...min(c + Self.reach, columns - 1) where change[rr * columns + cc] > Self.threshold { m = true }
                }
                moving[r * columns + c] = m
            }
        }
    }
}
