/// Erode, dilate and feather of an 8-bit matte, in place, with scratch memory made once per
/// size and radius (nothing is allocated per frame).
///
/// Erode and dilate are the minimum and maximum over a (2r+1) x (2r+1) square, separable, each
/// direction by van Herk / Gil-Werman: running minima forward and backward inside blocks of
/// 2r+1, then one comparison per pixel, so the cost does not grow with r. Feather is a box blur
/// of radius r run twice (a tent), separable, each a running sum: also constant per pixel.
/// Outside the picture the edge pixel repeats.
final class MatteMorphology {
    let width: Int, height: Int
    /// Row buffers for the horizontal passes (padded), plane buffers for the vertical ones.
    private let line: UnsafeMutablePointer<UInt8>, forward: UnsafeMutablePointer<UInt8>, backward: UnsafeMutablePointer<UInt8>
    private let lineCount: Int
    private let planeForward: UnsafeMutablePointer<UInt8>, planeBackward: UnsafeMutablePointer<UInt8>
    private let planeRows: Int
    private let sums: UnsafeMutablePointer<UInt32>
    private let temporary: UnsafeMutablePointer<UInt8>

    /// Scratch for radii up to `radius`.
    init(width: Int, height: Int, radius: Int) {
        precondition(width > 0 && height > 0 && radius >= 0)
        self.width = width; self.height = height
        let k = 2 * radius + 1
        lineCount = width + 2 * radius + k
        planeRows = height + 2 * radius + k
        line = .allocate(capacity: lineCount); forward = .allocate(capacity: lineCount); backward = .allocate(capacity: lineCount)
        planeForward = .allocate(capacity: planeRows * width); planeBackward = .allocate(capacity: planeRows * width)
        sums = .allocate(capacity: max(width, lineCount))
        temporary = .allocate(capacity: width * height)
    }

    deinit {
        line.deallocate(); forward.deallocate(); backward.deallocate()
        planeForward.deallocate(); planeBackward.deallocate(); sums.deallocate(); temporary.deallocate()
    }

    func erode(_ p: Plane, radius r: Int) { extremum(p, radius: r, minimum: true) }
    func dilate(_ p: Plane, radius r: Int) { extremum(p, radius: r, minimum: false) }

    private func extremum(_ p: Plane, radius r: Int, minimum: Bool) {
        guard r > 0 else { return }
        precondition(p.width == width && p.height == height && width + 4 * r + 1 <= lineCount && height + 4 * r + 1 <= planeRows)
        @inline(__always) func pick(_ a: UInt8, _ b: UInt8) -> UInt8 { minimum ? min(a, b) : max(a, b) }
        let k = 2 * r + 1, w = width, h = height
        // Horizontal: the row padded by r on each side.
        let n = w + 2 * r
        for y in 0..<h {
            let row = p.row(y)
            for j in 0..<n { line[j] = row[min(max(j - r, 0), w - 1)] }
            for j in 0..<n { forward[j] = j % k == 0 ? line[j] : pick(forward[j - 1], line[j]) }
            var j = n - 1
            while j >= 0 {
                backward[j] = (j % k == k - 1 || j == n - 1) ? line[j] : pick(backward[j + 1], line[j])
                j -= 1
            }
            // The window of output x is padded j = x ... x + 2r.
            for x in 0..<w { row[x] = pick(backward[x], forward[x + 2 * r]) }
        }
        // Vertical: the same on whole rows, so every inner loop runs along memory.
        let m = h + 2 * r
        for j in 0..<m {
            let src = p.row(min(max(j - r, 0), h - 1)), f = planeForward + j * w
            if j % k == 0 { f.update(from: src, count: w) } else {
                let prev = f - w
                for x in 0..<w { f[x] = pick(prev[x], src[x]) }
            }
        }
        var j = m - 1
        while j >= 0 {
            let src = p.row(min(max(j - r, 0), h - 1)), b = planeBackward + j * w
            if j % k == k - 1 || j == m - 1 { b.update(from: src, count: w) } else {
                let next = b + w
                for x in 0..<w { b[x] = pick(next[x], src[x]) }
            }
            j -= 1
        }
        for y in 0..<h {
            let out = p.row(y), b = planeBackward + y * w, f = planeForward + (y + 2 * r) * w
            for x in 0..<w { out[x] = pick(b[x], f[x]) }
        }
    }

    /// Two box blurs of radius `r`: a transition r pixels wide each side of the edge becomes
    /// a smooth ramp about 2r + 1 wide.
    func feather(_ p: Plane, radius r: Int) {
        guard r > 0 else { return }
        precondition(p.width == width && p.height == height)
        boxBlur(p, radius: r)
        boxBlur(p, radius: r)
    }

    private func boxBlur(_ p: Plane, radius r: Int) {
        let w = width, h = height, k = UInt32(2 * r + 1)
        // sum * ceil(2^24 / k) >> 24 is sum / k rounded, exactly for k up to a few hundred (the
        // error is under sum / 2^24, and sum / k is never a half: k is odd); it fits UInt32.
        let reciprocal = ((UInt32(1) << 24) + k - 1) / k, half = UInt32(1) << 23
        // Horizontal into `temporary`.
        for y in 0..<h {
            let row = p.row(y), out = temporary + y * w
            var s: UInt32 = 0
            for j in -r...r { s += UInt32(row[min(max(j, 0), w - 1)]) }
            for x in 0..<w {
                out[x] = UInt8(truncatingIfNeeded: min(255, (s &* reciprocal &+ half) >> 24))
                s = s &+ UInt32(row[min(x + r + 1, w - 1)]) &- UInt32(row[max(x - r, 0)])
            }
        }
        // Vertical back into the plane, with one running sum per column.
        for x in 0..<w { sums[x] = 0 }
        for j in -r...r {
            let src = temporary + min(max(j, 0), h - 1) * w
            for x in 0..<w { sums[x] &+= UInt32(src[x]) }
        }
        for y in 0..<h {
            let out = p.row(y)
            let add = temporary + min(y + r + 1, h - 1) * w, sub = temporary + max(y - r, 0) * w
            for x in 0..<w {
                out[x] = UInt8(truncatingIfNeeded: min(255, (sums[x] &* reciprocal &+ half) >> 24))
                sums[x] = sums[x] &+ UInt32(add[x]) &- UInt32(sub[x])
            }
        }
    }
}
