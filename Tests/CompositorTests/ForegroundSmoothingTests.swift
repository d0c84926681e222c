import XCTest

@testable import Compositor

/// The partial pixels' foreground colour held still in time (`ForegroundSmoothing`, issue 44's
/// ninth session): worked by hand on flat rows, then through the keyer.
final class ForegroundSmoothingTests: XCTestCase {
    let w = 32, h = 2

    /// A matte of `alpha` everywhere, a background of luma 50 and chroma (100, 150), and a
    /// composite to write into.
    func planes(alpha: UInt8) -> (matte: YUVBuffer, bg: YUVBuffer, out: YUVBuffer) {
        let matte = YUVBuffer(width: w, height: h), bg = YUVBuffer(width: w, height: h), out = YUVBuffer(width: w, height: h)
        PlaneKernels.fillPlane(matte.image.y, alpha)
        PlaneKernels.fill(bg.image, YUVColor(y: 50, u: 100, v: 150))
        return (matte, bg, out)
    }

    func rows(_ matte: YUVBuffer) -> MatteRows { MatteRows(even: matte.image.y.row(0), odd: matte.image.y.row(1)) }

    /// Two frames of composite luma `y1` then `y2` (chroma u 100 then `u2`, v 150) at alpha 128;
    /// the second frame as the filter leaves it.
    func second(_ y1: UInt8, _ y2: UInt8, u2: UInt8 = 100, keep: Float = 0.6, last alpha: UInt8 = 128, motion: MatteMotion? = nil) -> YUVImage {
        let (last, bg, out) = planes(alpha: alpha), none = YUVBuffer(width: w, height: h)
        let f = ForegroundSmoothing(width: w, height: h)
        PlaneKernels.fill(out.image, YUVColor(y: y1, u: 100, v: 150))
        f.apply(0, alpha: rows(last), last: rows(none), background: bg.image, saved: false, into: out.image, keep: 0, motion: nil)
        XCTAssertEqual(out.image.y[5, 0], y1, "the first frame only becomes the history")
        let (matte, _, _) = planes(alpha: 128)
        PlaneKernels.fill(out.image, YUVColor(y: y2, u: u2, v: 150))
        f.apply(0, alpha: rows(matte), last: rows(last), background: bg.image, saved: false, into: out.image, keep: keep, motion: motion)
        return out.image
    }

    /// Alpha and background unchanged, so the colour F = (out - (1 - a) bg) / a moves by the
    /// composite's change / a, and alpha x that is the composite's change: 4 levels, under the
    /// gate's 6, keeps 0.6 of the last colour: 124 - 0.6 x 4 = 121.6; chroma u likewise 104 -> 101.6;
    /// v did not move.
    func testAPartialPixelKeepsPartOfItsLastColour() {
        let o = second(120, 124, u2: 104)
        for x in [0, 5, 31] {
            XCTAssertEqual(o.y[x, 0], 122); XCTAssertEqual(o.y[x, 1], 122)
        }
        for cx in [0, 3, 15] { XCTAssertEqual(o.u[cx, 0], 102); XCTAssertEqual(o.v[cx, 0], 150) }
    }

    /// The gate: a change of 11 levels keeps half as much (0.3: 131 - 3.3 = 127.7), 16 and more none.
    func testTheColourMayMoveFromSixLevelsAndIsNotHeldFromSixteen() {
        XCTAssertEqual(second(120, 131).y[5, 0], 128)
        XCTAssertEqual(second(120, 136).y[5, 0], 136)
        XCTAssertEqual(second(120, 150).y[5, 0], 150)
    }

    /// No history to keep: the last frame's pixel was foreground (its colour is not what the
    /// filter kept), or its block moved (`MatteMotion`).
    func testNothingIsKeptWhereTheLastMatteWasWholeOrThePictureMoved() {
        XCTAssertEqual(second(120, 124, last: 255).y[5, 0], 124)
        let last = YUVBuffer(width: w, height: h), now = YUVBuffer(width: w, height: h)
        PlaneKernels.fillPlane(last.image.y, 100); PlaneKernels.fillPlane(now.image.y, 100)
        now.image.y[3, 1] = 130
        let motion = MatteMotion(width: w, height: h)
        motion.measure(now.image.y, history: last.image.y.base)
        XCTAssertEqual(second(120, 124, motion: motion).y[5, 0], 124)
        XCTAssertEqual(second(120, 124, keep: 0).y[5, 0], 124)
    }

    /// A layer keyed in place (the composite written over its background): the background rows
    /// kept before the composite give the same result as a separate background.
    func testAKeyInPlaceReadsTheBackgroundItKept() {
        let (matte, bg, _) = planes(alpha: 128)
        let f = ForegroundSmoothing(width: w, height: h)
        for (y, keep) in [(UInt8(120), Float(0)), (124, 0.6)] {
            f.saveBackground(0, bg.image)
            PlaneKernels.fill(bg.image, YUVColor(y: y, u: 100, v: 150))  // the composite, over its background
            f.apply(0, alpha: rows(matte), last: rows(matte), background: bg.image, saved: true, into: bg.image, keep: keep, motion: nil)
            if keep > 0 { XCTAssertEqual(bg.image.y[5, 0], 122) }
            PlaneKernels.fill(bg.image, YUVColor(y: 50, u: 100, v: 150))
        }
    }

    /// Through the keyer (`--matte-smoothing 0.6`): a half-transparent band whose plate luma rises 4
    /// levels between two frames, over a background of the screen's own luma (so the matte's own change does not move
    /// the composite's luma: it is the plate's). Screen subtraction passed the 4 levels whole; now
    /// 0.4 of them go (124 -> 121.6 in the hand-worked case above), and a pixel of plain screen
    /// or plain foreground is as before.
    func testTheKeyerPassesLessOfAPartialPixelsOwnChange() {
        let screen = RGB(r: 36, g: 148, b: 61), s = YUVColor(rgb: screen)
        let w = 64, h = 16
        func frame(luma: UInt8) -> YUVBuffer {
            let f = YUVBuffer(width: w, height: h)
            PlaneKernels.fill(f.image, s)
            for y in 0..<(h / 2) { for x in 8..<16 { f.image.u[x, y] = UInt8((Int(s.u) + 128) / 2); f.image.v[x, y] = UInt8((Int(s.v) + 128) / 2) } }
            for y in 0..<h { for x in 16..<32 { f.image.y[x, y] = luma } }
            // Plain foreground: grey, columns 48-63.
            for y in 0..<h { for x in 48..<64 { f.image.y[x, y] = luma } }
            for y in 0..<(h / 2) { for x in 24..<32 { f.image.u[x, y] = 128; f.image.v[x, y] = 128 } }
            return f
        }
        let bg = YUVBuffer(width: w, height: h)
        PlaneKernels.fill(bg.image, YUVColor(y: s.y, u: 128, v: 128))
        var settings = KeyerSettings(); settings.coreClip = 0; settings.matteSmoothing = 0.6
        let keyer = Keyer(settings: settings)
        let out1 = YUVBuffer(width: w, height: h), out2 = YUVBuffer(width: w, height: h)
        keyer.apply(foreground: frame(luma: 100).image, background: bg.image, into: out1.image)
        keyer.apply(foreground: frame(luma: 104).image, background: bg.image, into: out2.image)
        // (The one-pass composite keeps no matte plane: a second keyer's.)
        let alpha = Keyer(settings: settings).computeMatte(frame(luma: 104).image).alphaPlane
        XCTAssertTrue((20...235).contains(alpha[20, 4]), "the band is partial: \(alpha[20, 4])")
        XCTAssertEqual(Int(out2.image.y[20, 4]) - Int(out1.image.y[20, 4]), 2, "0.4 of the plate's 4 levels, rounded")
        XCTAssertEqual(alpha[56, 4], 255)
        XCTAssertEqual(Int(out2.image.y[56, 4]) - Int(out1.image.y[56, 4]), 4, "foreground: the plate's own change")
        XCTAssertEqual(out2.image.y[2, 4], s.y, "screen: the background")
    }
    /// The AVX2 blocks (`cvec_foreground_rows_avx2`, ForegroundSmoothing.h) against the Swift:
    /// five frames through two filters, one each way, the same composite bytes every frame (and so
    /// the same history, which the next frame's bytes read). Blocks of sixteen columns are in turn
    /// plain (0 or 255), partial, mixed or anything, the last frame's matte is the one before, the
    /// composite moves by small and large steps (both sides of the gate), some blocks moved; at
    /// widths with tails of 0 to 15 columns and odd heights (a chroma row of one luma row), keyed
    /// into a separate picture and in place.
    func testTheAVX2BlocksAreTheSwiftByteForByte() throws {
        try XCTSkipUnless(KeyerVectors.avx2, "no AVX2 on this processor")
        var n = KeyerVectorsTests.Numbers(seed: 21)
        var held = 0
        for (w, h) in [(16, 2), (37, 5), (64, 3), (333, 9)] {
            for inPlace in [false, true] {
                let filters = [true, false].map { _ in ForegroundSmoothing(width: w, height: h) }
                let motion = MatteMotion(width: w, height: h)
                var lastMatte = YUVBuffer(width: w, height: h)
                var last = YUVBuffer(width: w, height: h)
                let bg = YUVBuffer(width: w, height: h)
                for plane in [bg.image.y, bg.image.u, bg.image.v] { for y in 0..<plane.height { for x in 0..<plane.width { plane[x, y] = n.byte() } } }
                for frame in 0..<5 {
                    let matte = YUVBuffer(width: w, height: h), plate = YUVBuffer(width: w, height: h)
                    let kinds = (0..<((w + 15) / 16)).map { _ in n.next() % 4 }
                    for y in 0..<h {
                        for x in 0..<w {
                            matte.image.y[x, y] =
                                switch kinds[x / 16] {
                                case 0: n.next() % 2 == 0 ? 0 : 255
                                case 1: 6 + UInt8(n.next() % 249)
                                case 2: [0, 255, 5, 6, 254, n.byte()][Int(n.next() % 6)]
                                default: n.byte()
                                }
                        }
                    }
                    for (p, q) in zip([plate.image.y, plate.image.u, plate.image.v], [last.image.y, last.image.u, last.image.v]) {
                        for y in 0..<p.height {
                            for x in 0..<p.width {
                                let step = n.next() % 3 == 0 ? Int(n.next() % 41) - 20 : Int(n.next() % 7) - 3
                                p[x, y] = frame == 0 ? n.byte() : UInt8(clamping: Int(q[x, y]) + step)
                            }
                        }
                    }
                    for i in 0..<(motion.columns * motion.rows) { motion.moving[i] = n.next() % 4 == 0 }
                    var outs: [YUVBuffer] = []
                    for (f, avx2) in zip(filters, [true, false]) {
                        let out = YUVBuffer(width: w, height: h), background = YUVBuffer(width: w, height: h)
                        PlaneKernels.copy(plate.image, into: out.image); PlaneKernels.copy(bg.image, into: background.image)
                        for cy in 0..<((h + 1) / 2) {
                            let rows = MatteRows(even: matte.image.y.row(2 * cy), odd: matte.image.y.row(min(2 * cy + 1, h - 1)))
                            let lastRows = MatteRows(even: lastMatte.image.y.row(2 * cy), odd: lastMatte.image.y.row(min(2 * cy + 1, h - 1)))
                            if inPlace {
                                // The composite written over its background: the rows kept first.
                                f.saveBackground(cy, background.image)
                                background.image.y.row(2 * cy).update(from: out.image.y.row(2 * cy), count: w)
                                if 2 * cy + 1 < h { background.image.y.row(2 * cy + 1).update(from: out.image.y.row(2 * cy + 1), count: w) }
                                background.image.u.row(cy).update(from: out.image.u.row(cy), count: (w + 1) / 2)
                                background.image.v.row(cy).update(from: out.image.v.row(cy), count: (w + 1) / 2)
                            }
                            f.apply(
                                cy, alpha: rows, last: lastRows, background: background.image, saved: inPlace,
                                into: inPlace ? background.image : out.image, keep: frame == 0 ? 0 : 0.8, motion: motion, avx2: avx2)
                        }
                        outs.append(inPlace ? background : out)
                    }
                    for (a, b) in zip([outs[0].image.y, outs[0].image.u, outs[0].image.v], [outs[1].image.y, outs[1].image.u, outs[1].image.v]) {
                        for y in 0..<a.height {
                            XCTAssertEqual(
                                Array(UnsafeBufferPointer(start: a.row(y), count: a.width)), Array(UnsafeBufferPointer(start: b.row(y), count: b.width)),
                                "\(w)x\(h) in place \(inPlace) frame \(frame) row \(y)")
                        }
                    }
                    for y in 0..<h { for x in 0..<w where outs[1].image.y[x, y] != plate.image.y[x, y] { held += 1 } }
                    last = plate
                    lastMatte = matte
                }
            }
        }
        XCTAssertGreaterThan(held, 200, "the filter held partial pixels' colour")
    }
}
