/// The picture's shift at its centre between two frames, from the block flow: a robust least-
/// squares fit of a shift t and a turn theta in the picture's plane, each block's displacement
/// d = t + theta (-y, x) with (x, y) its centre from the picture's centre, reweighted as
/// `PictureRotation.fit` does (Tukey's biweight) so that what moves by itself stops counting.
///
/// Why calibrate matches the gyro against this rather than the whole picture's phase
/// correlation, which is sharper on a plain pan (FrameMotionTests: within 0.1 px of the truth,
/// where single blocks on flat areas are off by up to 0.6 px): under a roll the whole picture's
/// shift follows the gyro's pan and tilt less closely. On the jitter camera of
/// scripts/fixtures/make-synthetic-camera-2 (60 s of handheld roll) calibrate's error went from 1.06 ms to
/// 0.55 ms; over its thirteen variants the worst from 1.06 to 0.68 ms, the mean from 0.23 to
/// 0.28 ms (docs/calibrate.md). Not the texture's centroid: correcting the whole picture's shift
/// by the turn times the blocks' weighted centre changed nothing there. No zoom term: with one,
/// the ground's flow under a walking camera (the shared GoPro MAX clip) pulls the centre's shift
/// and its picture no longer follows its recorded orientation.
public enum CentreShift {
    /// The shift (displayed pixels) over interval `k` of `flow`; nil with fewer than 4 blocks
    /// that matched or fewer than 3 that agree.
    public static func fit(_ flow: BlockFlow, interval k: Int) -> (dx: Double, dy: Double)? {
        let n = flow.blocks, base = k * n
        var x: [Double] = [], y: [Double] = [], dx: [Double] = [], dy: [Double] = [], w0: [Double] = []
        for i in 0..<n where flow.weight[base + i] >= PictureRotation.minimumPeak {
            x.append(flow.centreX[i]); y.append(flow.centreY[i])
            dx.append(Double(flow.dx[base + i])); dy.append(Double(flow.dy[base + i]))
            w0.append(Double(flow.weight[base + i]))
        }
        guard x.count >= 4 else { return nil }
        var w = w0
        var p = [0.0, 0.0, 0.0]
        var residuals = [Double](repeating: 0, count: x.count)
        for iteration in 0..<6 {
            // Normal equations over the rows (1, 0, -y) . p = dx and (0, 1, x) . p = dy.
            var m = [[Double]](repeating: [0, 0, 0], count: 3), b = [0.0, 0.0, 0.0]
            for j in x.indices where w[j] > 0 {
                let (xj, yj, wj) = (x[j], y[j], w[j])
                m[0][0] += wj; m[1][1] += wj
                m[0][2] -= wj * yj; m[1][2] += wj * xj
                m[2][2] += wj * (xj * xj + yj * yj)
                b[0] += wj * dx[j]; b[1] += wj * dy[j]; b[2] += wj * (xj * dy[j] - yj * dx[j])
            }
            m[2][0] = m[0][2]; m[2][1] = m[1][2]
            guard let s = PictureRotation.solve3(m, b) else { return nil }
            p = s
            for j in x.indices {
                let ex = dx[j] - (p[0] - p[2] * y[j]), ey = dy[j] - (p[1] + p[2] * x[j])
                residuals[j] = (ex * ex + ey * ey).squareRoot()
            }
            guard iteration < 5 else { break }
            // The same scale as PictureRotation.fit: 4.685 robust sigmas, at least 0.15 px.
            let sorted = residuals.sorted()
            let c = 4.685 * max(0.15, sorted[sorted.count / 2] / 0.6745)
            for j in x.indices {
                let t = residuals[j] / c
                w[j] = t < 1 ? w0[j] * (1 - t * t) * (1 - t * t) : 0
            }
        }
        guard x.indices.filter({ w[$0] > 0.1 * w0[$0] }).count >= 3 else { return nil }
        return (p[0], p[1])
    }
}
