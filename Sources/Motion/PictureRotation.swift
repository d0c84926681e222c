import RealModule

/// How regions of the picture moved between consecutive frames: a grid of blocks over the whole
/// picture, each with its displacement (displayed pixels) and how well it matched (the phase
/// correlation's peak height, about 1 for a clean match, near 0 for none: sky, blur, a cut).
/// One row of `blocks` values per frame interval, in the order of the shifts.
public struct BlockFlow: Sendable, Equatable {
    /// Each block's centre, displayed pixels from the picture's centre (x right, y down).
    public var centreX: [Double], centreY: [Double]
    public var dx: [Float], dy: [Float], weight: [Float]
    /// Per interval and block (the same order): how far below its centre (displayed pixels)
    /// the block's match sits: the rows whose texture the correlation matched on (a block with
    /// sky in its top half is matched on its lower half), midway between the two pictures'
    /// blocks (the second one looked for where the global shift says, but held inside the
    /// picture, so an edge block sees only what stayed in view). `ReadoutSearch` times each
    /// region by this row, not its centre: a rolling shutter's lag follows the rows matched.
    public var rowOffset: [Float]
    /// The displayed picture's width (the lens search's field-of-view bounds).
    public var width: Int

    public init(centreX: [Double], centreY: [Double], width: Int) {
        self.centreX = centreX; self.centreY = centreY; self.width = width
        dx = []; dy = []; weight = []; rowOffset = []
    }

    public var blocks: Int { centreX.count }
    public var intervals: Int { blocks == 0 ? 0 : dx.count / blocks }

    /// One interval's blocks; `rowOffset` nil: every match at its block's centre.
    public mutating func append(dx ddx: [Float], dy ddy: [Float], weight w: [Float], rowOffset rows: [Float]? = nil) {
        precondition(ddx.count == blocks && ddy.count == blocks && w.count == blocks && (rows?.count ?? blocks) == blocks)
        dx += ddx; dy += ddy; weight += w
        if let rows { rowOffset += rows } else { rowOffset += repeatElement(0, count: blocks) }
    }
}

/// The camera's rotation between two frames from the block flow: each block's centre and its
/// end point become rays through the lens model; a small rotation w of the camera turns a fixed
/// world direction u (camera axes) into u + u x w in the new frame, so w follows by least
/// squares over the blocks, reweighted (Tukey's biweight, a scale from the median residual) so
/// that what does not move with the camera (a person walking through, a near object's
/// parallax, a flat sky's guess) stops counting. Roll about the optical axis turns a radially
/// symmetric picture rigidly about its centre whatever the lens, so the roll it gives needs no
/// lens known; pan and tilt scale with the focal length.
public enum PictureRotation {
    public struct Fit: Equatable, Sendable {
        /// The camera's turn over the interval about x, y, z (radians).
        public var omega: SIMD3<Double>
        /// Blocks that agree with it (weight above a tenth of their match's).
        public var inliers: Int
        /// Their weighted RMS misfit, displayed pixels.
        public var residualPx: Double
    }

    /// Blocks matched this weakly (peak height) are left out.
    public static let minimumPeak: Float = 0.05

    /// The rotation over interval `k` of `flow` under `lens`; nil with fewer than 4 usable blocks.
    public static func fit(_ flow: BlockFlow, interval k: Int, lens: LensModel, rays: [SIMD3<Double>]? = nil) -> Fit? {
        let n = flow.blocks, base = k * n
        let f = lens.focalLengthPx
        var u: [SIMD3<Double>] = [], r: [SIMD3<Double>] = [], w0: [Double] = []
        u.reserveCapacity(n); r.reserveCapacity(n); w0.reserveCapacity(n)
        for i in 0..<n {
            let wt = flow.weight[base + i]
            guard wt >= minimumPeak else { continue }
            let a = rays?[i] ?? lens.ray(x: flow.centreX[i], y: flow.centreY[i])
            let b = lens.ray(x: flow.centreX[i] + Double(flow.dx[base + i]), y: flow.centreY[i] + Double(flow.dy[base + i]))
            u.append(a); r.append(b - a); w0.append(Double(wt))
        }
        guard u.count >= 4 else { return nil }
        var w = w0
        var omega = SIMD3<Double>(0, 0, 0)
        var residuals = [Double](repeating: 0, count: u.count)
        for iteration in 0..<6 {
            // Normal equations of sum w |r - [u]x w|^2, [u]x the cross-product matrix (u x w).
            var m = [[Double]](repeating: [0, 0, 0], count: 3), b = [0.0, 0.0, 0.0]
            for j in u.indices where w[j] > 0 {
                let c = crossMatrix(u[j])
                for p in 0..<3 {
                    b[p] += w[j] * (c[0][p] * r[j].x + c[1][p] * r[j].y + c[2][p] * r[j].z)
                    for q in 0..<3 { m[p][q] += w[j] * (c[0][p] * c[0][q] + c[1][p] * c[1][q] + c[2][p] * c[2][q]) }
                }
            }
            guard let s = solve3(m, b) else { return nil }
            omega = SIMD3(s[0], s[1], s[2])
            for j in u.indices { residuals[j] = ((r[j] - u[j].cross(omega)) * f).length }
            guard iteration < 5 else { break }
            // Tukey's biweight at 4.685 robust sigmas (the median absolute residual / 0.6745),
            // the scale held to at least 0.15 px (sub-pixel noise must not make every block an outlier).
            let sorted = residuals.sorted()
            let sigma = max(0.15, sorted[sorted.count / 2] / 0.6745)
            let c = 4.685 * sigma
            for j in u.indices {
                let t = residuals[j] / c
                w[j] = t < 1 ? w0[j] * (1 - t * t) * (1 - t * t) : 0
            }
        }
        var inliers = 0, sw = 0.0, se = 0.0
        for j in u.indices where w[j] > 0.1 * w0[j] { inliers += 1; sw += w[j]; se += w[j] * residuals[j] * residuals[j] }
        guard inliers >= 3 else { return nil }
        return Fit(omega: omega, inliers: inliers, residualPx: (se / max(sw, 1e-12)).squareRoot())
    }

    /// The roll (radians) of every interval under a nominal lens (a 90 degree field of view:
    /// the roll does not depend on it), 0 where too few blocks matched.
    public static func rolls(_ flow: BlockFlow) -> [Double] {
        let lens = LensModel(focalLengthPx: Double(flow.width) / 2, k1: 0)
        let rays = (0..<flow.blocks).map { lens.ray(x: flow.centreX[$0], y: flow.centreY[$0]) }
        return (0..<flow.intervals).map { fit(flow, interval: $0, lens: lens, rays: rays)?.omega.z ?? 0 }
    }

    static func crossMatrix(_ u: SIMD3<Double>) -> [[Double]] {
        // u x w = C w.
        [[0, -u.z, u.y], [u.z, 0, -u.x], [-u.y, u.x, 0]]
    }

    /// Solves the 3x3 system m x = b (Cramer's rule); nil when it is singular.
    static func solve3(_ m: [[Double]], _ b: [Double]) -> [Double]? {
        func det(_ a: [[Double]]) -> Double {
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        }
        let d = det(m)
        let scale = m.flatMap { $0 }.map(abs).max() ?? 0
        guard abs(d) > 1e-18 * max(1e-300, scale * scale * scale) else { return nil }
        return (0..<3).map { c in
            var a = m
            for row in 0..<3 { a[row][c] = b[row] }
            return det(a) / d
        }
    }
}

/// The lens that makes the blocks' motion follow the gyro's rotation best: with the clock and
/// the axis mapping found, each interval's rotation is known in camera axes; every block's
/// centre is turned by it through a candidate lens (ray, rotation, back to pixels) and compared
/// with where the block went. The cost is robust (Cauchy, at a scale of 0.2% of the width),
/// so blocks on things that move by themselves or with parallax do not pull the lens.
/// A focal length on a grid of fields of view from 20 to 180 degrees, a distortion term k1 on a
/// grid from -0.15 to 0.5, then each refined by golden section.
public enum LensSearch {
    public struct Result: Equatable, Sendable {
        public var lens: LensModel
        /// The robust cost per block at the answer, as the misfit (displayed pixels) that
        /// would cost as much.
        public var misfitPx: Double
        /// The frame intervals compared.
        public var intervalsUsed: Int
    }

    /// `rotations[k]`: the camera's rotation over interval k (camera axes, radians), nil where
    /// the gyro does not cover it. At most `maxIntervals` of those that turn most are used.
    public static func search(_ flow: BlockFlow, rotations: [SIMD3<Double>?], maxIntervals: Int = 240) -> Result? {
        let n = flow.blocks
        guard n >= 4, flow.width > 0 else { return nil }
        var chosen = rotations.indices.filter { $0 < flow.intervals && rotations[$0] != nil }
        chosen.sort { rotations[$0]!.length > rotations[$1]!.length }
        chosen = Array(chosen.prefix(maxIntervals)).filter { rotations[$0]!.length > 1e-4 }
        guard chosen.count >= 8 else { return nil }
        // Rotation matrices turning a world direction's old camera coordinates into the new:
        // R^T u, R the camera's turn (Rodrigues).
        let turns = chosen.map { matrix(-rotations[$0]!) }
        let half = Double(flow.width) / 2
        let scale = 0.002 * Double(flow.width)
        func cost(_ lens: LensModel) -> Double {
            let rays = (0..<n).map { lens.ray(x: flow.centreX[$0], y: flow.centreY[$0]) }
            var total = 0.0, weights = 0.0
            for (j, k) in chosen.enumerated() {
                let t = turns[j]
                for i in 0..<n {
                    let w = Double(flow.weight[k * n + i])
                    guard w >= Double(PictureRotation.minimumPeak) else { continue }
                    let u = rays[i]
                    let v = SIMD3(
                        t[0].x * u.x + t[0].y * u.y + t[0].z * u.z, t[1].x * u.x + t[1].y * u.y + t[1].z * u.z,
                        t[2].x * u.x + t[2].y * u.y + t[2].z * u.z)
                    guard let p = lens.pixel(v) else { total += w * 20; weights += w; continue }
                    let ex = p.x - (flow.centreX[i] + Double(flow.dx[k * n + i])), ey = p.y - (flow.centreY[i] + Double(flow.dy[k * n + i]))
                    total += w * Double.log(1 + (ex * ex + ey * ey) / (scale * scale))
                    weights += w
                }
            }
            return weights > 0 ? total / weights : .infinity
        }
        // f from the half-width's angle: 10 to 90 degrees for an equidistant lens.
        let fs = (0..<28).map { half / (Double(10 + 80 * $0 / 27) * .pi / 180) }
        let ks = [-0.15, -0.05, 0, 0.05, 0.1, 0.2, 1.0 / 3, 0.5]
        var best = (cost: Double.infinity, lens: LensModel(focalLengthPx: half))
        for f in fs { for k in ks { let c = cost(LensModel(focalLengthPx: f, k1: k)); if c < best.cost { best = (c, LensModel(focalLengthPx: f, k1: k)) } } }
        // Refine: log f, then k1, then log f again.
        func golden(_ lo: Double, _ hi: Double, _ g: (Double) -> Double) -> Double {
            let r = (5.0.squareRoot() - 1) / 2
            var a = lo, b = hi, c = b - r * (b - a), d = a + r * (b - a)
            var fc = g(c), fd = g(d)
            for _ in 0..<30 {
                if fc < fd { b = d; d = c; fd = fc; c = b - r * (b - a); fc = g(c) } else { a = c; c = d; fc = fd; d = a + r * (b - a); fd = g(d) }
            }
            return (a + b) / 2
        }
        var lens = best.lens
        for _ in 0..<2 {
            let lf = Double.log(lens.focalLengthPx)
            let k1 = lens.k1
            let f = Double.exp(golden(lf - 0.15, lf + 0.15) { cost(LensModel(focalLengthPx: Double.exp($0), k1: k1)) })
            lens.focalLengthPx = f
            lens.k1 = golden(max(-0.3, lens.k1 - 0.15), min(0.8, lens.k1 + 0.15)) { cost(LensModel(focalLengthPx: f, k1: $0)) }
        }
        if cost(lens) > best.cost { lens = best.lens }
        return Result(lens: lens, misfitPx: scale * (Double.exp(cost(lens)) - 1).squareRoot(), intervalsUsed: chosen.count)
    }

    /// The rotation matrix of the rotation vector `w` (Rodrigues), rows.
    static func matrix(_ w: SIMD3<Double>) -> [SIMD3<Double>] {
        let a = w.length
        guard a > 1e-15 else { return [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)] }
        let k = w / a, c = Double.cos(a), s = Double.sin(a), t = 1 - c
        return [
            SIMD3(t * k.x * k.x + c, t * k.x * k.y - s * k.z, t * k.x * k.z + s * k.y),
            SIMD3(t * k.x * k.y + s * k.z, t * k.y * k.y + c, t * k.y * k.z - s * k.x),
            SIMD3(t * k.x * k.z - s * k.y, t * k.y * k.z + s * k.x, t * k.z * k.z + c)
        ]
    }
}
