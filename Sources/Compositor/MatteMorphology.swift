/// Erode, dilate and feather of an 8-bit matte, in place, with scratch memory made once per
/// size and radius (nothing is allocated per frame).
///
/// Erode and dilate are the minimum and maximum over a (2r+1) x (2r+1) square, separable. Up to
/// radius 16 the window is taken whole, sixteen pixels per instruction (cost grows with r, but
/// is lower than the alternative there); above, each direction by van Herk / Gil-Werman:
/// running minima forward and backward inside blocks of 2r+1, then one comparison per pixel, so
/// the cost does not grow with r. Feather is a box blur of radius r run twice (a tent),
/// separable: whole window sums on eight lanes up to radius 16, running sums above.
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
    /// Owns every buffer above.
    private let scratch = ScratchMemory()

    /// Scratch for radii up to `radius`.
    init(width: Int, height: Int, radius: Int) {
        precondition(width > 0 && height > 0 && radius >= 0)
        self.width = width; self.height = height
        let k = 2 * radius + 1
        lineCount = width + 2 * radius + k
        planeRows = height + 2 * radius + k
        let m = scratch
        line = m.buffer(count: lineCount); forward = m.buffer(count: lineCount); backward = m.buffer(count: lineCount)
        planeForward = m.buffer(count: planeRows * width); planeBackward = m.buffer(count: planeRows * width)
        sums = m.buffer(count: max(width, lineCount))
        temporary = m.buffer(count: width * height)
    }

    func erode(_ p: Plane, radius r: Int) { extremum(p, radius: r, minimum: true) }
    func dilate(_ p: Plane, radius r: Int) { extremum(p, radius: r, minimum: false) }

    private func extremum(_ p: Plane, radius r: Int, minimum: Bool) {
        guard r > 0 else { return }
        checkScratch(p, radius: r)
        if r <= Self.directRadius { return extremumDirect(p, radius: r, minimum: minimum) }
        @inline(__always) func pick(_ a: UInt8, _ b: UInt8) -> UInt8 { minimum ? min(a, b) : max(a, b) }
        let k = 2 * r + 1, w = width, h = height
        // Horizontal: the row padded by r on each side.
        let n = w + 2 * r
        for y in 0..<h {
            let row = p.row(y)
            // (Block by block rather than testing j % k per pixel: a division per pixel cost
            // more than everything else here.)
            padLine(row, radius: r)
            var start = 0
            while start < n {
                let end = min(start + k, n)
                forward[start] = line[start]
                for j in (start + 1)..<end { forward[j] = pick(forward[j - 1], line[j]) }
                backward[end - 1] = line[end - 1]
                var j = end - 2
                while j >= start { backward[j] = pick(backward[j + 1], line[j]); j -= 1 }
                start = end
            }
            // The window of output x is padded j = x ... x + 2r.
            Self.pickRow(backward, forward + 2 * r, into: row, count: w, minimum: minimum)
        }
        // Vertical: the same on whole rows, so every inner loop runs along memory.
        let m = h + 2 * r
        for j in 0..<m {
            let src = p.row(min(max(j - r, 0), h - 1)), f = planeForward + j * w
            if j % k == 0 {
                f.update(from: src, count: w)
            } else {
                Self.pickRow(f - w, src, into: f, count: w, minimum: minimum)
            }
        }
        var j = m - 1
        while j >= 0 {
            let src = p.row(min(max(j - r, 0), h - 1)), b = planeBackward + j * w
            if j % k == k - 1 || j == m - 1 {
                b.update(from: src, count: w)
            } else {
                Self.pickRow(b + w, src, into: b, count: w, minimum: minimum)
            }
            j -= 1
        }
        for y in 0..<h {
            let out = p.row(y), b = planeBackward + y * w, f = planeForward + (y + 2 * r) * w
            Self.pickRow(b, f, into: out, count: w, minimum: minimum)
        }
    }

    /// Up to this radius a window is cheaper taken whole, sixteen pixels per instruction, than
    /// by van Herk / Gil-Werman's three scalar passes; and a box sum whole, on eight lanes.
    static let directRadius = 16

    /// The (2r+1) x (2r+1) minimum (or maximum) as 2r + 1 rows or columns picked together: the
    /// same window, edge pixels repeated, as `extremum`. Horizontal into `temporary`, vertical
    /// back into the plane.
    private func extremumDirect(_ p: Plane, radius r: Int, minimum: Bool) {
        let w = width, h = height
        for y in 0..<h {
            let row = p.row(y), out = temporary + y * w
            padLine(row, radius: r)
            out.update(from: line, count: w)
            for d in 1...(2 * r) { Self.pickRow(out, line + d, into: out, count: w, minimum: minimum) }
        }
        for y in 0..<h {
            let out = p.row(y)
            out.update(from: temporary + max(y - r, 0) * w, count: w)
            for d in (-r + 1)...r { Self.pickRow(out, temporary + min(max(y + d, 0), h - 1) * w, into: out, count: w, minimum: minimum) }
        }
    }

    /// The plane is the size the scratch was made for and r is within the radius it was made
    /// for: otherwise `padLine` and the passes would write past their buffers.
    private func checkScratch(_ p: Plane, radius r: Int) {
        precondition(p.width == width && p.height == height && width + 4 * r + 1 <= lineCount && height + 4 * r + 1 <= planeRows)
    }

    /// `line` = the row with its edge pixels repeated r times on each side.
    private func padLine(_ row: UnsafeMutablePointer<UInt8>, radius r: Int) {
        line.initialize(repeating: row[0], count: r)
        (line + r).update(from: row, count: width)
        (line + r + width).initialize(repeating: row[width - 1], count: r)
    }

    /// out = min(a, b) (or max) over a row, sixteen bytes at a time (pminub / pmaxub); `out`
    /// may be `a` or `b`.
    private static func pickRow(
        _ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
        count: Int, minimum: Bool
    ) {
        @inline(__always) func run(_ pick: (UInt8, UInt8) -> UInt8) {
            var x = 0
            while x + 16 <= count {
                let u = UnsafeRawPointer(a + x).loadUnaligned(as: SIMD16<UInt8>.self)
                let v = UnsafeRawPointer(b + x).loadUnaligned(as: SIMD16<UInt8>.self)
                var r = SIMD16<UInt8>()
                for i in 0..<16 { r[i] = pick(u[i], v[i]) }
                UnsafeMutableRawPointer(out + x).storeBytes(of: r, as: SIMD16<UInt8>.self)
                x += 16
            }
            for x in x..<count { out[x] = pick(a[x], b[x]) }
        }
        if minimum { run { $0 < $1 ? $0 : $1 } } else { run { $0 > $1 ? $0 : $1 } }
    }

    /// Two box blurs of radius `r`: a transition r pixels wide each side of the edge becomes
    /// a smooth ramp about 2r + 1 wide.
    func feather(_ p: Plane, radius r: Int) {
        guard r > 0 else { return }
        checkScratch(p, radius: r)
        boxBlur(p, radius: r)
        boxBlur(p, radius: r)
    }

    private func boxBlur(_ p: Plane, radius r: Int) {
        let w = width, h = height, k = UInt32(2 * r + 1)
        // sum * ceil(2^24 / k) >> 24 is sum / k rounded, exactly for k up to a few hundred (the
        // error is under sum / 2^24, and sum / k is never a half: k is odd); it fits UInt32.
        let reciprocal = ((UInt32(1) << 24) + k - 1) / k, half = UInt32(1) << 23
        // Horizontal into `temporary`.
        if r <= Self.directRadius {
            // Eight whole window sums at a time. sum / k rounded is never a half (k is odd), so
            // sum x (1 / k) in Float (error under 1e-4 here) rounds to the same integer.
            let inverseK = 1 / Float(k)
            for y in 0..<h {
                let out = temporary + y * w
                padLine(p.row(y), radius: r)
                var x = 0
                while x + 8 <= w {
                    var sum = IntVector8()
                    for d in 0...(2 * r) { sum &+= VectorMath.widen(UnsafeRawPointer(line + x + d).loadUnaligned(as: SIMD8<UInt8>.self)) }
                    let (_, rounded) = VectorMath.roundEven(VectorMath.float(sum) * inverseK)
                    UnsafeMutableRawPointer(out + x).storeBytes(of: VectorMath.narrow8(rounded), as: SIMD8<UInt8>.self)
                    x += 8
                }
                for x in x..<w {
                    var s: UInt32 = 0
                    for d in 0...(2 * r) { s += UInt32(line[x + d]) }
                    out[x] = UInt8(truncatingIfNeeded: min(255, (s &* reciprocal &+ half) >> 24))
                }
            }
        } else {
            for y in 0..<h {
                let row = p.row(y), out = temporary + y * w
                var s: UInt32 = 0
                for j in -r...r { s += UInt32(row[min(max(j, 0), w - 1)]) }
                for x in 0..<w {
                    out[x] = UInt8(truncatingIfNeeded: min(255, (s &* reciprocal &+ half) >> 24))
                    s = s &+ UInt32(row[min(x + r + 1, w - 1)]) &- UInt32(row[max(x - r, 0)])
                }
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
            var x = 0
            if r <= Self.directRadius {
                // Eight columns at a time, rounded as the horizontal pass does.
                let inverseK = 1 / Float(k)
                while x + 8 <= w {
                    let at = UnsafeMutableRawPointer(sums + x), sum = at.loadUnaligned(as: IntVector8.self)
                    let (_, rounded) = VectorMath.roundEven(VectorMath.float(sum) * inverseK)
                    UnsafeMutableRawPointer(out + x).storeBytes(of: VectorMath.narrow8(rounded), as: SIMD8<UInt8>.self)
                    let plus = VectorMath.widen(UnsafeRawPointer(add + x).loadUnaligned(as: SIMD8<UInt8>.self))
                    let minus = VectorMath.widen(UnsafeRawPointer(sub + x).loadUnaligned(as: SIMD8<UInt8>.self))
                    at.storeBytes(of: sum &+ plus &- minus, as: IntVector8.self)
                    x += 8
                }
            }
            for x in x..<w {
                out[x] = UInt8(truncatingIfNeeded: min(255, (sums[x] &* reciprocal &+ half) >> 24))
                sums[x] = sums[x] &+ UInt32(add[x]) &- UInt32(sub[x])
            }
        }
    }
}
