/// Apple's VideoSnake look, on the CPU and on the YUV planes. The renderer keeps one picture:
/// its own previous output. Per frame:
///
///     clear to black
///     draw the previous output at `trailScale` about the centre, shifted by the trail velocity
///     draw the current frame at `frontScale`, centred, on top
///     every drawn quad has a black border of `border` of its size; bilinear sampling, edges clamped
///
/// Trail velocity, per frame: v = (v + a * dt) * damping, a being the motion's acceleration
/// (user acceleration in g, or a rotation rate in rad/s times a gain); the shift in normalised
/// device coordinates is v * shiftGain * width (pixels: t*W/2 across, t*H/2 down). A frame
/// inserted k frames ago shows at frontScale * trailScale^k: the trail is feedback, not layers.
public struct SnakeParameters: Equatable, Sendable {
    public var trailScale = 0.85
    public var frontScale = 0.25
    public var damping = 0.75
    public var shiftGain = 0.01
    public var border = 0.01
    /// Flip the horizontal motion (VideoSnake does for the front camera, whose preview is mirrored).
    public var mirror = false
    public init() {}
}

/// The acceleration driving the trail for one frame: x moves the trail across, y down.
public struct SnakeMotion: Equatable, Sendable {
    public var ax: Double
    public var ay: Double
    /// Time of the motion sample, seconds; dt is taken between consecutive samples.
    public var time: Double
    public init(ax: Double, ay: Double, time: Double) { self.ax = ax; self.ay = ay; self.time = time }
}

/// The trail's motion: its velocity and the time of the last motion sample (dt is taken from
/// it). A function of the motion alone, never of the pixels: a segment render replays it from
/// frame 0 without decoding (`SnakePreRoll`).
public struct SnakeTrail: Equatable, Sendable {
    public var vx = 0.0, vy = 0.0
    public var lastMotionTime: Double?
    public init() {}

    /// One frame's motion; nil (no motion for this frame) lets the velocity decay.
    public mutating func advance(_ motion: SnakeMotion?, damping: Double) {
        if let motion {
            let dt = lastMotionTime.map { max(0, motion.time - $0) } ?? 0
            lastMotionTime = motion.time
            vx = (vx + motion.ax * dt) * damping
            vy = (vy + motion.ay * dt) * damping
            // An absurd trace (1e308 rad/s) must not leave the trail at infinity for good.
            if !(vx.isFinite && vy.isFinite) { vx = 0; vy = 0 }
        } else {
            vx *= damping
            vy *= damping
        }
    }

    /// The shift of the trail quad in pixels (across, down) on a width x height canvas.
    public func shift(_ parameters: SnakeParameters, width: Int, height: Int) -> (dx: Double, dy: Double) {
        let m = parameters.mirror ? -1.0 : 1.0
        let tx = vx * parameters.shiftGain * Double(width) * m
        let ty = vy * parameters.shiftGain * Double(width)
        return (tx * Double(width) / 2, ty * Double(height) / 2)
    }
}

/// How one quad samples one plane along one axis: per destination pixel, whether it is outside
/// the quad (0), in its border (1) or inside (2), and inside, the source pixel and the weight of
/// the next one in 1/256ths. The renderer and the taint (`SnakeTaint`) both build their tables
/// here, so the taint follows the very footprint the pixels are drawn with.
enum SnakeSampling {
    /// The quad's centre on a plane of pw x ph whose luma plane is lw x lh, moved by (dx, dy)
    /// luma pixels.
    static func centre(plane pw: Int, _ ph: Int, luma lw: Int, _ lh: Int, dx: Double, dy: Double) -> (x: Double, y: Double) {
        let sx = Double(pw) / Double(lw), sy = Double(ph) / Double(lh)
        return (Double(pw) / 2 + dx * sx, Double(ph) / 2 + dy * sy)
    }

    /// The table of one axis: `n` destination pixels, the quad from `origin` over `extent`,
    /// `srcSize` source pixels.
    static func table(
        _ n: Int, _ origin: Double, _ extent: Double, _ srcSize: Int, border: Double,
        _ index: inout [Int32], _ frac: inout [Int32], _ inside: inout [UInt8]
    ) {
        for i in 0..<n {
            let t = (Double(i) + 0.5 - origin) / extent  // 0...1 across the quad
            // Written so that NaN (a trail pushed to infinity) is outside too.
            guard t >= 0 && t < 1 else { inside[i] = 0; continue }
            inside[i] = (t < border || t > 1 - border) ? 1 : 2  // 1: border
            let x = min(max(t * Double(srcSize) - 0.5, 0), Double(srcSize - 1))
            let x0 = Int(x)
            // Weights in 1/256ths: the per-pixel work is integer only.
            index[i] = Int32(x0); frac[i] = Int32(((x - Double(x0)) * 256).rounded())
        }
    }

    /// Both axes' tables of a quad of `scale` centred at (cx, cy) on a dw x dh plane, sampling a
    /// sw x sh source.
    static func tables(
        scale: Double, cx: Double, cy: Double, dw: Int, dh: Int, sw: Int, sh: Int, border: Double,
        cols: inout AxisTable, rows: inout AxisTable
    ) {
        let qw = scale * Double(dw), qh = scale * Double(dh)
        table(dw, cx - qw / 2, qw, sw, border: border, &cols.index, &cols.frac, &cols.inside)
        table(dh, cy - qh / 2, qh, sh, border: border, &rows.index, &rows.frac, &rows.inside)
    }

    struct AxisTable {
        var index: [Int32], frac: [Int32], inside: [UInt8]
        init(count n: Int) { index = Array(repeating: 0, count: n); frac = index; inside = Array(repeating: 0, count: n) }
    }
}

public final class SnakeRenderer {
    public let width: Int, height: Int
    public var parameters: SnakeParameters
    public private(set) var trail = SnakeTrail()
    public var velocity: (x: Double, y: Double) { (trail.vx, trail.vy) }
    /// Ping-pong: the previous output and the one being drawn.
    private var previous: YUVBuffer
    private var drawing: YUVBuffer
    // Per-row and per-column sampling tables, reused every frame (no allocation per frame).
    private var cols: SnakeSampling.AxisTable, rows: SnakeSampling.AxisTable

    public init(width: Int, height: Int, parameters: SnakeParameters = SnakeParameters()) {
        self.width = width; self.height = height; self.parameters = parameters
        previous = YUVBuffer(width: width, height: height)
        drawing = YUVBuffer(width: width, height: height)
        PlaneKernels.fill(previous.image, .black)
        let n = max(width, height)
        cols = SnakeSampling.AxisTable(count: n); rows = cols
    }

    /// Puts the renderer in a state a run had before some frame: the trail's motion, and
    /// (optionally) its previous output. A segment render restores the single pass's motion
    /// and pre-rolls the pixels; tests start two renderers from different pictures.
    public func restore(_ trail: SnakeTrail, previousOutput picture: YUVImage? = nil) {
        self.trail = trail
        if let picture { PlaneKernels.copy(picture, into: previous.image) }
    }

    /// As `restore(_:previousOutput:)`, with every pixel of every plane of the previous output
    /// set to `value`: the extremes 0 and 255 that `SnakeBracket` starts from.
    public func restore(_ trail: SnakeTrail, previousFill value: UInt8) {
        self.trail = trail
        PlaneKernels.fill(previous.image, YUVColor(y: value, u: value, v: value))
    }

    /// Whether this renderer's last output (its trail) equals `other`'s on every pixel of
    /// every plane. No allocation.
    public func lastOutputEquals(_ other: SnakeRenderer) -> Bool {
        precondition(other.width == width && other.height == height)
        func same(_ p: Plane, _ q: Plane) -> Bool {
            for y in 0..<p.height
            where !UnsafeBufferPointer(start: p.row(y), count: p.width)
                .elementsEqual(UnsafeBufferPointer(start: q.row(y), count: q.width))
            { return false }
            return true
        }
        let a = previous.image, b = other.previous.image
        return same(a.y, b.y) && same(a.u, b.u) && same(a.v, b.v)
    }

    /// Copies the last output into `out` (same size).
    public func copyLastOutput(into out: YUVImage) { PlaneKernels.copy(previous.image, into: out) }

    /// The shift of the trail quad, in pixels (across, down), for the current velocity.
    public var trailShift: (dx: Double, dy: Double) { trail.shift(parameters, width: width, height: height) }

    /// Advances the trail velocity by one frame's motion; nil (no motion for this frame) lets
    /// the velocity decay.
    public func advance(_ motion: SnakeMotion?) { trail.advance(motion, damping: parameters.damping) }

    /// Draws the next output from `current` (same size) into `out`, and keeps it as the trail.
    public func render(_ current: YUVImage, motion: SnakeMotion?, into out: YUVImage) {
        precondition(current.width == width && current.height == height && out.width == width && out.height == height)
        advance(motion)
        let canvas = drawing.image
        PlaneKernels.fill(canvas, .black)
        let shift = trailShift
        draw(previous.image, scale: parameters.trailScale, dx: shift.dx, dy: shift.dy, into: canvas)
        draw(current, scale: parameters.frontScale, dx: 0, dy: 0, into: canvas)
        PlaneKernels.copy(canvas, into: out)
        swap(&previous, &drawing)
    }

    /// Draws `src` scaled by `scale` about the centre, moved by (dx, dy) pixels, with its border.
    func draw(_ src: YUVImage, scale: Double, dx: Double, dy: Double, into dst: YUVImage) {
        func plane(_ s: Plane, _ d: Plane, black: UInt8) {
            let c = SnakeSampling.centre(plane: d.width, d.height, luma: dst.y.width, dst.y.height, dx: dx, dy: dy)
            drawPlane(s, d, scale: scale, cx: c.x, cy: c.y, black: black)
        }
        plane(src.y, dst.y, black: 16)
        plane(src.u, dst.u, black: 128)
        plane(src.v, dst.v, black: 128)
    }

    /// One plane: a pixel whose centre falls inside the quad samples src bilinearly at the
    /// matching point; inside the border band it is black; outside the quad it is left alone.
    private func drawPlane(_ s: Plane, _ d: Plane, scale: Double, cx: Double, cy: Double, black: UInt8) {
        SnakeSampling.tables(
            scale: scale, cx: cx, cy: cy, dw: d.width, dh: d.height, sw: s.width, sh: s.height,
            border: parameters.border, cols: &cols, rows: &rows)
        let maxX = s.width - 1, maxY = s.height - 1
        for y in 0..<d.height where rows.inside[y] != 0 {
            let out = d.row(y)
            if rows.inside[y] == 1 {
                for x in 0..<d.width where cols.inside[x] != 0 { out[x] = black }
                continue
            }
            let y0 = Int(rows.index[y]), fy = Int(rows.frac[y])
            let r0 = s.row(y0), r1 = s.row(min(y0 + 1, maxY))
            cols.inside.withUnsafeBufferPointer { inside in
                cols.index.withUnsafeBufferPointer { index in
                    cols.frac.withUnsafeBufferPointer { frac in
                        for x in 0..<d.width {
                            let kind = inside[x]
                            if kind == 0 { continue }
                            if kind == 1 { out[x] = black; continue }
                            let x0 = Int(index[x]), x1 = min(x0 + 1, maxX), fx = Int(frac[x])
                            let top = Int(r0[x0]) * (256 - fx) + Int(r0[x1]) * fx
                            let bottom = Int(r1[x0]) * (256 - fx) + Int(r1[x1]) * fx
                            out[x] = UInt8(truncatingIfNeeded: (top * (256 - fy) + bottom * fy + 32768) >> 16)
                        }
                    }
                }
            }
        }
    }
}
