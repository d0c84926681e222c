import CVectors

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
    /// Per block: the largest luma change.
    let change: UnsafeMutablePointer<UInt8>
    /// Per block column, sixteen bytes: the lane-wise largest change over the block row's rows
    /// so far, reduced to one number once a block row is done (one horizontal reduction a block,
    /// not a row).
    private let lanes: UnsafeMutablePointer<UInt8>
    let moving: UnsafeMutablePointer<Bool>
    /// Per block row: its runs of blocks that all move or all stand still, as the block column
    /// where each ends (`runEnds`, from r x columns on), and how many (`runCounts`): what the
    /// filter walks on every one of the row's sixteen luma rows (`Keyer.smoothRows`).
    let runEnds: UnsafeMutablePointer<Int32>, runCounts: UnsafeMutablePointer<Int32>
    private let scratch = ScratchMemory()

    init(width: Int, height: Int) {
        columns = (width + Self.block - 1) / Self.block
        rows = (height + Self.block - 1) / Self.block
        change = scratch.buffer(count: columns * rows)
        lanes = scratch.buffer(count: 16 * columns)
        moving = scratch.buffer(count: columns * rows, value: false)
        // Before a frame is measured nothing moves: each row one run.
        runEnds = scratch.buffer(count: columns * rows, value: Int32(columns))
        runCounts = scratch.buffer(count: rows, value: 1)
    }

    /// Measures which blocks of `luma` moved since `history` (the last frame's luma, `width`
    /// bytes a row). `avx2`: the whole blocks in C (`cvec_motion_blocks_avx2`, MatteMotion.h);
    /// tests pass false to compare the lanes.
    func measure(_ luma: Plane, history: UnsafePointer<UInt8>, avx2: Bool = KeyerVectors.avx2) {
        let w = luma.width, h = luma.height, b = Self.block
        let whole = w / b
        for r in 0..<rows {
            let top = r * b, count = min(b, h - top), base = r * columns
            if avx2 {
                cvec_motion_blocks_avx2(
                    luma.row(top), luma.stride, history + top * w, w, Int32(count), Int32(whole), lanes, change + base)
            } else {
                let lanes = UnsafeMutableRawPointer(self.lanes)
                for c in 0..<whole { lanes.storeBytes(of: SIMD16(), toByteOffset: 16 * c, as: SIMD16<UInt8>.self) }
                for y in top..<(top + count) {
                    let l = luma.row(y), hl = history + y * w
                    for c in 0..<whole {
                        let p = UnsafeRawPointer(l + c * b).loadUnaligned(as: SIMD16<UInt8>.self)
                        let q = UnsafeRawPointer(hl + c * b).loadUnaligned(as: SIMD16<UInt8>.self)
                        let lane = lanes.loadUnaligned(fromByteOffset: 16 * c, as: SIMD16<UInt8>.self)
                        // |p - q| without widening: the larger less the smaller.
                        lanes.storeBytes(of: pointwiseMax(lane, pointwiseMax(p, q) &- pointwiseMin(p, q)), toByteOffset: 16 * c, as: SIMD16<UInt8>.self)
                    }
                }
                for c in 0..<whole { change[base + c] = lanes.loadUnaligned(fromByteOffset: 16 * c, as: SIMD16<UInt8>.self).max() }
            }
            // A partial last block column, pixel by pixel.
            if whole < columns {
                var d: UInt8 = 0
                for y in top..<(top + count) {
                    let l = luma.row(y), hl = history + y * w
                    for x in (whole * b)..<w { d = max(d, l[x] > hl[x] ? l[x] - hl[x] : hl[x] - l[x]) }
                }
                change[base + whole] = d
            }
        }
        moving.update(repeating: false, count: columns * rows)
        markMoving(change, columns: columns, rows: rows)
    }

    /// The 5x5 square of blocks: each block of `change` (`columns` x `rows` blocks, this grid's
    /// or `ChromaMotion`'s, which may lack the last column of an odd width) over the threshold
    /// marks those within `reach` of it (most blocks of most frames are not over it: no work there).
    func markMoving(_ change: UnsafePointer<UInt8>, columns changeColumns: Int, rows changeRows: Int) {
        for r in 0..<changeRows {
            for c in 0..<changeColumns where change[r * changeColumns + c] > Self.threshold {
                for rr in max(r - Self.reach, 0)..<min(r + Self.reach + 1, rows) {
                    for cc in max(c - Self.reach, 0)..<min(c + Self.reach + 1, columns) { moving[rr * columns + cc] = true }
                }
            }
        }
    }

    /// The runs of each block row (`runEnds`, `runCounts`) from `moving` as it stands: after
    /// `measure` and after anything else that marks blocks (`ChromaMotion.mark`), before the filter
    /// walks them.
    func findRuns() {
        for r in 0..<rows {
            var runs: Int32 = 0
            // A run ends where the next block differs.
            for c in 1..<max(columns, 1) where moving[r * columns + c] != moving[r * columns + c - 1] {
                runEnds[r * columns + Int(runs)] = Int32(c)
                runs += 1
            }
            runEnds[r * columns + Int(runs)] = Int32(columns)
            runCounts[r] = runs + 1
        }
    }
}
