/// Lockstep's chroma keyer, on 4:2:0 planes.
///
/// Per frame:
/// 1. the screen is measured on a coarse grid (`ScreenEstimate`): its colour and strength where
///    it is lit brightly, where it is in shadow;
/// 2. the matte, at luma resolution: chroma is upsampled bilinearly to every luma pixel (H.264's
///    default siting: co-sited across, between rows down), its screen strength (`ColourDifference`)
///    divided by the local screen's gives how much screen the pixel holds; alpha = 1 - that,
///    through the levels (clip black / white), then erode, dilate, feather, garbage and core;
/// 3. the composite, by screen subtraction: the pixel minus (1 - alpha) x the local screen colour
///    is the premultiplied foreground; its spill goes (`Despill`, which keeps luma), and
///    (1 - alpha) x the background is added. An edge pixel thus loses its screen instead of
///    being mixed with it (a plain mix of the pixel and the background leaves a green fringe).
///    Luma at full resolution, each chroma sample with the mean alpha of its four luma pixels.
///
/// Buffers are made once per picture size; a frame allocates nothing. Not thread-safe: one
/// keyer per compositor.
public final class Keyer {
    public let settings: KeyerSettings
    let difference: ColourDifference
    let despill: Despill
    let levels: MatteLevels
    /// The screen colour's strength: what "fully screen" means before the frame is measured.
    let reference: Float
    let fallback: YUVColor
    private var buffers: KeyerBuffers?

    public init(settings: KeyerSettings) {
        self.settings = settings
        difference = ColourDifference(screen: settings.screenColor, balance: settings.screenBalance)
        despill = Despill(screen: settings.screenColor, amount: settings.despill, balance: settings.despillBalance)
        levels = MatteLevels(black: settings.clipBlack, white: settings.clipWhite)
        fallback = YUVColor(rgb: settings.screenColor)
        reference = max(1, difference.strength(of: fallback))
    }

    private func prepare(width: Int, height: Int) -> KeyerBuffers {
        if let b = buffers, b.width == width, b.height == height { return b }
        let b = KeyerBuffers(width: width, height: height, settings: settings)
        buffers = b
        return b
    }

    /// The matte of the last `computeMatte` (255 = foreground), as a plane the keyer owns.
    public var alpha: Plane? { buffers.map { $0.alphaPlane } }

    /// Keys `foreground` over `background` into `out` (which may be `background`, as a stack
    /// keys in place), or writes the matte or status view, as the settings say.
    public func apply(foreground fg: YUVImage, background bg: YUVImage, into out: YUVImage) {
        precondition(fg.width == bg.width && fg.height == bg.height && out.width == fg.width && out.height == fg.height)
        guard settings.view == .composite else {
            writeView(computeMatte(fg).alphaPlane, into: out)
            return
        }
        let b = beginMatte(fg)
        let ch = fg.u.height
        if b.refines {
            // Erode, dilate and feather need the whole matte before any of it is used.
            for cy in 0..<ch { matteRows(cy, b) }
            refine(b)
            for cy in 0..<ch { compositeRows(cy, fg, bg, out, b) }
        } else {
            // One pass: each chroma row's two matte rows are keyed while they are in cache.
            for cy in 0..<ch { matteRows(cy, b); compositeRows(cy, fg, bg, out, b) }
        }
    }

    /// A stack: `layers[1...]` keyed in turn over `layers[0]`. The matte and status views show
    /// all keyed layers' mattes combined (each over the ones below).
    public func applyStack(_ layers: [YUVImage], into out: YUVImage) {
        precondition(layers.count >= 1)
        if settings.view == .composite {
            PlaneKernels.copy(layers[0], into: out)
            for i in 1..<layers.count { apply(foreground: layers[i], background: out, into: out) }
            return
        }
        let b = prepare(width: out.width, height: out.height)
        let total = b.combinedPlane
        PlaneKernels.fillPlane(total, 0)
        for i in 1..<layers.count {
            let a = computeMatte(layers[i]).alphaPlane
            for y in 0..<total.height {
                let t = total.row(y), s = a.row(y)
                for x in 0..<total.width { t[x] = UInt8(truncatingIfNeeded: Int(t[x]) + (Int(s[x]) * (255 - Int(t[x])) + 127) / 255) }
            }
        }
        writeView(total, into: out)
    }

    // MARK: the matte

    /// Measures the screen and computes the matte of `fg` into the keyer's alpha plane.
    @discardableResult
    public func computeMatte(_ fg: YUVImage) -> KeyerBuffers {
        let b = beginMatte(fg)
        for cy in 0..<fg.u.height { matteRows(cy, b) }
        refine(b)
        return b
    }

    /// Measures the screen of `fg` and the screen strength of each of its chroma samples.
    private func beginMatte(_ fg: YUVImage) -> KeyerBuffers {
        let b = prepare(width: fg.width, height: fg.height)
        b.screen.measure(fg, key: difference, reference: reference, fallback: fallback)
        let cw = fg.u.width, ch = fg.u.height
        let key = difference, strength = b.strength
        let ku = key.ku, kv = key.kv, d1u = key.d1u, d1v = key.d1v, d2u = key.d2u, d2v = key.d2v
        // The screen strength is linear in (U, V) (with the primary-is-largest rule and the clamp
        // at 0 on top), so it is computed once per chroma sample here and interpolated to each
        // luma pixel in `matteRows`: the same as keying bilinearly upsampled chroma wherever
        // neighbouring samples are on the same side of that rule, at a quarter of the work.
        // (`ColourDifference.strength`, written out so that the loop vectorises.)
        for cy in 0..<ch {
            let ur = fg.u.row(cy), vr = fg.v.row(cy), sr = strength + cy * cw
            for cx in 0..<cw {
                let u = Float(Int32(ur[cx]) - 128), v = Float(Int32(vr[cx]) - 128)
                let s = ku * u + kv * v
                let e1 = d1u * u + d1v * v, e2 = d2u * u + d2v * v
                sr[cx] = min(e1, e2) > 0 ? max(s, 0) : 0
            }
        }
        return b
    }

    /// Matte rows 2cy and 2cy + 1 (those that exist), from the strengths of `beginMatte`.
    private func matteRows(_ cy: Int, _ b: KeyerBuffers) {
        let w = b.width, h = b.height, cw = (w + 1) / 2, ch = (h + 1) / 2
        let sHalf = b.sHalf, strength = b.strength, invRow = b.invRow, gridRow = b.gridRow
        let levels = self.levels
        // The local screen strength, once per chroma row (it varies over 16 pixels).
        b.screen.interpolateRow(.inverse, lumaY: Double(2 * cy) + 1, into: gridRow)
        b.screen.gatherColumns(gridRow, into: invRow)
        for half in 0..<2 {
            let y = 2 * cy + half
            guard y < h else { break }
            // Luma row 2cy sits a quarter of a chroma row above chroma row cy, 2cy+1 a
            // quarter below.
            let near = strength + cy * cw, far = strength + (half == 0 ? max(cy - 1, 0) : min(cy + 1, ch - 1)) * cw
            for cx in 0..<cw { sHalf[cx] = 0.75 * near[cx] + 0.25 * far[cx] }
            sHalf[cw] = sHalf[cw - 1]
            let out = b.alphaStorage + y * w, sRow = b.sRow
            // Even luma columns sit on a chroma sample, odd ones halfway to the next. (Plain
            // loops over whole rows, which the compiler vectorises.)
            for cx in 0..<(w / 2) {
                sRow[2 * cx] = sHalf[cx]
                sRow[2 * cx + 1] = 0.5 * (sHalf[cx] + sHalf[cx + 1])
            }
            if w % 2 == 1 { sRow[w - 1] = sHalf[cw - 1] }
            for x in 0..<w { out[x] = levels.byte(1 - sRow[x] * invRow[x]) }
        }
    }

    /// Erode, dilate, feather, then the garbage matte (outside: transparent) and the core matte
    /// (inside: opaque).
    private func refine(_ b: KeyerBuffers) {
        let a = b.alphaPlane
        if let m = b.morphology {
            m.erode(a, radius: settings.erode)
            m.dilate(a, radius: settings.dilate)
            m.feather(a, radius: settings.feather)
        }
        let n = a.width * a.height
        if let g = b.garbage {
            g.withUnsafeBufferPointer { g in for i in 0..<n { a.base[i] = min(a.base[i], g[i]) } }
        }
        if let c = b.core {
            c.withUnsafeBufferPointer { c in for i in 0..<n { a.base[i] = max(a.base[i], c[i]) } }
        }
    }

    // MARK: the composite

    /// Luma rows 2cy and 2cy + 1 and chroma row cy of the composite. Runs of eight pixels that
    /// are all foreground or all background are copied; only the edge is computed.
    private func compositeRows(_ cy: Int, _ fg: YUVImage, _ bg: YUVImage, _ out: YUVImage, _ b: KeyerBuffers) {
        let w = b.width, h = b.height, cw = fg.u.width
        let despill = self.despill, alpha = b.alphaStorage
        let rowY = b.gridRow, rowU = b.gridRowU, rowV = b.gridRowV
        let screen = b.screen
        let centre = Double(2 * cy) + 1
        screen.interpolateRow(.y, lumaY: centre, into: rowY)
        screen.interpolateRow(.u, lumaY: centre, into: rowU)
        screen.interpolateRow(.v, lumaY: centre, into: rowV)
        let c0 = screen.column0, c1 = screen.column1, ct = screen.columnT
        @inline(__always) func at(_ row: UnsafeMutablePointer<Float>, _ x: Int) -> Float {
            let g0 = row[Int(c0[x])], g1 = row[Int(c1[x])]
            return g0 + ct[x] * (g1 - g0)
        }
        @inline(__always) func word(_ p: UnsafePointer<UInt8>) -> UInt64 { UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) }
        @inline(__always) func copyWord(_ from: UnsafePointer<UInt8>, _ to: UnsafeMutablePointer<UInt8>) {
            UnsafeMutableRawPointer(to).storeBytes(of: word(from), as: UInt64.self)
        }
        for y in (2 * cy)..<min(2 * cy + 2, h) {
            let a = UnsafePointer(alpha + y * w), p = UnsafePointer(fg.y.row(y)), q = UnsafePointer(bg.y.row(y)), o = out.y.row(y)
            var x = 0
            while x < w {
                if x + 8 <= w {
                    let m = word(a + x)
                    if m == ~0 { copyWord(p + x, o + x); x += 8; continue }
                    if m == 0 { copyWord(q + x, o + x); x += 8; continue }
                }
                for x in x..<min(x + 8, w) {
                    let av = a[x]
                    if av == 255 { o[x] = p[x] } else if av == 0 { o[x] = q[x] } else {
                        let k = Float(255 - Int(av)) * (1 / 255)
                        o[x] = clampByte(Float(p[x]) + k * (Float(q[x]) - at(rowY, x)))
                    }
                }
                x += 8
            }
        }
        let a0 = UnsafePointer(alpha + 2 * cy * w), a1 = UnsafePointer(alpha + min(2 * cy + 1, h - 1) * w)
        let fu = fg.u.row(cy), fv = fg.v.row(cy), bu = UnsafePointer(bg.u.row(cy)), bv = UnsafePointer(bg.v.row(cy))
        let ou = out.u.row(cy), ov = out.v.row(cy)
        var cx = 0
        while cx < cw {
            if 2 * cx + 8 <= w {
                let m0 = word(a0 + 2 * cx), m1 = word(a1 + 2 * cx)
                // Eight luma columns (four chroma samples) of both rows all background: a copy.
                if m0 == 0 && m1 == 0 {
                    UnsafeMutableRawPointer(ou + cx).storeBytes(of: UnsafeRawPointer(bu + cx).loadUnaligned(as: UInt32.self), as: UInt32.self)
                    UnsafeMutableRawPointer(ov + cx).storeBytes(of: UnsafeRawPointer(bv + cx).loadUnaligned(as: UInt32.self), as: UInt32.self)
                    cx += 4
                    continue
                }
                // All foreground: the run of such samples loses its spill, in one plain loop.
                if m0 == ~0 && m1 == ~0 {
                    var end = cx + 4
                    while 2 * end + 8 <= w && word(a0 + 2 * end) == ~0 && word(a1 + 2 * end) == ~0 { end += 4 }
                    for i in cx..<end {
                        var u = Float(fu[i]) - 128, v = Float(fv[i]) - 128
                        despill.apply(u: &u, v: &v)
                        ou[i] = clampByte(u + 128); ov[i] = clampByte(v + 128)
                    }
                    cx = end
                    continue
                }
            }
            for cx in cx..<min(cx + 4, cw) {
                let x0 = 2 * cx, x1 = min(2 * cx + 1, w - 1)
                let sum = Int(a0[x0]) + Int(a0[x1]) + Int(a1[x0]) + Int(a1[x1])
                if sum == 0 { ou[cx] = bu[cx]; ov[cx] = bv[cx]; continue }
                var u = Float(fu[cx]) - 128, v = Float(fv[cx]) - 128
                if sum == 4 * 255 {
                    despill.apply(u: &u, v: &v)
                } else {
                    let k = Float(4 * 255 - sum) * (1 / 1020)
                    u -= k * at(rowU, x0); v -= k * at(rowV, x0)
                    despill.apply(u: &u, v: &v)
                    u += k * (Float(bu[cx]) - 128); v += k * (Float(bv[cx]) - 128)
                }
                ou[cx] = clampByte(u + 128); ov[cx] = clampByte(v + 128)
            }
            cx += 4
        }
    }

    /// The matte (white = foreground, video range) or the status view, in grey.
    private func writeView(_ alpha: Plane, into out: YUVImage) {
        let status = settings.view == .status
        for y in 0..<out.height {
            let a = alpha.row(y), o = out.y.row(y)
            for x in 0..<out.width {
                let v = Int(a[x])
                o[x] = status ? (v == 255 ? 235 : v == 0 ? 16 : 128) : UInt8(truncatingIfNeeded: 16 + (v * 219 + 127) / 255)
            }
        }
        PlaneKernels.fillPlane(out.u, 128)
        PlaneKernels.fillPlane(out.v, 128)
    }
}

/// x clamped to 0...255 and rounded (half to even), without Int32(_:)'s range check (see MatteLevels.byte).
@inline(__always) func clampByte(_ x: Float) -> UInt8 {
    UInt8(truncatingIfNeeded: (min(max(x, 0), 255) + 12_582_912).bitPattern)
}

/// Everything a keyer needs for one picture size, made once.
public final class KeyerBuffers {
    public let width: Int, height: Int
    let screen: ScreenEstimate
    let morphology: MatteMorphology?
    let garbage: [UInt8]?, core: [UInt8]?
    /// Whether the matte is changed after it is keyed (erode, dilate, feather, garbage, core).
    let refines: Bool
    let alphaStorage: UnsafeMutablePointer<UInt8>
    private let combinedStorage: UnsafeMutablePointer<UInt8>
    /// One luma row's strength at chroma resolution and per pixel, and its local screen's
    /// 1 / strength per pixel.
    let sHalf: UnsafeMutablePointer<Float>, sRow: UnsafeMutablePointer<Float>, invRow: UnsafeMutablePointer<Float>
    /// The screen strength of every chroma sample.
    let strength: UnsafeMutablePointer<Float>
    let gridRow: UnsafeMutablePointer<Float>, gridRowU: UnsafeMutablePointer<Float>, gridRowV: UnsafeMutablePointer<Float>

    init(width: Int, height: Int, settings: KeyerSettings) {
        self.width = width; self.height = height
        screen = ScreenEstimate(width: width, height: height)
        let radius = max(settings.erode, settings.dilate, settings.feather)
        morphology = radius > 0 ? MatteMorphology(width: width, height: height, radius: radius) : nil
        garbage = settings.garbage.map { GarbageMatte.mask($0, width: width, height: height) }
        core = settings.core.map { GarbageMatte.mask($0, width: width, height: height) }
        refines = morphology != nil || garbage != nil || core != nil
        alphaStorage = .allocate(capacity: width * height); alphaStorage.initialize(repeating: 0, count: width * height)
        combinedStorage = .allocate(capacity: width * height); combinedStorage.initialize(repeating: 0, count: width * height)
        let cw = (width + 1) / 2
        sHalf = .allocate(capacity: cw + 1); sRow = .allocate(capacity: width); invRow = .allocate(capacity: width)
        strength = .allocate(capacity: cw * ((height + 1) / 2))
        gridRow = .allocate(capacity: screen.gridWidth); gridRowU = .allocate(capacity: screen.gridWidth); gridRowV = .allocate(capacity: screen.gridWidth)
    }

    deinit {
        alphaStorage.deallocate(); combinedStorage.deallocate()
        sHalf.deallocate(); sRow.deallocate(); invRow.deallocate(); strength.deallocate()
        gridRow.deallocate(); gridRowU.deallocate(); gridRowV.deallocate()
    }

    /// The matte: 255 = foreground. Its views keep these buffers alive.
    public var alphaPlane: Plane { Plane(base: alphaStorage, stride: width, width: width, height: height, owner: self) }
    var combinedPlane: Plane { Plane(base: combinedStorage, stride: width, width: width, height: height, owner: self) }
}
