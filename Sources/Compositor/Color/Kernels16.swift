/// The HDR working signal's pictures (`WorkingSignal.hlg`, `.pq`: 10-bit values in 16-bit
/// samples) and what the blends need of them: fills, copies, turns, weighted mixes, and the
/// 8-bit picture of their top bits that keying decides on (`proxy`). Plain row loops; the HDR
/// output has no speed target (the SDR output's kernels are the lane ones).

/// A colour in video-range Y'CbCr 10-bit.
public struct YUVColor16: Equatable, Sendable {
    public var y: UInt16, u: UInt16, v: UInt16
    public init(y: UInt16, u: UInt16, v: UInt16) { self.y = y; self.u = u; self.v = v }
    public static let black = YUVColor16(y: 64, u: 512, v: 512)

    /// An 8-bit R'G'B' colour given as SDR BT.709 (a key colour, a margin), in `signal`: as an
    /// SDR input is converted to it (its white at 203 nits).
    public init(rgb: RGB, signal: WorkingSignal) {
        let sdr = WorkingSignal.sdr.description, target = signal.description
        let conversion = ColorConversion(from: sdr, to: target)
        let (y, cb, cr) = sdr.matrix.yuv(Double(rgb.r) / 255, Double(rgb.g) / 255, Double(rgb.b) / 255)
        let o = conversion.convert(y, cb, cr)
        let q = ColorConversion.quantise(o.0, o.1, o.2, target)
        func c(_ x: Double) -> UInt16 { UInt16(max(0, min(1023, x.rounded()))) }
        self.init(y: c(q.0), u: c(q.1), v: c(q.2))
    }
}

public enum PlaneKernels16 {
    public static func fill(_ image: YUV16Image, _ color: YUVColor16, in rect: Rect? = nil) {
        let t = rect.map { image.cropped(to: $0) } ?? image
        fillPlane(t.y, color.y); fillPlane(t.u, color.u); fillPlane(t.v, color.v)
    }

    static func fillPlane(_ p: Plane16, _ value: UInt16) {
        for r in 0..<p.height { p.row(r).update(repeating: value, count: p.width) }
    }

    public static func copy(_ src: YUV16Image, into dst: YUV16Image) {
        precondition(src.width == dst.width && src.height == dst.height)
        for (s, d) in [(src.y, dst.y), (src.u, dst.u), (src.v, dst.v)] {
            for r in 0..<s.height { d.row(r).update(from: s.row(r), count: s.width) }
        }
    }

    /// Turns `src` clockwise by 90, 180 or 270 degrees into `dst` (as `PlaneKernels.rotate`).
    public static func rotate(_ src: YUV16Image, clockwise degrees: Int, into dst: YUV16Image) {
        for (s, d) in [(src.y, dst.y), (src.u, dst.u), (src.v, dst.v)] {
            for y in 0..<d.height {
                let out = d.row(y)
                for x in 0..<d.width {
                    switch degrees {
                    case 90: out[x] = s.row(s.height - 1 - x)[y]
                    case 180: out[x] = s.row(s.height - 1 - y)[s.width - 1 - x]
                    case 270: out[x] = s.row(x)[s.width - 1 - y]
                    default: preconditionFailure("rotation must be 90, 180 or 270 degrees")
                    }
                }
            }
        }
    }

    /// out = sum of weights[i] * inputs[i], weights in 1/256ths summing to 256 (`PlaneKernels.fixedPointWeights`).
    public static func mix(_ inputs: [YUV16Image], weights: [Int], into out: YUV16Image) {
        precondition(inputs.count == weights.count && (1...4).contains(inputs.count))
        for plane in [\YUV16Image.y, \YUV16Image.u, \YUV16Image.v] {
            let o = out[keyPath: plane]
            for r in 0..<o.height {
                let row = o.row(r)
                for x in 0..<o.width {
                    var s = 128
                    for i in inputs.indices { s += Int(inputs[i][keyPath: plane].row(r)[x]) * weights[i] }
                    row[x] = UInt16(min(1023, s >> 8))
                }
            }
        }
    }

    /// The 8-bit picture of a 10-bit one (each sample rounded to its top eight bits): the same
    /// signal, what the keyers' mattes are computed on.
    public static func proxy(_ src: YUV16Image, into dst: YUVImage) {
        for (s, d) in [(src.y, dst.y), (src.u, dst.u), (src.v, dst.v)] {
            for r in 0..<s.height {
                let a = s.row(r), b = d.row(r)
                for x in 0..<s.width { b[x] = UInt8(min(255, (Int(a[x]) + 2) >> 2)) }
            }
        }
    }
}

extension Keyer {
    /// Keys a 10-bit `fg` over `bg` into `out` (which may be `bg`): the matte and the screen are
    /// measured on `proxy` (fg's top eight bits, `PlaneKernels16.proxy`), the composite is the
    /// 8-bit one's (`apply`: the pixel minus its screen share, despilled, plus the background's
    /// share) in 10-bit units.
    public func apply(foreground fg: YUV16Image, proxy: YUVImage, background bg: YUV16Image, into out: YUV16Image) {
        let b = computeMatte(proxy)
        let a = b.alphaPlane
        guard settings.view == .composite else {
            let status = settings.view == .status
            for y in 0..<out.height {
                let m = a.row(y), o = out.y.row(y)
                for x in 0..<out.width {
                    let v = Int(m[x])
                    o[x] = UInt16(status ? (v == 255 ? 940 : v == 0 ? 64 : 502) : 64 + (v * 876 + 127) / 255)
                }
            }
            PlaneKernels16.fillPlane(out.u, 512); PlaneKernels16.fillPlane(out.v, 512)
            return
        }
        let screen = b.screen, w = out.width, h = out.height
        @inline(__always) func clamp(_ x: Float) -> UInt16 { UInt16(min(max(x, 0), 1023).rounded()) }
        for cy in 0..<fg.u.height {
            let centre = Double(2 * cy) + 1
            screen.interpolateRow(.y, lumaY: centre, into: b.gridRow)
            screen.interpolateRow(.u, lumaY: centre, into: b.gridRowU)
            screen.interpolateRow(.v, lumaY: centre, into: b.gridRowV)
            screen.interpolateRow(.ratio, lumaY: centre, into: b.gridRowR)
            for y in (2 * cy)..<min(2 * cy + 2, h) {
                let m = a.row(y), p = fg.y.row(y), q = bg.y.row(y), o = out.y.row(y)
                for x in 0..<w {
                    let av = Int(m[x])
                    if av == 255 {
                        o[x] = p[x]
                    } else if av == 0 {
                        o[x] = q[x]
                    } else {
                        let k = Float(255 - av) / 255
                        o[x] = clamp(Float(p[x]) + k * (Float(q[x]) - 4 * screen.at(b.gridRow, x)))
                    }
                }
            }
            let a0 = a.row(2 * cy), a1 = a.row(min(2 * cy + 1, h - 1))
            let fu = fg.u.row(cy), fv = fg.v.row(cy), bu = bg.u.row(cy), bv = bg.v.row(cy), ou = out.u.row(cy), ov = out.v.row(cy)
            for cx in 0..<fg.u.width {
                let x0 = 2 * cx, x1 = min(2 * cx + 1, w - 1)
                let sum = Int(a0[x0]) + Int(a0[x1]) + Int(a1[x0]) + Int(a1[x1])
                if sum == 0 { ou[cx] = bu[cx]; ov[cx] = bv[cx]; continue }
                var u = Float(fu[cx]) - 512, v = Float(fv[cx]) - 512
                // The despill's limit in 10-bit units: four times the 8-bit one (`Despill`).
                let y0 = fg.y.row(2 * cy), y1 = fg.y.row(min(2 * cy + 1, h - 1))
                let luma = Float(Int(y0[x0]) + Int(y0[x1]) + Int(y1[x0]) + Int(y1[x1])) / 4 - 64
                let su = 4 * screen.at(b.gridRowU, x0), sv = 4 * screen.at(b.gridRowV, x0), ratio = screen.at(b.gridRowR, x0)
                if sum == 4 * 255 {
                    despill.apply(u: &u, v: &v, luma: luma * (255 / 219), ratio: ratio, k: 0, su: su, sv: sv)
                } else {
                    let k = Float(4 * 255 - sum) / 1020
                    u -= k * su; v -= k * sv
                    let premultiplied = (luma - k * (4 * screen.at(b.gridRow, x0) - 64)) * (255 / 219)
                    despill.apply(u: &u, v: &v, luma: premultiplied, ratio: ratio, k: k, su: su, sv: sv)
                    u += k * (Float(bu[cx]) - 512); v += k * (Float(bv[cx]) - 512)
                }
                ou[cx] = clamp(u + 512); ov[cx] = clamp(v + 512)
            }
        }
    }
}

extension ChromaKey {
    /// GPUImage's key on 10-bit pictures: alpha from the key's table at the chroma's top eight
    /// bits, the blend at ten.
    public func apply(foreground fg: YUV16Image, background bg: YUV16Image, into out: YUV16Image) {
        let w = fg.width, h = fg.height
        @inline(__always) func mix(_ a: UInt16, _ b: UInt16, _ alpha: Int) -> UInt16 {
            UInt16((Int(a) * (255 - alpha) + Int(b) * alpha + 127) / 255)
        }
        table.withUnsafeBufferPointer { lut in
            for cy in 0..<fg.u.height {
                for cx in 0..<fg.u.width {
                    let a = Int(lut[min(255, (Int(fg.u.row(cy)[cx]) + 2) >> 2) << 8 | min(255, (Int(fg.v.row(cy)[cx]) + 2) >> 2)])
                    out.u.row(cy)[cx] = mix(fg.u.row(cy)[cx], bg.u.row(cy)[cx], a)
                    out.v.row(cy)[cx] = mix(fg.v.row(cy)[cx], bg.v.row(cy)[cx], a)
                    for y in (2 * cy)..<min(2 * cy + 2, h) {
                        for x in (2 * cx)..<min(2 * cx + 2, w) { out.y.row(y)[x] = mix(fg.y.row(y)[x], bg.y.row(y)[x], a) }
                    }
                }
            }
        }
    }
}
