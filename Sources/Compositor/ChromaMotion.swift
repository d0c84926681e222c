import CVectors

/// Where the picture's colour moves, for the matte's temporal filters (`MatteMotion` is the luma's):
/// a block of 16x16 luma pixels (8x8 chroma samples) moves when a sample's U or V changed by more
/// than `MatteMotion.threshold` levels since the last frame, and so does every block within
/// `MatteMotion.reach` of it.
///
/// Why (issue 44, ninth session): a subject moving over the screen at about the screen's luma
/// changes the chroma by up to 89 levels where the luma changes by less than 16 (the generated
/// motion plate: 3.2% of its blocks a frame), and there the filters trailed the edge. The real-edge
/// plates' sub-pixel drift changes no sample by more than 13 levels (`.build-bench/s10/cblocks.py`).
final class ChromaMotion {
    let width: Int, height: Int
    /// The last frame's chroma planes (`width` x `height` samples).
    private let lastU: UnsafeMutablePointer<UInt8>, lastV: UnsafeMutablePointer<UInt8>
    /// Per sixteen samples of a row: the lane-wise largest change over the block row's rows so far.
    private let lanes: UnsafeMutablePointer<SIMD16<UInt8>>
    /// Per block: the largest change.
    private let change: UnsafeMutablePointer<UInt8>
    private let columns: Int, rows: Int
    private let scratch = ScratchMemory()

    /// `width`, `height`: the chroma planes'.
    init(width: Int, height: Int) {
        self.width = width; self.height = height
        columns = (width + 7) / 8; rows = (height + 7) / 8
        lastU = scratch.buffer(count: width * height); lastV = scratch.buffer(count: width * height)
        lanes = scratch.buffer(count: width / 16 + 1, value: SIMD16<UInt8>())
        change = scratch.buffer(count: columns * rows)
    }

    /// Marks in `motion` the blocks that moved by this measure (with `measure`; the first frame
    /// has nothing to measure against), then keeps `image`'s chroma as the last frame's. `avx2`:
    /// each row's whole chunks in C (`cvec_chroma_motion_row_avx2`, MatteMotion.h); tests pass
    /// false to compare.
    func mark(_ image: YUVImage, into motion: MatteMotion, measure: Bool, avx2: Bool = KeyerVectors.avx2) {
        let w = width, h = height
        if measure {
            for i in 0..<(columns * rows) { change[i] = 0 }
            let chunks = w / 16
            for y in 0..<h {
                let u = image.u.row(y), v = image.v.row(y), lu = lastU + y * w, lv = lastV + y * w, base = (y / 8) * columns
                if avx2 {
                    lanes.withMemoryRebound(to: UInt8.self, capacity: 16 * chunks) { cvec_chroma_motion_row_avx2(u, v, lu, lv, Int32(chunks), $0) }
                } else {
                    for c in 0..<chunks {
                        // The change from the last frame's sample, which then becomes this one (one pass:
                        // the chroma is read once).
                        @inline(__always) func d(_ p: UnsafePointer<UInt8>, _ q: UnsafeMutablePointer<UInt8>) -> SIMD16<UInt8> {
                            let a = UnsafeRawPointer(p + 16 * c).loadUnaligned(as: SIMD16<UInt8>.self)
                            let b = UnsafeRawPointer(q + 16 * c).loadUnaligned(as: SIMD16<UInt8>.self)
                            UnsafeMutableRawPointer(q + 16 * c).storeBytes(of: a, as: SIMD16<UInt8>.self)
                            return pointwiseMax(a, b) &- pointwiseMin(a, b)
                        }
                        lanes[c] = pointwiseMax(lanes[c], pointwiseMax(d(u, lu), d(v, lv)))
                    }
                }
                for x in (chunks * 16)..<w {
                    let du = u[x] > lu[x] ? u[x] - lu[x] : lu[x] - u[x], dv = v[x] > lv[x] ? v[x] - lv[x] : lv[x] - v[x]
                    change[base + x / 8] = max(change[base + x / 8], du, dv)
                    lu[x] = u[x]; lv[x] = v[x]
                }
                if y % 8 == 7 || y == h - 1 {
                    for c in 0..<chunks {
                        let l = lanes[c]
                        change[base + 2 * c] = max(change[base + 2 * c], l.lowHalf.max())
                        change[base + 2 * c + 1] = max(change[base + 2 * c + 1], l.highHalf.max())
                        lanes[c] = SIMD16()
                    }
                }
            }
            // Chroma block (c, r) is luma block (c, r); `motion` may have a column more (an odd width).
            motion.markMoving(change, columns: columns, rows: rows)
        }
        // Measured, the rows became the last frame's as they were read.
        guard !measure else { return }
        for y in 0..<h {
            (lastU + y * w).update(from: image.u.row(y), count: w)
            (lastV + y * w).update(from: image.v.row(y), count: w)
        }
    }
}
