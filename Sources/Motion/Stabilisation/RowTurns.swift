/// Per frame, the rotation taking a ray of the smoothed (output) camera into the real camera as
/// it was when each band of source rows was exposed: camera(t_row)^-1 * smoothed(t), as a 3x3
/// matrix every `bandRows` rows, linear between them. `Stabilisation.fillGrid`'s table: it
/// replaces three path look-ups (a binary search and a slerp each) per grid node with one per
/// band (a 1080-row frame: 271 look-ups for its 8,349 nodes), and the quaternion turns with
/// matrix products. Bands are 4 rows apart (0.1 ms of a 28 ms readout at 1080 rows): the
/// matrices' chord differs from the arc by (w dt)^2 / 8, under 1e-8 rad, and where the path
/// bends at a gyro reading the line between bands cuts the corner by about (change of rate) dt / 4
/// (a few thousandths of a pixel on a camera shaking at 200 degrees a second: `ZoomPlanTests`).
///
/// Allocated once (a stage's), filled per frame; not thread-safe: one per thread.
public final class RowTurns {
    public let rows: Int, bandRows: Int
    /// Bands + 1 matrices, three rows each.
    private let matrices: UnsafeMutablePointer<SIMD3<Double>>
    private let count: Int

    public init(rows: Int, bandRows: Int = 4) {
        precondition(rows >= 1 && bandRows >= 1)
        self.rows = rows; self.bandRows = bandRows
        count = (rows - 1 + bandRows - 1) / bandRows + 1
        matrices = .allocate(capacity: 3 * max(count, 2))
        matrices.initialize(repeating: .zero, count: 3 * max(count, 2))
    }

    deinit { matrices.deallocate() }

    /// The table for the frame at `t`, seen through `view` (the smoothed orientation at t).
    func fill(_ s: Stabilisation, frame t: Int64, view: Quaternion) {
        for b in 0..<count {
            let row = Double(min(b * bandRows, rows - 1))
            let tr = s.shutter.rowTime(frame: t, row: row, rows: s.height)
            let m = (s.camera.orientation(at: tr).conjugate * view).matrix
            matrices[3 * b] = m.0; matrices[3 * b + 1] = m.1; matrices[3 * b + 2] = m.2
        }
        if count == 1 { for k in 0..<3 { matrices[3 + k] = matrices[k] } }
    }

    /// `ray` turned by the table's rotation at source row `row` (clamped to the picture).
    @inline(__always) func turn(_ ray: SIMD3<Double>, row: Double) -> SIMD3<Double> {
        let last = Double(rows - 1)
        let r = row < 0 ? 0 : (row > last ? last : row)
        let position = r / Double(bandRows)
        let i = min(Int(position), max(count - 2, 0))
        let f = position - Double(i)
        let a = matrices + 3 * i, b = a + 3
        let m0 = a[0] + (b[0] - a[0]) * f, m1 = a[1] + (b[1] - a[1]) * f, m2 = a[2] + (b[2] - a[2]) * f
        return SIMD3((m0 * ray).sum(), (m1 * ray).sum(), (m2 * ray).sum())
    }
}
