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

public final class SnakeRenderer {
    public let width: Int, height: Int
    public var parameters: SnakeParameters
    public private(set) var velocity = (x: 0.0, y: 0.0)
    private var lastMotionTime: Double?
    /// Ping-pong: the previous output and the one being drawn.
    private var previous: YUVBuffer
    private var drawing: YUVBuffer
    // Per-row and per-column sampling tables, reused every frame (no allocation per frame).
    private var colIndex: [Int32], colFrac: [Int32], colInside: [UInt8]
    private var rowIndex: [Int32], rowFrac: [Int32], rowInside: [UInt8]

    public init(width: Int, height: Int, parameters: SnakeParameters = SnakeParameters()) {
        self.width = width; self.height = height; self.parameters = parameters
        previous = YUVBuffer(width: width, height: height)
        drawing = YUVBuffer(width: width, height: height)
        PlaneKernels.fill(previous.image, .black)
        let n = max(width, height)
        colIndex = Array(repeating: 0, count: n); colFrac = Array(repeating: 0, count: n); colInside = Array(repeating: 0, count: n)
        rowIndex = colIndex; rowFrac = colFrac; rowInside = colInside
    }

    /// The shift of the trail quad, in pixels (across, down), for the current velocity.
    public var trailShift: (dx: Double, dy: Double) {
        let m = parameters.mirror ? -1.0 : 1.0
        let tx = velocity.x * parameters.shiftGain * Double(width) * m
        let ty = velocity.y * parameters.shiftGain * Double(width)
        return (tx * Double(width) / 2, ty * Double(height) / 2)
    }

    /// Advances the trail velocity by one frame's motion; nil (no motion for this frame) lets
    /// the velocity decay.
    public func advance(_ motion: SnakeMotion?) {
        if let motion {
            let dt = lastMotionTime.map { max(0, motion.time - $0) } ?? 0
            lastMotionTime = motion.time
            velocity.x = (velocity.x + motion.ax * dt) * parameters.damping
            velocity.y = (velocity.y + motion.ay * dt) * parameters.damping
            // An absurd trace (1e308 rad/s) must not leave the trail at infinity for good.
            if !(velocity.x.isFinite && velocity.y.isFinite) { velocity = (0, 0) }
        } else {
            velocity.x *= parameters.damping
            velocity.y *= parameters.damping
        }
    }

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
        drawPlane(src.y, dst.y, scale: scale, cx: Double(dst.y.width) / 2 + dx, cy: Double(dst.y.height) / 2 + dy, black: 16)
        let sx = Double(dst.u.width) / Double(dst.y.width), sy = Double(dst.u.height) / Double(dst.y.height)
        drawPlane(src.u, dst.u, scale: scale, cx: Double(dst.u.width) / 2 + dx * sx, cy: Double(dst.u.height) / 2 + dy * sy, black: 128)
        drawPlane(src.v, dst.v, scale: scale, cx: Double(dst.v.width) / 2 + dx * sx, cy: Double(dst.v.height) / 2 + dy * sy, black: 128)
    }

    /// One plane: a pixel whose centre falls inside the quad samples src bilinearly at the
    /// matching point; inside the border band it is black; outside the quad it is left alone.
    private func drawPlane(_ s: Plane, _ d: Plane, scale: Double, cx: Double, cy: Double, black: UInt8) {
        let qw = scale * Double(d.width), qh = scale * Double(d.height)
        let left = cx - qw / 2, top = cy - qh / 2
        func table(_ n: Int, _ origin: Double, _ extent: Double, _ srcSize: Int,
                   _ index: inout [Int32], _ frac: inout [Int32], _ inside: inout [UInt8]) {
            for i in 0..<n {
                let t = (Double(i) + 0.5 - origin) / extent   // 0...1 across the quad
                // Written so that NaN (a trail pushed to infinity) is outside too.
                guard t >= 0 && t < 1 else { inside[i] = 0; continue }
                inside[i] = (t < parameters.border || t > 1 - parameters.border) ? 1 : 2   // 1: border
                let x = min(max(t * Double(srcSize) - 0.5, 0), Double(srcSize - 1))
                let x0 = Int(x)
                // Weights in 1/256ths: the per-pixel work is integer only.
                index[i] = Int32(x0); frac[i] = Int32(((x - Double(x0)) * 256).rounded())
            }
        }
        table(d.width, left, qw, s.width, &colIndex, &colFrac, &colInside)
        table(d.height, top, qh, s.height, &rowIndex, &rowFrac, &rowInside)
        let maxX = s.width - 1, maxY = s.height - 1
        for y in 0..<d.height where rowInside[y] != 0 {
            let out = d.row(y)
            if rowInside[y] == 1 {
                for x in 0..<d.width where colInside[x] != 0 { out[x] = black }
                continue
            }
            let y0 = Int(rowIndex[y]), fy = Int(rowFrac[y])
            let r0 = s.row(y0), r1 = s.row(min(y0 + 1, maxY))
            colInside.withUnsafeBufferPointer { inside in
                colIndex.withUnsafeBufferPointer { index in
                    colFrac.withUnsafeBufferPointer { frac in
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
