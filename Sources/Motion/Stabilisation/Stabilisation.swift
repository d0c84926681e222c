import RealModule

/// A stabilised clip's geometry, pure: the camera's path and its smoothed path on the video's
/// clock, the source lens and the output's rectilinear camera. For an output pixel of the
/// frame at t, its ray in the smoothed ("virtual") camera is turned into the real camera as it
/// was when the source row holding it was exposed, R = camera(t_row)^-1 * smoothed(t), and
/// projected through the source lens: the warp's inverse map.
public struct Stabilisation: Sendable {
    public let camera: CameraPath
    public let smoothed: CameraPath
    /// The source picture's lens (its size's pixels).
    public let lens: CameraLens
    public let width: Int, height: Int
    public let shutter: RollingShutter
    /// The output camera's focal length at zoom 1: the source lens's horizontal one.
    public let outputFocal: Double

    public init(camera: CameraPath, smoothed: CameraPath, lens: CameraLens, width: Int, height: Int, shutter: RollingShutter) {
        self.camera = camera; self.smoothed = smoothed; self.lens = lens
        self.width = width; self.height = height; self.shutter = shutter
        outputFocal = lens.fx
    }

    /// The path smoothed as `settings` say, levelled to `gravity` when asked.
    public static func make(
        camera: CameraPath, lens: CameraLens, width: Int, height: Int, settings: StabiliseSettings, gravity: GravityEstimate? = nil
    ) -> Stabilisation {
        var s = PathSmoothing.smooth(camera, method: settings.smoothing, smoothness: settings.smoothness)
        if let amount = settings.horizonLock, let gravity {
            for i in s.indices { s[i] = HorizonLock.level(s[i], up: gravity.up(at: camera.times[i]), amount: amount) }
        }
        return Stabilisation(camera: camera, smoothed: camera.with(s), lens: lens, width: width, height: height, shutter: settings.shutter)
    }

    /// The source pixel output pixel (x, y) of the frame at `t` (ns) shows at `zoom`; nil where
    /// the ray misses the lens. The row's time is found by two refinements from the frame's.
    @inlinable public func source(x: Double, y: Double, frame t: Int64, zoom: Double, view: Quaternion? = nil) -> SIMD2<Double>? {
        let f = outputFocal * zoom
        let ray = SIMD3((x - Double(width - 1) / 2) / f, (y - Double(height - 1) / 2) / f, 1)
        let s = view ?? smoothed.orientation(at: t)
        let world = s.act(on: ray)
        var p = lens.project(camera.orientation(at: t).conjugate.act(on: world))
        if shutter.readout > 0 {
            for _ in 0..<2 {
                guard let row = p?.y else { break }
                let tr = shutter.rowTime(frame: t, row: min(max(row, 0), Double(height - 1)), rows: height)
                p = lens.project(camera.orientation(at: tr).conjugate.act(on: world))
            }
        }
        return p
    }

    /// The inverse map of the frame at `t` on a grid: node (i, j) at output pixel
    /// (min(i * cell, width - 1), min(j * cell, height - 1)), `columns` x `rows` nodes, written as
    /// (x, y) float pairs row by row into `grid` (2 * columns * rows floats). A node whose ray misses
    /// the lens gets -1e6 (sampled as the edge). The same map as `source` at each node (to rounding:
    /// the rows' rotations come from `turns`, a table per band of rows, filled here); allocates
    /// nothing.
    public func fillGrid(frame t: Int64, zoom: Double, cell: Int, columns: Int, rows: Int, into grid: UnsafeMutablePointer<Float>, turns: RowTurns) {
        precondition(turns.rows == height, "a row table for \(turns.rows) rows, not \(height)")
        let view = smoothed.orientation(at: t)
        turns.fill(self, frame: t, view: view)
        // The first guess, as `source`'s: the whole frame turned as at its own time.
        let m = (camera.orientation(at: t).conjugate * view).matrix
        let f = outputFocal * zoom
        let cx = Double(width - 1) / 2, cy = Double(height - 1) / 2
        let rolling = shutter.readout > 0
        for j in 0..<rows {
            let y = Double(min(j * cell, height - 1))
            let out = grid + 2 * j * columns
            for i in 0..<columns {
                let x = Double(min(i * cell, width - 1))
                let ray = SIMD3((x - cx) / f, (y - cy) / f, 1)
                var p = lens.project(SIMD3((m.0 * ray).sum(), (m.1 * ray).sum(), (m.2 * ray).sum()))
                if rolling {
                    for _ in 0..<2 {
                        guard let row = p?.y else { break }
                        p = lens.project(turns.turn(ray, row: row))
                    }
                }
                let q = p ?? SIMD2(-1e6, -1e6)
                out[2 * i] = Float(q.x)
                out[2 * i + 1] = Float(q.y)
            }
        }
    }

    /// The same with a row table of its own (tests; a stage keeps one).
    public func fillGrid(frame t: Int64, zoom: Double, cell: Int, columns: Int, rows: Int, into grid: UnsafeMutablePointer<Float>) {
        fillGrid(frame: t, zoom: zoom, cell: cell, columns: columns, rows: rows, into: grid, turns: RowTurns(rows: height))
    }

    /// Whether every output border point (`perSide` along each edge) of the frame at t maps
    /// inside the source picture at `zoom`.
    public func coversPicture(frame t: Int64, zoom: Double, perSide: Int = 12) -> Bool {
        let view = smoothed.orientation(at: t)
        let w = Double(width - 1), h = Double(height - 1)
        for k in 0...perSide {
            let a = Double(k) / Double(perSide)
            for (x, y) in [(a * w, 0.0), (a * w, h), (0.0, a * h), (w, a * h)] {
                guard let p = source(x: x, y: y, frame: t, zoom: zoom, view: view),
                    p.x >= 0, p.y >= 0, p.x <= w, p.y <= h
                else { return false }
            }
        }
        return true
    }

    /// The smallest zoom (to 0.001) at which the frame at t shows no border, searched in
    /// [0.25, limit]; `limit` when even that is not enough.
    public func requiredZoom(frame t: Int64, limit: Double) -> Double {
        if coversPicture(frame: t, zoom: 0.25) { return 0.25 }
        guard coversPicture(frame: t, zoom: limit) else { return .infinity }
        var lo = 0.25, hi = limit
        while hi - lo > 0.001 {
            let m = (lo + hi) / 2
            if coversPicture(frame: t, zoom: m) { hi = m } else { lo = m }
        }
        return hi
    }
}

/// The zoom per frame time (`--zoom`), capped by `--max-zoom`.
public struct ZoomPlan: Sendable {
    public let times: [Int64]
    public let zoom: [Double]
    /// Frames (of `times`) that needed more than the cap: their borders show.
    public let framesOverCap: Int
    /// The largest zoom any frame needed (infinity: past 4x, or a ray off the lens).
    public let largestNeeded: Double

    /// `times`: the frames' times (ns, any frames: a dense sampling of the clip will do).
    public init(_ s: Stabilisation, times: [Int64], mode: ZoomMode, maxZoom: Double, fps: Double) {
        self.times = times
        guard mode != .none, !times.isEmpty else {
            zoom = Array(repeating: 1, count: times.count); framesOverCap = 0; largestNeeded = 1; return
        }
        let searchLimit = max(maxZoom, 4)
        let need = times.map { s.requiredZoom(frame: $0, limit: searchLimit) }
        largestNeeded = need.max() ?? 1
        framesOverCap = need.filter { $0 > maxZoom + 1e-9 }.count
        let capped = need.map { min($0, maxZoom) }
        switch mode {
        case .static, .none:
            zoom = Array(repeating: capped.max() ?? 1, count: times.count)
        case .dynamic:
            // A running maximum over a second either side, then smoothed forward and backward
            // (half a second), never below what each frame needs.
            let n = capped.count, half = max(1, Int(fps.rounded()))
            var peak = capped
            for i in 0..<n { peak[i] = capped[max(0, i - half)...min(n - 1, i + half)].max()! }
            var f = peak
            let a = PathSmoothing.alpha(1 / max(fps, 1), 0.5)
            for i in 1..<max(1, n) { f[i] = f[i - 1] + (peak[i] - f[i - 1]) * a }
            for i in stride(from: n - 2, through: 0, by: -1) { f[i] = f[i + 1] + (f[i] - f[i + 1]) * a }
            zoom = zip(f, capped).map { max($0, $1) }
        }
    }

    /// The zoom at t (linear between the planned times).
    public func zoom(at t: Int64) -> Double {
        guard !times.isEmpty else { return 1 }
        var lo = 0, hi = times.count - 1
        while lo < hi { let m = (lo + hi + 1) / 2; if times[m] <= t { lo = m } else { hi = m - 1 } }
        guard lo + 1 < times.count, t > times[lo] else { return zoom[lo] }
        let s = Double(t - times[lo]) / Double(times[lo + 1] - times[lo])
        return zoom[lo] + (zoom[lo + 1] - zoom[lo]) * s
    }
}
