/// Garbage and core mattes as 8-bit masks (255 inside, 0 outside), rasterised once per picture
/// size: a pixel is inside when its centre is (even-odd rule, so a self-crossing polygon has holes
/// where a drawing program would show them).
public enum GarbageMatte {
    /// The mask of `shape` on a `width` x `height` picture, row by row.
    public static func mask(_ shape: KeyShape, width: Int, height: Int) -> [UInt8] {
        precondition(shape.problem == nil, "check the shape first")
        let points = shape.points.map { (x: $0.x * Double(width), y: $0.y * Double(height)) }
        var mask = [UInt8](repeating: 0, count: width * height)
        var crossings: [Double] = []
        for y in 0..<height {
            let cy = Double(y) + 0.5
            crossings.removeAll(keepingCapacity: true)
            for i in points.indices {
                let a = points[i], b = points[(i + 1) % points.count]
                // Half-open in y, so a vertex on the scan line counts once.
                if (a.y <= cy) != (b.y <= cy) {
                    crossings.append(a.x + (cy - a.y) / (b.y - a.y) * (b.x - a.x))
                }
            }
            crossings.sort()
            var i = 0
            while i + 1 < crossings.count {
                // Pixels whose centre x + 0.5 lies in [left, right).
                let first = max(0, Int((crossings[i] - 0.5).rounded(.up)))
                let last = min(width - 1, Int((crossings[i + 1] - 0.5).rounded(.up)) - 1)
                if first <= last { for x in first...last { mask[y * width + x] = 255 } }
                i += 2
            }
        }
        return mask
    }
}
