import CVectors

/// An inverse map from an output picture to a source picture of the same size, on a coarse
/// grid, and the bilinear warp it drives (the stabiliser's, `lockstep stabilise`). The caller
/// fills `grid` for each frame: node (i, j) is output pixel (min(i * cell, width - 1),
/// min(j * cell, height - 1)), holding the source (x, y) it shows, in luma pixels; between nodes
/// the map is interpolated bilinearly (a rotation's map bends slowly: at 16 pixels a cell the
/// interpolation is within a few hundredths of a pixel of the exact map), so the exact map, a
/// lens and a rotation per node, is computed for one pixel in 256.
///
/// Everything is allocated when the map is made; `warp` allocates nothing. Not thread-safe: one
/// map per thread.
public final class WarpMap {
    public let width: Int, height: Int, cell: Int
    public let columns: Int, rows: Int
    /// 2 * columns * rows floats: (x, y) per node, row by row.
    public let grid: UnsafeMutablePointer<Float>
    private let memory = ScratchMemory()
    /// Per plane (luma, chroma): for each output column, its grid column and fraction.
    private let lumaColumn: UnsafeMutablePointer<Int32>, lumaFraction: UnsafeMutablePointer<Float>
    private let chromaColumn: UnsafeMutablePointer<Int32>, chromaFraction: UnsafeMutablePointer<Float>
    /// One output row's nodes, interpolated between two grid rows.
    private let rowNodes: UnsafeMutablePointer<Float>

    public init(width: Int, height: Int, cell: Int = 16) {
        precondition(width >= 2 && height >= 2 && cell >= 1)
        self.width = width; self.height = height; self.cell = cell
        columns = (width - 1 + cell - 1) / cell + 1
        rows = (height - 1 + cell - 1) / cell + 1
        grid = memory.buffer(Float.self, count: 2 * columns * rows)
        let cw = (width + 1) / 2
        lumaColumn = memory.buffer(Int32.self, count: width); lumaFraction = memory.buffer(Float.self, count: width)
        chromaColumn = memory.buffer(Int32.self, count: cw); chromaFraction = memory.buffer(Float.self, count: cw)
        rowNodes = memory.buffer(Float.self, count: 2 * columns)
        for x in 0..<width { (lumaColumn[x], lumaFraction[x]) = Self.place(Double(x), cell: cell, nodes: columns, last: width - 1) }
        // A chroma sample's centre sits between its two luma columns (4:2:0, left-sited or centred
        // alike to within a quarter pixel): luma x = 2 xc + 0.5.
        for x in 0..<cw { (chromaColumn[x], chromaFraction[x]) = Self.place(2 * Double(x) + 0.5, cell: cell, nodes: columns, last: width - 1) }
    }

    /// The grid interval holding output coordinate `v` and the fraction across it.
    static func place(_ v: Double, cell: Int, nodes: Int, last: Int) -> (Int32, Float) {
        let i = min(max(0, Int(v) / cell), nodes - 2)
        let a = Double(min(i * cell, last)), b = Double(min((i + 1) * cell, last))
        // Past the last node (the last chroma sample of an odd size sits half a pixel beyond the
        // last luma pixel): extrapolated.
        let f = b > a ? max((v - a) / (b - a), 0) : 0
        return (Int32(i), Float(f))
    }

    /// The grid's nodes for output row `v` (luma units), each source coordinate times `scale`
    /// plus `offset`, into `rowNodes`.
    private func interpolateRow(_ v: Double, scale: Float, offset: Float) {
        let (j, f) = Self.place(v, cell: cell, nodes: rows, last: height - 1)
        let a = grid + 2 * Int(j) * columns, b = a + 2 * columns
        for k in 0..<(2 * columns) { rowNodes[k] = (a[k] + (b[k] - a[k]) * f) * scale + offset }
    }

    /// For each output row of the luma plane, then of the chroma planes (`chromaRows` of them),
    /// the row's sampling positions, handed to `luma` or `chroma` with the row's number: the
    /// walk both bit depths share. Chroma sample (x, y) sits at luma (2x + 0.5, 2y + 0.5); its
    /// source in chroma units is (luma source + 0.5) / 2 - 0.5. Both chroma planes share a row's
    /// positions (interpolated once).
    private func eachRow(chromaRows: Int, luma: (Int, cvec_warp_row) -> Void, chroma: (Int, cvec_warp_row) -> Void) {
        for y in 0..<height {
            interpolateRow(Double(y), scale: 1, offset: 0)
            luma(y, cvec_warp_row(col: lumaColumn, frac: lumaFraction, nodes: rowNodes))
        }
        for y in 0..<chromaRows {
            interpolateRow(2 * Double(y) + 0.5, scale: 0.5, offset: -0.25)
            chroma(y, cvec_warp_row(col: chromaColumn, frac: chromaFraction, nodes: rowNodes))
        }
    }

    /// `src` warped through the grid into `dst` (both `width` x `height`, 4:2:0).
    public func warp(_ src: YUVImage, into dst: YUVImage) {
        precondition(src.width == width && src.height == height && dst.width == width && dst.height == height)
        func sample(_ s: Plane, _ d: Plane, _ y: Int, _ row: cvec_warp_row) {
            cvec_warp_row_u8(s.base, s.stride, Int32(s.width), Int32(s.height), row, d.row(y), Int32(d.width))
        }
        eachRow(
            chromaRows: dst.u.height, luma: { sample(src.y, dst.y, $0, $1) },
            chroma: { y, row in
                sample(src.u, dst.u, y, row)
                sample(src.v, dst.v, y, row)
            })
    }

    /// The same for 10-bit pictures (`YUV16Image`, the HDR working signal).
    public func warp(_ src: YUV16Image, into dst: YUV16Image) {
        precondition(src.width == width && src.height == height && dst.width == width && dst.height == height)
        func sample(_ s: Plane16, _ d: Plane16, _ y: Int, _ row: cvec_warp_row) {
            cvec_warp_row_u16(s.base, s.stride, Int32(s.width), Int32(s.height), row, d.row(y), Int32(d.width))
        }
        eachRow(
            chromaRows: dst.u.height, luma: { sample(src.y, dst.y, $0, $1) },
            chroma: { y, row in
                sample(src.u, dst.u, y, row)
                sample(src.v, dst.v, y, row)
            })
    }

    /// Fills the grid with the identity map (each node its own position): a warp that copies.
    public func setIdentity() {
        for j in 0..<rows {
            for i in 0..<columns {
                grid[2 * (j * columns + i)] = Float(min(i * cell, width - 1))
                grid[2 * (j * columns + i) + 1] = Float(min(j * cell, height - 1))
            }
        }
    }
}
