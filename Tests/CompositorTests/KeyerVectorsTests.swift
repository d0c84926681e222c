import XCTest

@testable import Compositor

/// The keyer's lane kernels (`KeyerVectors`) against the keyer written one pixel at a time, as it
/// was before the lanes: matte and composite must be the same bytes, on pictures whose widths
/// put pixels both in the eight-lane blocks and in the scalar tails.
final class KeyerVectorsTests: XCTestCase {
    /// A soft-edged disc of subject on an unevenly lit green screen, with noise (deterministic).
    func plates(_ w: Int, _ h: Int) -> (fg: YUVBuffer, bg: YUVBuffer) {
        let fg = YUVBuffer(width: w, height: h), bg = YUVBuffer(width: w, height: h)
        var seed: UInt32 = 2_463_534_242
        func noise(_ n: Int) -> Double { seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5; return Double(Int(seed % UInt32(2 * n + 1)) - n) }
        func cover(_ x: Double, _ y: Double) -> Double {
            let d = ((x - Double(w) / 2) * (x - Double(w) / 2) + (y - Double(h) / 2) * (y - Double(h) / 2)).squareRoot()
            return min(max((Double(min(w, h)) * 0.35 - d) / 3, 0), 1)  // 1 = subject
        }
        func byte(_ v: Double) -> UInt8 { UInt8(min(max(v.rounded(), 0), 255)) }
        for y in 0..<h {
            for x in 0..<w {
                let t = cover(Double(x) + 0.5, Double(y) + 0.5), light = 0.7 + 0.3 * Double(x) / Double(w)
                fg.image.y[x, y] = byte(t * 150 + (1 - t) * 145 * light + noise(3))
                bg.image.y[x, y] = UInt8((x * 7 + y * 3) & 255)
            }
        }
        for y in 0..<fg.image.u.height {
            for x in 0..<fg.image.u.width {
                let t = cover(2 * Double(x) + 0.5, 2 * Double(y) + 1)
                fg.image.u[x, y] = byte(t * 118 + (1 - t) * 54 + noise(2))
                fg.image.v[x, y] = byte(t * 150 + (1 - t) * 34 + noise(2))
                bg.image.u[x, y] = UInt8((x * 5 + y) & 255); bg.image.v[x, y] = UInt8((x + 9 * y) & 255)
            }
        }
        return (fg, bg)
    }

    /// The matte and composite one pixel at a time, from the keyer's own screen estimate.
    func reference(_ keyer: Keyer, _ fg: YUVImage, _ bg: YUVImage) -> (alpha: [UInt8], out: YUVBuffer) {
        let w = fg.width, h = fg.height, cw = fg.u.width, ch = fg.u.height
        let screen = keyer.computeMatte(fg).screen
        let grid = UnsafeMutablePointer<Float>.allocate(capacity: 5 * screen.gridWidth)
        defer { grid.deallocate() }
        let gy = grid + screen.gridWidth, gu = gy + screen.gridWidth, gv = gu + screen.gridWidth, gr = gv + screen.gridWidth
        func strength(_ cx: Int, _ cy: Int) -> Float {
            keyer.difference.strength(u: Float(Int(fg.u[cx, cy]) - 128), v: Float(Int(fg.v[cx, cy]) - 128))
        }
        // The core matte: far from the local screen's chroma (at the sample's even luma column,
        // its chroma row's centre), with the four neighbours far too.
        var far = [[UInt8]](repeating: [UInt8](repeating: 0, count: cw), count: ch)
        for cy in 0..<ch {
            screen.interpolateRow(.u, lumaY: Double(2 * cy) + 1, into: gu)
            screen.interpolateRow(.v, lumaY: Double(2 * cy) + 1, into: gv)
            for cx in 0..<cw {
                let su = screen.at(gu, 2 * cx), sv = screen.at(gv, 2 * cx)
                let du = Float(Int(fg.u[cx, cy]) - 128) - su, dv = Float(Int(fg.v[cx, cy]) - 128) - sv
                let ss = keyer.coreClip2 * (su * su + sv * sv)
                far[cy][cx] = clampByte((du * du + dv * dv - ss) * 255 / max(3 * ss, 1e-6))
            }
        }
        func core(_ cx: Int, _ cy: Int) -> UInt8 {
            guard keyer.coreClip2 > 0 else { return 0 }
            return min(far[cy][cx], far[cy][max(cx - 1, 0)], far[cy][min(cx + 1, cw - 1)], far[max(cy - 1, 0)][cx], far[min(cy + 1, ch - 1)][cx])
        }
        var alpha = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            let cy = y / 2, far = y % 2 == 0 ? max(cy - 1, 0) : min(cy + 1, ch - 1)
            screen.interpolateRow(.inverse, lumaY: Double(2 * cy) + 1, into: grid)
            screen.interpolateRow(.allowance, lumaY: Double(2 * cy) + 1, into: gy)
            let half = (0...cw).map { c in 0.75 * strength(min(c, cw - 1), cy) + 0.25 * strength(min(c, cw - 1), far) }
            for x in 0..<w {
                // Each sample centred between its two columns: a quarter of the way to the next one out.
                let s = 0.75 * half[x / 2] + 0.25 * half[x % 2 == 0 ? max(x / 2 - 1, 0) : x / 2 + 1]
                // Less the spill cast the pixel's luma carries (`ScreenEstimate.finish`).
                let l = max(Float(Int32(fg.y[x, y]) - 16), 0)
                alpha[y * w + x] = max(keyer.levels.byte(1 - (s * screen.at(grid, x) - l * screen.at(gy, x))), core(x / 2, cy))
            }
        }
        let out = YUVBuffer(width: w, height: h), o = out.image
        for cy in 0..<ch {
            screen.interpolateRow(.y, lumaY: Double(2 * cy) + 1, into: gy)
            screen.interpolateRow(.u, lumaY: Double(2 * cy) + 1, into: gu)
            screen.interpolateRow(.v, lumaY: Double(2 * cy) + 1, into: gv)
            screen.interpolateRow(.ratio, lumaY: Double(2 * cy) + 1, into: gr)
            for y in (2 * cy)..<min(2 * cy + 2, h) {
                for x in 0..<w {
                    let a = alpha[y * w + x], p = fg.y[x, y], q = bg.y[x, y]
                    let k = Float(255 - Int(a)) * (1 / 255)
                    o.y[x, y] = a == 255 ? p : a == 0 ? q : clampByte(Float(p) + k * (Float(q) - screen.at(gy, x)))
                }
            }
            for cx in 0..<cw {
                let x0 = 2 * cx, x1 = min(2 * cx + 1, w - 1), y1 = min(2 * cy + 1, h - 1)
                let sum = Int(alpha[2 * cy * w + x0]) + Int(alpha[2 * cy * w + x1]) + Int(alpha[y1 * w + x0]) + Int(alpha[y1 * w + x1])
                if sum == 0 { o.u[cx, cy] = bg.u[cx, cy]; o.v[cx, cy] = bg.v[cx, cy]; continue }
                let k = Float(1020 - sum) * (1 / 1020)
                var u = Float(fg.u[cx, cy]) - 128, v = Float(fg.v[cx, cy]) - 128
                let su = screen.at(gu, x0), sv = screen.at(gv, x0)
                u -= k * su; v -= k * sv
                // The despill's limit: from the premultiplied luma (luma above black less the
                // screen's share), in R'G'B' units.
                let luma = Float(Int32(fg.y[x0, 2 * cy]) + Int32(fg.y[x1, 2 * cy]) + Int32(fg.y[x0, y1]) + Int32(fg.y[x1, y1])) * 0.25
                let premultiplied = ((luma - 16) - k * (screen.at(gy, x0) - 16)) * (255 / 219)
                keyer.despill.apply(u: &u, v: &v, luma: premultiplied, ratio: screen.at(gr, x0), k: k, su: su, sv: sv)
                u += k * (Float(bg.u[cx, cy]) - 128); v += k * (Float(bg.v[cx, cy]) - 128)
                o.u[cx, cy] = clampByte(u + 128); o.v[cx, cy] = clampByte(v + 128)
            }
        }
        return (alpha, out)
    }

    func bytes(_ p: Plane) -> [UInt8] { (0..<p.height).flatMap { y in (0..<p.width).map { p[$0, y] } } }

    func testLanesGiveTheSameBytesAsOnePixelAtATime() {
        var clipped = KeyerSettings(); clipped.clipBlack = 0.2; clipped.clipWhite = 0.8; clipped.despill = 0.6; clipped.spillCast = 0.3
        // Green subjects: the core matte and the despill's limit on (the disc is far from the screen's chroma).
        var green = KeyerSettings(); green.greenSubjects = .yes
        // 160 and 130 wide: eight grid cells or more, so the screen's row interpolation runs on lanes too.
        for (w, h) in [(64, 36), (53, 21), (50, 19), (33, 17), (160, 40), (130, 37)] {
            for settings in [KeyerSettings(), clipped, green] {
                let (fg, bg) = plates(w, h)
                let keyer = Keyer(settings: settings), out = YUVBuffer(width: w, height: h)
                keyer.apply(foreground: fg.image, background: bg.image, into: out.image)
                let matte = bytes(keyer.computeMatte(fg.image).alphaPlane)
                let (alpha, expected) = reference(keyer, fg.image, bg.image)
                XCTAssertEqual(matte, alpha, "matte \(w)x\(h)")
                // The picture has all three kinds of pixel, so every path ran.
                XCTAssertTrue(alpha.contains(0) && alpha.contains(255) && alpha.contains { $0 != 0 && $0 != 255 }, "\(w)x\(h)")
                for (got, want, name) in [(out.image.y, expected.image.y, "Y"), (out.image.u, expected.image.u, "U"), (out.image.v, expected.image.v, "V")] {
                    XCTAssertEqual(bytes(got), bytes(want), "\(name) \(w)x\(h)")
                }
            }
        }
    }

    /// The lane kernel writes 0 or 255 without the levels for blocks past these cuts, so every
    /// screen share past a cut must give that byte, and the cuts must sit within a twentieth of
    /// a step of where `byte` changes (or the kernel would skip little).
    func testTheCutsAreWhereTheLevelsGiveZeroAndFull() {
        for (black, white) in [(0.05, 0.95), (0.0, 1.0), (0.2, 0.8), (0.3, 0.35), (0.0, 0.01)] {
            let levels = MatteLevels(black: black, white: white)
            let step = Float((white - black) / 255)
            var p = levels.transparentFrom
            for _ in 0..<20_000 { XCTAssertEqual(levels.byte(1 - p), 0, "\(black)/\(white) p \(p)"); p = p.nextUp }
            p = levels.opaqueUpTo
            for _ in 0..<20_000 { XCTAssertEqual(levels.byte(1 - p), 255, "\(black)/\(white) p \(p)"); p = p.nextDown }
            XCTAssertNotEqual(levels.byte(1 - (levels.transparentFrom - 0.05 * step)), 0, "\(black)/\(white)")
            XCTAssertNotEqual(levels.byte(1 - (levels.opaqueUpTo + 0.05 * step)), 255, "\(black)/\(white)")
            for p in stride(from: levels.transparentFrom, through: 3, by: 0.0137) { XCTAssertEqual(levels.byte(1 - p), 0) }
            for p in stride(from: levels.opaqueUpTo, through: -2, by: -0.0137) { XCTAssertEqual(levels.byte(1 - p), 255) }
        }
    }

    /// The one-pass composite keeps two matte rows in a ring; a composite that refines the
    /// matte keeps the whole plane. A garbage matte over the whole picture refines nothing, so
    /// both must give the same bytes, at every size (odd heights: the last chroma row has one
    /// luma row).
    func testTheTwoRowRingGivesTheSameCompositeAsTheWholeMatte() {
        var whole = KeyerSettings(); whole.garbage = .rect(x: 0, y: 0, width: 1, height: 1)
        var clipped = KeyerSettings(); clipped.clipBlack = 0.2; clipped.clipWhite = 0.8; clipped.despill = 0.6
        var clippedWhole = clipped; clippedWhole.garbage = whole.garbage
        for (w, h) in [(64, 36), (53, 21), (50, 19), (33, 17), (160, 40), (130, 37)] {
            for (ring, plane) in [(KeyerSettings(), whole), (clipped, clippedWhole)] {
                let (fg, bg) = plates(w, h)
                let a = YUVBuffer(width: w, height: h), b = YUVBuffer(width: w, height: h)
                Keyer(settings: ring).apply(foreground: fg.image, background: bg.image, into: a.image)
                Keyer(settings: plane).apply(foreground: fg.image, background: bg.image, into: b.image)
                for (x, y, name) in [(a.image.y, b.image.y, "Y"), (a.image.u, b.image.u, "U"), (a.image.v, b.image.v, "V")] {
                    XCTAssertEqual(bytes(x), bytes(y), "\(name) \(w)x\(h)")
                }
                // In place (a stack keys into its background): the same bytes again.
                let c = YUVBuffer(width: w, height: h)
                PlaneKernels.copy(bg.image, into: c.image)
                Keyer(settings: ring).apply(foreground: fg.image, background: c.image, into: c.image)
                XCTAssertEqual(bytes(c.image.y) + bytes(c.image.u) + bytes(c.image.v), bytes(b.image.y) + bytes(b.image.u) + bytes(b.image.v), "in place \(w)x\(h)")
            }
        }
    }

    /// The screen measurement (lanes over 32 luma columns at a time, cells summed four at a
    /// time) against every measured sample added one at a time: each cell that stays screen
    /// must hold exactly the weighted means of its samples, and a cell with no sample over the
    /// threshold must be empty.
    func testTheScreenMeasuredOnLanesIsEverySampleAddedInTurn() {
        var notScreen = 0
        for (w, h) in [(160, 120), (160, 40), (130, 37), (64, 36), (33, 17)] {
            let (fg, _) = plates(w, h)
            let image = fg.image
            let keyer = Keyer(settings: KeyerSettings())
            let screen = keyer.computeMatte(image).screen
            let cells = screen.cells, gridWidth = screen.gridWidth
            var weight = [Float](repeating: 0, count: cells), sy = weight, su = weight, sv = weight
            let threshold = 0.15 * keyer.reference, inverseReference = 1 / keyer.reference
            // Every other chroma sample both ways; 8 x 8 chroma samples per cell.
            for cy in stride(from: 0, to: image.u.height, by: 2) {
                for cx in stride(from: 0, to: image.u.width, by: 2) {
                    let u = Float(Int(image.u[cx, cy]) - 128), v = Float(Int(image.v[cx, cy]) - 128)
                    let s = keyer.difference.strength(u: u, v: v)
                    guard s > threshold else { continue }
                    let x0 = 2 * cx, x1 = min(2 * cx + 1, w - 1), y0 = 2 * cy, y1 = min(2 * cy + 1, h - 1)
                    let luma = Float(Int(image.y[x0, y0]) + Int(image.y[x1, y0]) + Int(image.y[x0, y1]) + Int(image.y[x1, y1])) * 0.25
                    let t = s * inverseReference * ScreenEstimate.ratio(strength: s, luma: luma), t2 = t * t, wgt = t2 * t2
                    let i = (cy / ScreenEstimate.cell) * gridWidth + cx / ScreenEstimate.cell
                    weight[i] += wgt; sy[i] += wgt * luma; su[i] += wgt * u; sv[i] += wgt * v
                }
            }
            var compared = 0
            for i in 0..<cells {
                if weight[i] == 0 { XCTAssertEqual(screen.weight[i], 0, "cell \(i), \(w)x\(h)") }
                guard screen.weight[i] > 0 else { continue }
                XCTAssertEqual(screen.sy[i], sy[i] / weight[i], "Y of cell \(i), \(w)x\(h)")
                XCTAssertEqual(screen.su[i], su[i] / weight[i], "U of cell \(i), \(w)x\(h)")
                XCTAssertEqual(screen.sv[i], sv[i] / weight[i], "V of cell \(i), \(w)x\(h)")
                compared += 1
            }
            XCTAssertGreaterThan(compared, 0, "\(w)x\(h)")
            notScreen += cells - compared
        }
        // On 160x120 the subject covers whole cells: the empty-cell side was checked too.
        XCTAssertGreaterThan(notScreen, 0)
    }

    /// The matte's temporal filter (`KeyerVectors.smoothRow`) against the filter one pixel at a
    /// time: a row of 40 (two blocks of sixteen and a tail) in which one pixel differs from its
    /// history, at every position in turn, each of the sixteen bytes of a block (both of the
    /// 64-bit words it is compared as) and the tail; the rest of the row equals its history and
    /// is left as it was, and the luma always becomes the history.
    func testTheMatteFilterTakesEveryPixelThatDiffersFromItsHistory() {
        let w = 40, keep: Float = 0.6
        func filtered(_ a: UInt8, _ l: UInt8, _ ha: UInt8, _ hl: UInt8) -> UInt8 {
            let av = Float(a), hav = Float(ha)
            let diff: Float = abs(Float(l) - Float(hl)), jump: Float = abs(av - hav)
            let byLuma: Float = min(max((diff - 6) * (1 / 10), 0), 1), byMatte: Float = min(max((jump - 64) * (1 / 64), 0), 1)
            let k: Float = keep * (1 - max(byLuma, byMatte))
            let x: Float = av + k * (hav - av)
            return UInt8(x.rounded(.toNearestOrEven))
        }
        for at in 0..<w {
            for (now, before, lumaMove) in [(UInt8(200), UInt8(100), UInt8(3)), (10, 90, 9), (255, 0, 0), (60, 70, 30)] {
                var alpha = (0..<w).map { UInt8(truncatingIfNeeded: 37 * $0 + 11) }, history = alpha
                let luma = (0..<w).map { UInt8(truncatingIfNeeded: 101 + 3 * $0) }
                var historyLuma = luma.map { $0 &- 1 }
                alpha[at] = now; history[at] = before; historyLuma[at] = luma[at] &- lumaMove
                let want = filtered(now, luma[at], before, historyLuma[at])
                var expected = alpha
                expected[at] = want
                KeyerVectors.smoothRow(alpha: &alpha, luma: luma, history: &history, historyLuma: &historyLuma, width: w, keep: keep)
                XCTAssertEqual(alpha, expected, "pixel \(at), \(now) after \(before)")
                XCTAssertEqual(history, expected, "the history holds the filtered matte, pixel \(at)")
                XCTAssertEqual(historyLuma, luma, "pixel \(at)")
            }
        }
    }

    /// A deterministic stream of numbers for the row tests below.
    struct Numbers {
        var seed: UInt64
        mutating func next() -> UInt64 { seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return seed >> 33 }
        mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
        mutating func unit() -> Float { Float(next() % 1_000_001) / 1_000_000 }
    }

    /// The AVX2 blocks of `strengthRow` (`cvec_strength_row_avx2`, KeyerRows.h) against the
    /// eight-lane Swift: the same Float bits for every sample, on green, blue and red screens,
    /// both caps and three balances, at counts that leave tails of every length.
    func testTheAVX2StrengthRowIsTheLanesBitForBit() throws {
        try XCTSkipUnless(KeyerVectors.avx2, "no AVX2 on this processor")
        var n = Numbers(seed: 7)
        for screen in [RGB(r: 0, g: 255, b: 0), RGB(r: 38, g: 133, b: 53), RGB(r: 0, g: 0, b: 255), RGB(r: 255, g: 20, b: 0)] {
            for (balance, cap) in [(0.5, 2.0), (0.0, 1.0), (0.8, 2.0)] {
                let key = ColourDifference(screen: screen, balance: balance, cap: cap)
                for count in [1, 7, 8, 9, 16, 23, 64, 965] {
                    let u = (0..<count).map { _ in n.byte() }, v = (0..<count).map { _ in n.byte() }
                    var lanes = [Float](repeating: -1, count: count), avx2 = lanes
                    KeyerVectors.strengthRow(u: u, v: v, count: count, key: key, into: &lanes, avx2: false)
                    KeyerVectors.strengthRow(u: u, v: v, count: count, key: key, into: &avx2, avx2: true)
                    XCTAssertEqual(avx2.map(\.bitPattern), lanes.map(\.bitPattern), "\(screen) \(balance) \(cap) \(count)")
                    if count > 100 { XCTAssertTrue(lanes.contains(0) && lanes.contains { $0 > 0 }, "both sides of the clamp, \(count)") }
                }
            }
        }
    }

    /// The AVX2 blocks of `matteRow` (`cvec_matte_row_avx2`) against the eight-lane Swift: the same
    /// bytes, on rows whose blocks of sixteen are in turn foreground runs (strength 0), plain
    /// screen, screen within a hair of the cuts, and anything, with no core matte and with core
    /// flags that are all 0, all 255 or mixed per block, at four pairs of levels and widths whose
    /// tails are 0 to 15 pixels.
    func testTheAVX2MatteRowIsTheLanesByteForByte() throws {
        try XCTSkipUnless(KeyerVectors.avx2, "no AVX2 on this processor")
        var n = Numbers(seed: 11)
        var written = Set<UInt8>()
        for (black, white) in [(0.05, 0.95), (0.0, 1.0), (0.2, 0.8), (0.3, 0.35)] {
            let levels = MatteLevels(black: black, white: white)
            for w in [16, 17, 31, 48, 63, 160, 301, 1920] {
                let cw = (w + 1) / 2
                // The strength of the chroma row and of the next one (the kernel mixes them 3:1).
                var near = [Float](repeating: 0, count: cw), far = near
                var inverseEven = near, inverseOdd = near, allowanceEven = near, allowanceOdd = near
                var coreFlags = [UInt8](repeating: 0, count: cw)
                let luma = (0..<w).map { _ in n.byte() }
                for c in 0..<cw {
                    // Eight chroma samples (sixteen pixels) share a kind.
                    let screen: Float = 40 + 30 * n.unit()
                    let s: Float
                    switch (c / 8) % 5 {
                    case 0: s = 0
                    case 1: s = screen
                    case 2: s = screen * (1 - Float(black) + (n.unit() - 0.5) * 0.01)
                    case 3: s = screen * (1 - Float(white) + (n.unit() - 0.5) * 0.01)
                    default: s = n.unit() < 0.2 ? 0 : screen * n.unit() * 1.3
                    }
                    near[c] = s; far[c] = s == 0 ? 0 : s * (1 + 0.01 * n.unit())
                    inverseEven[c] = 1 / screen; inverseOdd[c] = 1 / (screen + n.unit())
                    allowanceEven[c] = n.unit() < 0.5 ? 0 : 0.001 * n.unit(); allowanceOdd[c] = 0.001 * n.unit()
                    coreFlags[c] = [0, 255, n.byte()][(c / 8 + Int(n.next() % 2)) % 3]
                }
                for withCore in [false, true] {
                    func key(avx2: Bool) -> [UInt8] {
                        var out = [UInt8](repeating: 7, count: w), sHalf = [Float](repeating: -1, count: cw + 2)
                        sHalf.withUnsafeMutableBufferPointer { s in
                            coreFlags.withUnsafeBufferPointer { core in
                                KeyerVectors.matteRow(
                                    near: near, far: far, inverseEven: inverseEven, inverseOdd: inverseOdd,
                                    allowanceEven: allowanceEven, allowanceOdd: allowanceOdd, luma: luma, sHalf: s.baseAddress! + 1,
                                    width: w, levels: levels, core: withCore ? core.baseAddress : nil, into: &out, avx2: avx2)
                            }
                        }
                        return out
                    }
                    let lanes = key(avx2: false)
                    XCTAssertEqual(key(avx2: true), lanes, "\(black)/\(white) width \(w) core \(withCore)")
                    written.formUnion(lanes)
                }
            }
        }
        // Transparent, opaque and in-between bytes were all written.
        XCTAssertTrue(written.contains(0) && written.contains(255) && written.count > 100, "\(written.count) values")
    }

    /// The AVX2 blocks of `ScreenEstimate.spreadRow` (`cvec_spread_row_avx2`) against the
    /// eight-lane Swift: the same Float bits at every even and odd column.
    func testTheAVX2SpreadRowIsTheLanesBitForBit() throws {
        try XCTSkipUnless(KeyerVectors.avx2, "no AVX2 on this processor")
        var n = Numbers(seed: 5)
        for w in [16, 30, 33, 160, 302, 1920] {
            let screen = ScreenEstimate(width: w, height: 64)
            let row = (0..<screen.gridWidth).map { _ in 200 * n.unit() - 50 }
            let cw = (w + 1) / 2
            var even = [Float](repeating: -1, count: cw), odd = even, evenAVX2 = even, oddAVX2 = even
            screen.spreadRow(row, even: &even, odd: &odd, avx2: false)
            screen.spreadRow(row, even: &evenAVX2, odd: &oddAVX2, avx2: true)
            XCTAssertEqual(evenAVX2.map(\.bitPattern), even.map(\.bitPattern), "even, width \(w)")
            XCTAssertEqual(oddAVX2.map(\.bitPattern), odd.map(\.bitPattern), "odd, width \(w)")
        }
    }

    /// The AVX2 blocks of `smoothRow` (`cvec_smooth_row_avx2`) against the eight-lane Swift: the
    /// same matte, history and luma history, on rows whose blocks are unchanged, changed a little,
    /// changed by a jump, or anything, with the luma still, moved within the gate or past it.
    func testTheAVX2MatteFilterIsTheLanesByteForByte() throws {
        try XCTSkipUnless(KeyerVectors.avx2, "no AVX2 on this processor")
        var n = Numbers(seed: 3)
        var changed = 0
        for w in [16, 17, 40, 64, 333, 1920] {
            for keep: Float in [0, 0.6, 0.9] {
                let history = (0..<w).map { _ in n.byte() }, historyLuma = (0..<w).map { _ in n.byte() }
                var alpha = history, luma = historyLuma
                for x in 0..<w {
                    switch (x / 16 + Int(n.next() % 3)) % 4 {
                    case 0: break
                    case 1: alpha[x] = alpha[x] &+ UInt8(n.next() % 9); luma[x] = luma[x] &+ UInt8(n.next() % 20)
                    case 2: alpha[x] = alpha[x] &+ (100 + UInt8(n.next() % 60))
                    default: alpha[x] = n.byte(); luma[x] = n.byte()
                    }
                }
                func filter(avx2: Bool) -> [UInt8] {
                    var a = alpha, ha = history, hl = historyLuma
                    KeyerVectors.smoothRow(alpha: &a, luma: luma, history: &ha, historyLuma: &hl, width: w, keep: keep, avx2: avx2)
                    return a + ha + hl
                }
                let lanes = filter(avx2: false)
                XCTAssertEqual(filter(avx2: true), lanes, "width \(w) keep \(keep)")
                changed += zip(lanes.prefix(w), alpha).filter { $0 != $1 }.count
            }
        }
        XCTAssertGreaterThan(changed, 100, "the filter moved pixels")
    }

    /// The AVX2 blocks of `compositeLuma` (`cvec_composite_luma_avx2`, KeyerComposite.h) against
    /// the eight-lane Swift: the same bytes, on rows whose blocks of sixteen are in turn all
    /// subject, all background, mixed with 0 and 255 among them, or anything, at widths whose
    /// tails are 0 to 15 pixels; into a separate row and in place (into the background's row, as
    /// a stack keys).
    func testTheAVX2CompositeLumaIsTheLanesByteForByte() throws {
        try XCTSkipUnless(KeyerVectors.avx2, "no AVX2 on this processor")
        var n = Numbers(seed: 13)
        var mixed = 0
        for w in [16, 17, 31, 48, 160, 333, 1920] {
            let screen = ScreenEstimate(width: w, height: 64)
            let screenY = (0..<screen.gridWidth).map { _ in 16 + 200 * n.unit() }
            let kinds = (0..<((w + 15) / 16)).map { _ in n.next() % 4 }
            let alpha = (0..<w).map { x -> UInt8 in
                switch kinds[x / 16] {
                case 0: return 255
                case 1: return 0
                case 2: return [0, 255, n.byte()][Int(n.next() % 3)]
                default: return n.byte()
                }
            }
            let p = (0..<w).map { _ in n.byte() }, q = (0..<w).map { _ in n.byte() }
            func composite(avx2: Bool, inPlace: Bool) -> [UInt8] {
                var out = inPlace ? q : [UInt8](repeating: 7, count: w)
                if inPlace {
                    out.withUnsafeMutableBufferPointer { o in
                        KeyerVectors.compositeLuma(
                            alpha: alpha, foreground: p, background: o.baseAddress!, into: o.baseAddress!, width: w, screenY: screenY,
                            screen: screen, avx2: avx2)
                    }
                } else {
                    KeyerVectors.compositeLuma(
                        alpha: alpha, foreground: p, background: q, into: &out, width: w, screenY: screenY, screen: screen, avx2: avx2)
                }
                return out
            }
            for inPlace in [false, true] {
                let lanes = composite(avx2: false, inPlace: inPlace)
                XCTAssertEqual(composite(avx2: true, inPlace: inPlace), lanes, "width \(w) in place \(inPlace)")
                mixed += zip(lanes, zip(p, q)).filter { $0 != $1.0 && $0 != $1.1 }.count
            }
        }
        XCTAssertGreaterThan(mixed, 100, "edge pixels were computed")
    }

    /// The AVX2 blocks of `compositeChroma` (`cvec_composite_chroma_avx2`, KeyerComposite.h)
    /// against the eight-lane Swift: the same bytes, on rows whose blocks of eight samples are
    /// in turn all subject, all background, mixed or anything, with the despill limited (green
    /// subjects, two casts and amounts, a blue screen) and unlimited, at widths whose tails are 0
    /// to 15 pixels; into separate rows and in place.
    func testTheAVX2CompositeChromaIsTheLanesByteForByte() throws {
        try XCTSkipUnless(KeyerVectors.avx2, "no AVX2 on this processor")
        var n = Numbers(seed: 17)
        let green = RGB(r: 0, g: 255, b: 0), blue = RGB(r: 0, g: 0, b: 255)
        let despills = [
            Despill(screen: green, amount: 1, balance: 0.5, cast: 0.1, limited: true),
            Despill(screen: green, amount: 1, balance: 0.5, cast: 0.1, limited: false),
            Despill(screen: RGB(r: 38, g: 133, b: 53), amount: 0.6, balance: 0.2, cast: 0.3, limited: true),
            Despill(screen: blue, amount: 0.8, balance: 0.5, cast: 0.05, limited: true),
            Despill(screen: blue, amount: 0.8, balance: 0.7, cast: 0.05, limited: false)
        ]
        var changed = 0
        for w in [16, 17, 31, 48, 160, 333, 1920] {
            let cw = (w + 1) / 2
            let screen = ScreenEstimate(width: w, height: 64)
            func gridRow(_ low: Float, _ span: Float) -> [Float] { (0..<screen.gridWidth).map { _ in low + span * n.unit() } }
            let screenY = gridRow(16, 200), screenU = gridRow(-70, 50), screenV = gridRow(-90, 50), ratio = gridRow(0, 2)
            // The two matte rows: sixteen columns (eight samples) share a kind.
            let kinds = (0..<((w + 15) / 16)).map { _ in n.next() % 4 }
            func alphaRow() -> [UInt8] {
                (0..<w).map { x -> UInt8 in
                    switch kinds[x / 16] {
                    case 0: return 255
                    case 1: return 0
                    case 2: return [0, 255, n.byte()][Int(n.next() % 3)]
                    default: return n.byte()
                    }
                }
            }
            let a0 = alphaRow(), a1 = alphaRow()
            let y0 = (0..<w).map { _ in n.byte() }, y1 = (0..<w).map { _ in n.byte() }
            let fu = (0..<cw).map { _ in n.byte() }, fv = (0..<cw).map { _ in n.byte() }
            let bu = (0..<cw).map { _ in n.byte() }, bv = (0..<cw).map { _ in n.byte() }
            for despill in despills {
                func composite(avx2: Bool, inPlace: Bool) -> [UInt8] {
                    var ou = inPlace ? bu : [UInt8](repeating: 7, count: cw), ov = inPlace ? bv : [UInt8](repeating: 7, count: cw)
                    let (bgU, bgV) = (UnsafeMutablePointer<UInt8>.allocate(capacity: cw), UnsafeMutablePointer<UInt8>.allocate(capacity: cw))
                    defer { bgU.deallocate(); bgV.deallocate() }
                    bgU.initialize(from: bu, count: cw); bgV.initialize(from: bv, count: cw)
                    ou.withUnsafeMutableBufferPointer { u in
                        ov.withUnsafeMutableBufferPointer { v in
                            let (u, v) = (u.baseAddress!, v.baseAddress!)
                            KeyerVectors.compositeChroma(
                                alpha: a0, a1, luma: y0, y1, foreground: fu, fv, background: inPlace ? u : bgU, inPlace ? v : bgV,
                                into: u, v, width: w, screenY: screenY, screenU: screenU, screenV: screenV, ratio: ratio, screen: screen,
                                despill: despill, avx2: avx2)
                        }
                    }
                    return ou + ov
                }
                for inPlace in [false, true] {
                    let lanes = composite(avx2: false, inPlace: inPlace)
                    XCTAssertEqual(composite(avx2: true, inPlace: inPlace), lanes, "width \(w) \(despill) in place \(inPlace)")
                    changed += zip(lanes, fu + fv).filter { $0 != $1 }.count
                }
            }
        }
        XCTAssertGreaterThan(changed, 1000, "the composite moved samples")
    }

    /// The AVX2 lanes of `ScreenEstimate.measure` (`cvec_screen_samples_avx2`, KeyerRows.h)
    /// against the eight-lane Swift: the same Float bits in every cell's luma, chroma, weight,
    /// 1 / strength, allowance and ratio, on the soft disc over an unevenly lit screen at widths
    /// whose rows end in lanes and in scalar tails, with both caps and two casts.
    func testTheAVX2ScreenMeasurementIsTheLanesBitForBit() throws {
        try XCTSkipUnless(KeyerVectors.avx2, "no AVX2 on this processor")
        var screenCells = 0
        for (w, h) in [(64, 36), (130, 37), (160, 120), (302, 70), (1920, 48)] {
            let image = plates(w, h).fg.image
            for (cap, cast) in [(2.0, 0.1), (1.0, 0.3)] {
                let key = ColourDifference(screen: RGB(r: 0, g: 255, b: 0), balance: 0.5, cap: cap)
                let fallback = YUVColor(rgb: RGB(r: 0, g: 255, b: 0), matrix: .bt709)
                let reference = max(1, key.strength(of: fallback))
                func measured(avx2: Bool) -> [UInt32] {
                    let screen = ScreenEstimate(width: w, height: h)
                    screen.measure(image, key: key, reference: reference, fallback: fallback, cast: Float(cast), avx2: avx2)
                    let tables = [screen.weight, screen.sy, screen.su, screen.sv, screen.inverse, screen.allowance, screen.ratio]
                    return tables.flatMap { t in (0..<screen.cells).map { t[$0].bitPattern } }
                }
                let lanes = measured(avx2: false)
                XCTAssertEqual(measured(avx2: true), lanes, "\(w)x\(h) cap \(cap) cast \(cast)")
                screenCells += lanes.prefix(lanes.count / 7).filter { $0 != 0 }.count
            }
        }
        XCTAssertGreaterThan(screenCells, 0, "cells held screen")
    }

    /// The AVX2 blocks of `MatteMotion.measure` (`cvec_motion_blocks_avx2`, MatteMotion.h) against
    /// the SIMD16 Swift: every block's largest change, and so which blocks move, the same, on
    /// noise of every size with spikes, at sizes with an odd and an even number of whole blocks,
    /// a partial last block column and row, planes whose stride is wider than the picture, and
    /// every single byte of a block (each lane must reach the block's number).
    func testTheAVX2MotionBlocksAreTheLanes() throws {
        try XCTSkipUnless(KeyerVectors.avx2, "no AVX2 on this processor")
        var n = Numbers(seed: 11)
        var moved = 0, still = 0
        for (w, h, stride) in [(16, 16, 16), (48, 17, 64), (120, 90, 120), (130, 33, 144), (1920, 64, 1920)] {
            for spread in [3, 17, 256] {
                let luma = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * h), history = UnsafeMutablePointer<UInt8>.allocate(capacity: w * h)
                defer { luma.deallocate(); history.deallocate() }
                for y in 0..<h {
                    for x in 0..<stride { luma[y * stride + x] = n.byte() }
                    for x in 0..<w {
                        history[y * w + x] = n.byte()
                        luma[y * stride + x] = UInt8(truncatingIfNeeded: Int(history[y * w + x]) + Int(n.next() % UInt64(spread)) - spread / 2)
                    }
                }
                // A spike in one pixel of some blocks, at each of its sixteen columns in turn.
                for k in 0..<(w * h / 400) {
                    let x = (16 * Int(n.next() % UInt64(w / 16 + 1)) + k % 16) % w, y = Int(n.next() % UInt64(h))
                    luma[y * stride + x] = history[y * w + x] &+ 100
                }
                let plane = Plane(base: luma, stride: stride, width: w, height: h)
                let lanes = MatteMotion(width: w, height: h), c = MatteMotion(width: w, height: h)
                lanes.measure(plane, history: history, avx2: false)
                c.measure(plane, history: history, avx2: true)
                let blocks = lanes.columns * lanes.rows
                XCTAssertEqual(Array(UnsafeBufferPointer(start: c.change, count: blocks)), Array(UnsafeBufferPointer(start: lanes.change, count: blocks)), "\(w)x\(h) spread \(spread)")
                XCTAssertEqual(Array(UnsafeBufferPointer(start: c.moving, count: blocks)), Array(UnsafeBufferPointer(start: lanes.moving, count: blocks)), "\(w)x\(h) spread \(spread)")
                for i in 0..<blocks { if lanes.moving[i] { moved += 1 } else { still += 1 } }
            }
        }
        XCTAssertGreaterThan(moved, 0); XCTAssertGreaterThan(still, 0)
    }
}
