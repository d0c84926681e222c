import XCTest

@testable import Compositor

/// Issue 44's pieces of the keyer, without I/O: the screen-relative despill, the core matte and
/// the temporal filter on the matte.
final class KeyerRealEdgeTests: XCTestCase {
    let screen = RGB(r: 36, g: 148, b: 61)

    /// Hue of R'G'B' in degrees.
    func hue(_ r: Double, _ g: Double, _ b: Double) -> Double {
        let a = atan2(3.0.squareRoot() * (g - b), 2 * r - g - b) * 180 / .pi
        return a < 0 ? a + 360 : a
    }

    /// R'G'B' of centred chroma (u, v) at luma y (video range, BT.709).
    func rgb(y: Double, u: Float, v: Float) -> (Double, Double, Double) {
        let m = ColorMatrix.bt709
        let yy = (y - 16) / 219, cb = Double(u) / 224, cr = Double(v) / 224
        let r = yy + m.crToR * cr, b = yy + m.cbToB * cb
        let g = (yy - m.kr * r - m.kb * b) / m.kg
        return (255 * r, 255 * g, 255 * b)
    }

    /// The despill of a pixel of this colour (k = 0: wholly foreground) under this screen.
    func despilled(_ c: RGB, amount: Double = 1) -> (Double, Double, Double) {
        let d = Despill(screen: RGB(r: 0, g: 255, b: 0), amount: amount, balance: 0.5, cast: 0.1)
        let p = YUVColor(rgb: c), s = YUVColor(rgb: screen)
        var u = Float(Int(p.u) - 128), v = Float(Int(p.v) - 128)
        let su = Float(Int(s.u) - 128), sv = Float(Int(s.v) - 128)
        let key = ColourDifference(screen: RGB(r: 0, g: 255, b: 0), balance: 0.5)
        let ratio = key.strength(of: s) / ((Float(s.y) - 16) * 255 / 219)
        d.apply(u: &u, v: &v, luma: (Float(p.y) - 16) * 255 / 219, ratio: ratio, k: 0, su: su, sv: sv)
        return rgb(y: Double(p.y), u: u, v: v)
    }

    func testASaturatedGreenSubjectStaysGreen() {
        // A leaf (64, 115, 26), hue 86 degrees, and green hair (120, 170, 40): the despill may take
        // the screen's cast (10% of its light) but not its green.
        for leaf in [RGB(r: 64, g: 115, b: 26), RGB(r: 120, g: 170, b: 40)] {
            let (r, g, b) = despilled(leaf)
            let before = hue(Double(leaf.r), Double(leaf.g), Double(leaf.b)), after = hue(r, g, b)
            XCTAssertLessThan(abs(after - before), 8, "\(leaf): hue \(before) -> \(after)")
            XCTAssertGreaterThan(g - max(r, b), 0.5 * Double(Int(leaf.g) - Int(max(leaf.r, leaf.b))), "\(leaf): still green: \(r), \(g), \(b)")
        }
    }

    func testAGreySurfaceLitByTheScreenLosesAllItsSpill() {
        // Grey 150 with a strong green cast: its hue is the screen's, so all of the spill goes,
        // however much of it there is.
        let (r, g, b) = despilled(RGB(r: 140, g: 190, b: 145))
        XCTAssertLessThan(g - (r + b) / 2, 1.5, "\(r), \(g), \(b)")
        // --despill 0: nothing goes.
        let (_, g0, _) = despilled(RGB(r: 140, g: 190, b: 145), amount: 0)
        XCTAssertEqual(g0, 190, accuracy: 1.5)
    }

    func testWhereTheMatteIsPartialMoreSpillGoes() {
        // A leaf-green edge pixel half screen: with k = 0.5 the limit grows by half its luma's
        // worth of the screen's colour; with k = 0 it does not.
        let d = Despill(screen: RGB(r: 0, g: 255, b: 0), amount: 1, balance: 0.5, cast: 0.1)
        let p = YUVColor(rgb: RGB(r: 64, g: 115, b: 26)), s = YUVColor(rgb: screen)
        let u = Float(Int(p.u) - 128), v = Float(Int(p.v) - 128), su = Float(Int(s.u) - 128), sv = Float(Int(s.v) - 128)
        let luma = (Float(p.y) - 16) * 255 / 219
        let solid = d.limit(u: u, v: v, luma: luma, ratio: 0.8, k: 0, su: su, sv: sv)
        let edge = d.limit(u: u, v: v, luma: luma, ratio: 0.8, k: 0.5, su: su, sv: sv)
        XCTAssertEqual(solid, luma * 0.8 * 0.1, accuracy: 1e-3)
        XCTAssertEqual(edge, luma * 0.8 * (0.1 + 0.5 * 0.5), accuracy: 1e-3)
    }

    /// A screen with a solid square of yellow-green (120, 180, 10) and a one-pixel line of it:
    /// with green subjects (`--green-subjects yes`, where the core matte works) the core raises
    /// the square (a hole without it), the line keeps the soft matte.
    func testTheCoreMatteFillsASolidGreenSubjectAndSparesAThinStrand() {
        let w = 96, h = 48
        let fg = YUVBuffer(width: w, height: h)
        let leaf = YUVColor(rgb: RGB(r: 120, g: 180, b: 10))
        PlaneKernels.fill(fg.image, YUVColor(rgb: screen))
        PlaneKernels.fill(fg.image, leaf, in: Rect(x: 16, y: 8, width: 32, height: 32))
        for y in 4..<44 { fg.image.y[72, y] = leaf.y }
        for y in 2..<22 { fg.image.u[36, y] = UInt8((Int(leaf.u) + Int(YUVColor(rgb: screen).u)) / 2); fg.image.v[36, y] = UInt8((Int(leaf.v) + Int(YUVColor(rgb: screen).v)) / 2) }
        var settings = KeyerSettings(); settings.greenSubjects = .yes
        var off = settings; off.coreClip = 0
        let without = Keyer(settings: off).computeMatte(fg.image).alphaPlane
        XCTAssertLessThan(without[32, 24], 128, "without the core the leaf is a hole")
        let with = Keyer(settings: settings).computeMatte(fg.image).alphaPlane
        for (x, y) in [(24, 16), (32, 24), (40, 32)] {
            XCTAssertEqual(with[x, y], 255, "inside the leaf at \(x), \(y)")
        }
        var none = settings; none.greenSubjects = .no
        XCTAssertEqual(
            Keyer(settings: none).computeMatte(fg.image).alphaPlane[32, 24],
            Keyer(
                settings: {
                    var s = none; s.coreClip = 0; return s
                }()
            ).computeMatte(fg.image).alphaPlane[32, 24], "without green subjects: no core")
        XCTAssertLessThan(with[72, 24], 255, "the strand is not made solid")
        XCTAssertEqual(with[4, 4], 0, "the screen")
    }

    /// Two frames of the same still picture whose chroma noise moves the matte: the second
    /// frame's matte keeps `matteSmoothing` of the first's; a pixel whose luma moved takes the new one.
    func testTheMatteIsFilteredWhereThePictureStandsStillOnly() {
        let w = 64, h = 16
        func frame(_ u: UInt8, luma: UInt8) -> YUVBuffer {
            let f = YUVBuffer(width: w, height: h)
            PlaneKernels.fill(f.image, YUVColor(rgb: screen))
            // A half-transparent band: screen chroma pulled halfway to grey.
            let s = YUVColor(rgb: screen)
            for y in 0..<(h / 2) { for x in 8..<24 { f.image.u[x, y] = u; f.image.v[x, y] = UInt8((Int(s.v) + 128) / 2) } }
            for y in 0..<h { for x in 16..<48 { f.image.y[x, y] = luma } }
            return f
        }
        let s = YUVColor(rgb: screen)
        let u1 = UInt8((Int(s.u) + 128) / 2), u2 = u1 &+ 6
        var settings = KeyerSettings(); settings.coreClip = 0
        let raw1 = Keyer(settings: settings).computeMatte(frame(u1, luma: 100).image).alphaPlane[20, 4]
        let raw2 = Keyer(settings: settings).computeMatte(frame(u2, luma: 100).image).alphaPlane[20, 4]
        XCTAssertNotEqual(raw1, raw2)
        let keyer = Keyer(settings: settings)
        _ = keyer.computeMatte(frame(u1, luma: 100).image)
        let still = keyer.computeMatte(frame(u2, luma: 100).image).alphaPlane[20, 4]
        let k = settings.matteSmoothing
        XCTAssertEqual(Double(still), Double(raw2) + k * (Double(raw1) - Double(raw2)), accuracy: 1)
        let moving = Keyer(settings: settings)
        _ = moving.computeMatte(frame(u1, luma: 100).image)
        let raw3 = Keyer(settings: settings).computeMatte(frame(u2, luma: 140).image).alphaPlane[20, 4]
        XCTAssertEqual(moving.computeMatte(frame(u2, luma: 140).image).alphaPlane[20, 4], raw3, "luma moved by 40: the new matte")
        var off = settings; off.matteSmoothing = 0
        let plain = Keyer(settings: off)
        _ = plain.computeMatte(frame(u1, luma: 100).image)
        XCTAssertEqual(plain.computeMatte(frame(u2, luma: 100).image).alphaPlane[20, 4], raw2)
    }

    /// The filter leaves the matte of a pixel whose own luma stood still when a block of 16x16
    /// next to its own moved (`MatteMotion`: inside a motion-blurred edge the matte changes while
    /// the luma barely does); a pixel four blocks from the motion is still filtered.
    func testTheMatteIsNotFilteredNextToABlockThatMoved() {
        // Something passes over luma columns 40-47 (block column 2, next to the first band's).
        assertFilteredOnlyAwayFromTheMove(screen: YUVColor(rgb: screen), what: "the moving block") { image, s in
            for y in 0..<image.height { for x in 40..<48 { image.y[x, y] = s.y &+ 40 } }
        }
    }

    /// A block moves when a pixel's luma changed by more than 16 levels, and so does every block
    /// within two of it; 16 levels is noise or a slow drift.
    func testABlockMovesFromSeventeenLevelsAndTakesItsNeighboursAlong() {
        let w = 128, h = 96
        let last = YUVBuffer(width: w, height: h), now = YUVBuffer(width: w, height: h)
        PlaneKernels.fillPlane(last.image.y, 100)
        let history = last.image.y.base
        for (change, moves) in [(16, false), (17, true), (-17, true)] {
            PlaneKernels.fillPlane(now.image.y, 100)
            now.image.y[37, 21] = UInt8(100 + change)  // block (2, 1)
            let motion = MatteMotion(width: w, height: h)
            motion.measure(now.image.y, history: history)
            XCTAssertEqual(motion.columns, 8); XCTAssertEqual(motion.rows, 6)
            for r in 0..<6 {
                for c in 0..<8 {
                    let expected = moves && c <= 4 && r <= 3
                    XCTAssertEqual(motion.moving[r * 8 + c], expected, "block (\(c), \(r)), a change of \(change)")
                }
            }
        }
    }

    /// The blocks found moving are those a sample-by-sample reading finds, also where the
    /// picture's right column and bottom row of blocks are partial (120x90: 7.5 x 5.625 blocks)
    /// and where the change is in the picture's last row, on noise of up to 16 levels.
    func testMovingBlocksAreThoseASampleBySampleReadingFinds() {
        let w = 120, h = 90, b = MatteMotion.block
        let last = YUVBuffer(width: w, height: h), now = YUVBuffer(width: w, height: h)
        var state: UInt64 = 7
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        for spikes in [[(117, 89)], [(5, 89)], [(60, 47), (2, 3)], [(119, 0)], []] {
            for y in 0..<h {
                for x in 0..<w {
                    let v = 60 + next() % 100
                    last.image.y[x, y] = UInt8(v)
                    now.image.y[x, y] = UInt8(v + next() % 33 - 16)
                }
            }
            for (x, y) in spikes { now.image.y[x, y] = last.image.y[x, y] &+ 40 }
            let motion = MatteMotion(width: w, height: h)
            motion.measure(now.image.y, history: UnsafePointer(last.image.y.base))
            motion.findRuns()
            let (columns, rows) = ((w + b - 1) / b, (h + b - 1) / b)
            var change = [Int](repeating: 0, count: columns * rows)
            for y in 0..<h {
                for x in 0..<w {
                    let i = (y / b) * columns + x / b
                    change[i] = max(change[i], abs(Int(now.image.y[x, y]) - Int(last.image.y[x, y])))
                }
            }
            for r in 0..<rows {
                for c in 0..<columns {
                    var expected = false
                    for rr in max(r - MatteMotion.reach, 0)...min(r + MatteMotion.reach, rows - 1) {
                        for cc in max(c - MatteMotion.reach, 0)...min(c + MatteMotion.reach, columns - 1)
                        where change[rr * columns + cc] > Int(MatteMotion.threshold) { expected = true }
                    }
                    XCTAssertEqual(motion.moving[r * columns + c], expected, "block (\(c), \(r)), spikes \(spikes)")
                }
                // The row's runs (what the filter walks): they tile the row, each all moving or
                // all still, and the next one differs.
                var start = 0
                for run in 0..<Int(motion.runCounts[r]) {
                    let end = Int(motion.runEnds[r * columns + run])
                    XCTAssertGreaterThan(end, start, "row \(r) run \(run)")
                    for c in start..<end { XCTAssertEqual(motion.moving[r * columns + c], motion.moving[r * columns + start], "row \(r) block \(c)") }
                    if end < columns { XCTAssertNotEqual(motion.moving[r * columns + end], motion.moving[r * columns + start], "row \(r) run \(run) ends early") }
                    start = end
                }
                XCTAssertEqual(start, columns, "row \(r)")
            }
        }
    }

    func testTheScreenStrengthFallsToZeroWithoutAJumpWhereGreenStopsLeading() {
        // Chroma along the line from a green screen's to an orange subject's: the mix of an
        // orange edge over the screen crosses the point where green stops being the largest
        // channel. The strength there falls to 0 without a step (a step flipped such an edge
        // between partly keyed and opaque with the noise), and is 0 past it.
        let key = ColourDifference(screen: RGB(r: 0, g: 255, b: 0), balance: 0.5)
        let s = YUVColor(rgb: RGB(r: 36, g: 148, b: 61)), f = YUVColor(rgb: RGB(r: 177, g: 57, b: 11))
        let (su, sv) = (Float(Int(s.u) - 128), Float(Int(s.v) - 128)), (fu, fv) = (Float(Int(f.u) - 128), Float(Int(f.v) - 128))
        let strengths = (0...200).map { i -> Float in
            let t = Float(i) / 200
            return key.strength(u: su + t * (fu - su), v: sv + t * (fv - sv))
        }
        let steps = zip(strengths, strengths.dropFirst()).map { abs($0 - $1) }
        XCTAssertGreaterThan(strengths[0], 80)
        XCTAssertEqual(strengths[200], 0)
        XCTAssertLessThan(steps.max()!, 2.5, "the largest step between neighbouring mixes")
    }

    /// A screen with a solid square of green hair's yellow-green (its chroma 0.85 of the
    /// screen's away from it): the picture holds green subjects. The same square in orange, or
    /// the green as a strand two pixels wide, does not (the mixes of an orange edge with the
    /// screen pass through green chroma far from the screen's, in a band too thin to survive the
    /// neighbour test).
    func testGreenSubjectsAreMeasuredFromThePicture() {
        let w = 128, h = 64
        func picture(_ colour: RGB, width: Int) -> YUVBuffer {
            let fg = YUVBuffer(width: w, height: h)
            PlaneKernels.fill(fg.image, YUVColor(rgb: screen))
            PlaneKernels.fill(fg.image, YUVColor(rgb: colour), in: Rect(x: 32, y: 16, width: width, height: 32))
            return fg
        }
        let leaf = RGB(r: 130, g: 170, b: 30), orange = RGB(r: 200, g: 110, b: 40)
        let keyer = Keyer(settings: KeyerSettings())
        XCTAssertNil(keyer.greenSubjects, "auto: not decided before a frame")
        XCTAssertNil(keyer.report)
        keyer.computeMatte(picture(leaf, width: 32).image)
        XCTAssertEqual(keyer.greenSubjects, .yes)
        // The square is 16 x 16 chroma samples, 14 x 14 once eroded, of 64 x 32.
        XCTAssertEqual(keyer.greenShare ?? 0, 196.0 / 2048, accuracy: 0.01)
        XCTAssertEqual(Double(keyer.difference.cap), 1)
        let report = keyer.report ?? ""
        XCTAssertTrue(report.contains("--green-subjects yes (9.57% of the picture green but not the screen's green)"), report)
        XCTAssertTrue(report.hasPrefix("keyer: screen measured "), report)
        XCTAssertTrue(report.hasSuffix("--clip-black 0.02 --clip-white 0.75"), report)
        for (colour, width) in [(orange, 32), (leaf, 2)] {
            let k = Keyer(settings: KeyerSettings())
            k.computeMatte(picture(colour, width: width).image)
            XCTAssertEqual(k.greenSubjects, GreenSubjects.no, "\(colour), \(width) px")
            XCTAssertLessThan(k.greenShare ?? 1, GreenSubjects.threshold, "\(colour), \(width) px")
            XCTAssertEqual(Double(k.difference.cap), 2)
        }
        // Given, it is kept and not measured.
        var given = KeyerSettings(); given.greenSubjects = .no
        let told = Keyer(settings: given)
        told.computeMatte(picture(leaf, width: 32).image)
        XCTAssertEqual(told.greenSubjects, GreenSubjects.no)
        XCTAssertNil(told.greenShare)
        XCTAssertTrue(told.report?.contains("--green-subjects no, --clip-black 0.02 --clip-white 0.95") ?? false, told.report ?? "nil")
    }

    /// Once green's lead: the screen's own strength is its lead over the larger other channel
    /// (87 units for this screen), not its strength against the balanced two (99.5).
    func testTheCapOfOnceTheLeadLimitsTheStrengthToIt() {
        let s = YUVColor(rgb: screen)
        let twice = ColourDifference(screen: RGB(r: 0, g: 255, b: 0), balance: 0.5).strength(of: s)
        let once = ColourDifference(screen: RGB(r: 0, g: 255, b: 0), balance: 0.5, cap: 1).strength(of: s)
        XCTAssertEqual(twice, 99.5, accuracy: 2)
        XCTAssertEqual(once, 87, accuracy: 2)
    }
}

/// The two temporal-filter tests' shared check (this class's and `ChromaMotionTests`'): 128x32
/// frames of the screen's colour with two half-transparent bands in the top half (luma columns
/// 16-31 and 96-111, chroma u half way to grey, u + 6 in the second frame), the second also with
/// `move` drawn (something moving in block column 2). Keyed twice, the second frame's matte next to
/// the move (x 20) is its own, the one four blocks away (x 100) keeps `matteSmoothing` of the first's.
func assertFilteredOnlyAwayFromTheMove(
    screen s: YUVColor, what: String, file: StaticString = #filePath, line: UInt = #line, move: (YUVImage, YUVColor) -> Void
) {
    let w = 128, h = 32
    func frame(_ u: UInt8, _ moved: Bool) -> YUVBuffer {
        let f = YUVBuffer(width: w, height: h)
        PlaneKernels.fill(f.image, s)
        for y in 0..<(h / 2) {
            for cx in [8..<16, 48..<56].joined() { f.image.u[cx, y] = u; f.image.v[cx, y] = UInt8((Int(s.v) + 128) / 2) }
        }
        if moved { move(f.image, s) }
        return f
    }
    let u1 = UInt8((Int(s.u) + 128) / 2), u2 = u1 &+ 6
    var settings = KeyerSettings(); settings.coreClip = 0
    func raw(_ u: UInt8, moved: Bool) -> Plane { Keyer(settings: settings).computeMatte(frame(u, moved).image).alphaPlane }
    let first = raw(u1, moved: false), second = raw(u2, moved: true)
    // Far enough apart that a filtered matte would differ from either by a level or more.
    XCTAssertGreaterThanOrEqual(abs(Int(first[20, 4]) - Int(second[20, 4])), 3, file: file, line: line)
    XCTAssertGreaterThanOrEqual(abs(Int(first[100, 4]) - Int(second[100, 4])), 3, file: file, line: line)
    let keyer = Keyer(settings: settings)
    _ = keyer.computeMatte(frame(u1, false).image)
    let m = keyer.computeMatte(frame(u2, true).image).alphaPlane
    XCTAssertEqual(m[20, 4], second[20, 4], "next to \(what): the new matte", file: file, line: line)
    let k = settings.matteSmoothing
    XCTAssertEqual(
        Double(m[100, 4]), Double(second[100, 4]) + k * (Double(first[100, 4]) - Double(second[100, 4])), accuracy: 1, file: file, line: line)
    XCTAssertNotEqual(m[100, 4], second[100, 4], "four blocks away: filtered", file: file, line: line)
}
