/// Copies, fills and weighted mixes of whole pictures. Loops run over rows of raw pointers:
/// nothing here allocates.
public enum PlaneKernels {
    /// Copies `src` into `dst` (same size).
    public static func copy(_ src: YUVImage, into dst: YUVImage) {
        precondition(src.width == dst.width && src.height == dst.height)
        copyPlane(src.y, dst.y); copyPlane(src.u, dst.u); copyPlane(src.v, dst.v)
    }

    static func copyPlane(_ s: Plane, _ d: Plane) {
        for r in 0..<s.height { d.row(r).update(from: s.row(r), count: s.width) }
    }

    /// Paints `rect` of `image` (all of it by default) in one colour.
    public static func fill(_ image: YUVImage, _ color: YUVColor, in rect: Rect? = nil) {
        let t = rect.map { image.cropped(to: $0) } ?? image
        fillPlane(t.y, color.y); fillPlane(t.u, color.u); fillPlane(t.v, color.v)
    }

    static func fillPlane(_ p: Plane, _ value: UInt8) {
        for r in 0..<p.height { p.row(r).update(repeating: value, count: p.width) }
    }

    /// out = sum of weights[i] * inputs[i] for 1 to 4 inputs. Weights are fixed point in
    /// 1/256ths summing to 256 (see `fixedPointWeights`).
    public static func mix(_ inputs: [YUVImage], weights: [Int], into out: YUVImage) {
        precondition(inputs.count == weights.count && (1...4).contains(inputs.count))
        for i in inputs.indices { precondition(inputs[i].width == out.width && inputs[i].height == out.height) }
        mixPlane(inputs, weights, \.y, out.y)
        mixPlane(inputs, weights, \.u, out.u)
        mixPlane(inputs, weights, \.v, out.v)
    }

    static func mixPlane(_ inputs: [YUVImage], _ weights: [Int], _ plane: KeyPath<YUVImage, Plane>, _ o: Plane) {
        // Missing inputs read the first one with weight 0, so one loop serves 1 to 4 inputs.
        let p0 = inputs[0][keyPath: plane]
        let p1 = inputs.count > 1 ? inputs[1][keyPath: plane] : p0
        let p2 = inputs.count > 2 ? inputs[2][keyPath: plane] : p0
        let p3 = inputs.count > 3 ? inputs[3][keyPath: plane] : p0
        let w0 = weights[0], w1 = weights.count > 1 ? weights[1] : 0
        let w2 = weights.count > 2 ? weights[2] : 0, w3 = weights.count > 3 ? weights[3] : 0
        if inputs.count == 2 {
            // The common case, without the two idle terms.
            for r in 0..<o.height {
                let a = p0.row(r), b = p1.row(r), out = o.row(r)
                for x in 0..<o.width { out[x] = UInt8(truncatingIfNeeded: (Int(a[x]) * w0 + Int(b[x]) * w1 + 128) >> 8) }
            }
            return
        }
        for r in 0..<o.height {
            let a = p0.row(r), b = p1.row(r), c = p2.row(r), d = p3.row(r), out = o.row(r)
            for x in 0..<o.width {
                let s = Int(a[x]) * w0 + Int(b[x]) * w1 + Int(c[x]) * w2 + Int(d[x]) * w3 + 128
                out[x] = UInt8(truncatingIfNeeded: min(255, s >> 8))
            }
        }
    }

    /// Turns user weights (non-negative, not all zero) into 1/256ths summing to exactly 256.
    public static func fixedPointWeights(_ weights: [Double]) -> [Int] {
        precondition(weights.allSatisfy { $0.isFinite && $0 >= 0 } && weights.contains { $0 > 0 })
        // Divided by the largest first, so huge weights (1e308 twice) do not overflow the sum
        // to infinity and every share to 0.
        let largest = weights.max()!
        let scaled = weights.map { $0 / largest }
        let total = scaled.reduce(0, +)
        var fixed = scaled.map { Int(($0 / total * 256).rounded(.down)) }
        // The rounding remainder goes to the largest weights, first come first served.
        var rest = 256 - fixed.reduce(0, +)
        for i in weights.indices.sorted(by: { weights[$0] > weights[$1] || (weights[$0] == weights[$1] && $0 < $1) }) where rest > 0 {
            fixed[i] += 1; rest -= 1
        }
        return fixed
    }
}

extension PlaneKernels {
    /// Turns `src` clockwise by 90, 180 or 270 degrees into `dst` (whose size is src's turned).
    /// Phone footage is stored sideways with a display matrix saying how to turn it.
    public static func rotate(_ src: YUVImage, clockwise degrees: Int, into dst: YUVImage) {
        rotatePlane(src.y, degrees, dst.y); rotatePlane(src.u, degrees, dst.u); rotatePlane(src.v, degrees, dst.v)
    }

    static func rotatePlane(_ s: Plane, _ degrees: Int, _ d: Plane) {
        switch degrees {
        case 90:
            precondition(d.width == s.height && d.height == s.width)
            // dst(x, y) = src(y, H-1-x)
            for y in 0..<d.height {
                let out = d.row(y)
                for x in 0..<d.width { out[x] = s.row(s.height - 1 - x)[y] }
            }
        case 180:
            precondition(d.width == s.width && d.height == s.height)
            for y in 0..<d.height {
                let out = d.row(y), inp = s.row(s.height - 1 - y)
                for x in 0..<d.width { out[x] = inp[s.width - 1 - x] }
            }
        case 270:
            precondition(d.width == s.height && d.height == s.width)
            // dst(x, y) = src(W-1-y, x)
            for y in 0..<d.height {
                let out = d.row(y)
                for x in 0..<d.width { out[x] = s.row(x)[s.width - 1 - y] }
            }
        default:
            preconditionFailure("rotation must be 90, 180 or 270 degrees")
        }
    }
}
