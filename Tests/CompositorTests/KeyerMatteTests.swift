import Compositor
import XCTest

/// The keyer's matte, levels and despill on tiny planes, against values worked out by hand.
final class KeyerMatteTests: XCTestCase {
    let green = YUVColor(rgb: RGB(r: 0, g: 255, b: 0))  // Y 145, U 54, V 34
    let grey = YUVColor(y: 120, u: 128, v: 128)

    /// A `w` x `h` picture: screen green left of column `edge`, `subject` from there on.
    func plate(_ w: Int, _ h: Int, edge: Int, subject: YUVColor, screen: YUVColor? = nil) -> YUVBuffer {
        let b = YUVBuffer(width: w, height: h)
        PlaneKernels.fill(b.image, screen ?? green)
        PlaneKernels.fill(b.image, subject, in: Rect(x: edge, y: 0, width: w - edge, height: h))
        return b
    }

    /// No levels and no spill cast: the plain colour-difference matte, worked out by hand.
    func settings(_ change: (inout KeyerSettings) -> Void = { _ in }) -> KeyerSettings {
        var s = KeyerSettings()
        s.clipBlack = 0; s.clipWhite = 1; s.spillCast = 0
        change(&s)
        return s
    }

    func row(_ p: Plane, _ y: Int) -> [UInt8] { (0..<p.width).map { p[$0, y] } }

    func testScreenStrengthIsTheColourDifferenceOfRGB() {
        // G - (R + B) / 2 where green is the largest channel, else 0; within YUV's 8-bit rounding.
        let key = ColourDifference(screen: RGB(r: 0, g: 255, b: 0), balance: 0.5)
        let cases: [(RGB, Float)] = [
            (RGB(r: 0, g: 255, b: 0), 255), (RGB(r: 40, g: 180, b: 60), 130),
            (RGB(r: 100, g: 180, b: 100), 80), (RGB(r: 128, g: 128, b: 128), 0),
            (RGB(r: 200, g: 150, b: 120), 0),
            // G - (R + B) / 2 = 110, but green leads red by only 10: at most twice that (issue 44).
            (RGB(r: 200, g: 210, b: 0), 20)
        ]
        for (c, expected) in cases {
            XCTAssertEqual(key.strength(of: YUVColor(rgb: c)), expected, accuracy: 2.5, "\(c)")
        }
        // Balance 1 compares green with red alone: (40, 180, 60) -> 140.
        XCTAssertEqual(ColourDifference(screen: RGB(r: 0, g: 255, b: 0), balance: 1).strength(of: YUVColor(rgb: RGB(r: 40, g: 180, b: 60))), 140, accuracy: 2.5)
        // A blue screen keys blue: B - (R + G) / 2.
        XCTAssertEqual(ColourDifference(screen: RGB(r: 0, g: 0, b: 255), balance: 0.5).strength(of: YUVColor(rgb: RGB(r: 20, g: 40, b: 200))), 170, accuracy: 2.5)
    }

    func testClipLevels() {
        let levels = MatteLevels(black: 0.2, white: 0.8)
        XCTAssertEqual(levels.byte(0.1), 0)
        XCTAssertEqual(levels.byte(0.2), 0)
        XCTAssertEqual(levels.byte(0.35), 64)  // (0.35 - 0.2) / 0.6 = 0.25 -> 63.75
        XCTAssertEqual(levels.byte(0.5), 128)  // 0.5 -> 127.5, rounded up
        XCTAssertEqual(levels.byte(0.8), 255)
        XCTAssertEqual(levels.byte(1.3), 255)
    }

    /// Issue 41 (3): a light surface with the screen's colour cast on it is subject. Light grey
    /// with green 24 over red and blue reads as 24 / 255 screen, 9% see-through, in the plain
    /// matte; with a 10% cast allowed (the default), less cast x its luma over the screen's:
    /// opaque. A dark one with the same colour difference keeps most of its screen share, and
    /// the screen keys to 0 either way.
    func testASpillCastOnALightSurfaceIsNotScreen() {
        let light = YUVColor(rgb: RGB(r: 200, g: 224, b: 200)), dark = YUVColor(rgb: RGB(r: 30, g: 54, b: 30))
        let key = ColourDifference(screen: RGB(r: 0, g: 255, b: 0), balance: 0.5)
        func expected(_ c: YUVColor, cast: Double) -> Double {
            let share = Double(key.strength(of: c)) / Double(key.strength(of: green))
            let luma = Double(Int(c.y) - 16) / Double(Int(green.y) - 16)
            return 255 * min(max(1 - (share - cast * luma) / (1 - cast), 0), 1)
        }
        for subject in [light, dark] {
            let fg = plate(64, 16, edge: 32, subject: subject)
            for cast in [0.0, 0.1] {
                let alpha = Keyer(
                    settings: settings {
                        $0.spillCast = cast; $0.coreClip = 0
                    }
                ).computeMatte(fg.image).alphaPlane
                XCTAssertEqual(Double(alpha[48, 8]), expected(subject, cast: cast), accuracy: 1.5, "\(subject) cast \(cast)")
                XCTAssertEqual(alpha[8, 8], 0, "the screen, cast \(cast)")
            }
        }
        XCTAssertEqual(expected(light, cast: 0), 231, accuracy: 3)
        XCTAssertEqual(expected(light, cast: 0.1), 255)
        XCTAssertLessThan(expected(dark, cast: 0.1), 240)
    }

    func testTheMatteIsAtLumaResolution() {
        // Screen in chroma columns 0-7, grey from 8. Each chroma sample sits centred between its
        // two luma columns (as swscale, and so the ffmpeg CLI, makes 4:2:0), so the chroma's edge
        // is between luma columns 15 and 16, and the matte's must be too: column 15 is a quarter
        // of the way from sample 7 (screen) to sample 8 (grey), 0.75 of the screen's strength,
        // raw matte 0.25 (63.75); column 16 the mirror, 0.75 (191.25). Every other column is 0
        // or 1. (Taken as co-sited with the even column, the edge stood half a pixel left: 0 at
        // 14, 128 at 15, 255 from 16 on.)
        let fg = plate(32, 8, edge: 16, subject: grey)
        let alpha = Keyer(settings: settings()).computeMatte(fg.image).alphaPlane
        let expected = [UInt8](repeating: 0, count: 15) + [64, 191] + [UInt8](repeating: 255, count: 15)
        for y in 0..<8 { XCTAssertEqual(row(alpha, y), expected, "row \(y)") }
        // The same on a width whose right half is keyed one pixel at a time (the kernel's tail).
        let narrow = plate(30, 4, edge: 16, subject: grey)
        let tail = Keyer(settings: settings()).computeMatte(narrow.image).alphaPlane
        for y in 0..<4 { XCTAssertEqual(row(tail, y), [UInt8](repeating: 0, count: 15) + [64, 191] + [UInt8](repeating: 255, count: 13), "row \(y)") }
    }

    func testClipBlackAndWhiteOnTheMatte() {
        // Column 16's raw matte 0.75 (testTheMatteIsAtLumaResolution) through clip 0.8 / 1:
        // transparent; through 0 / 0.7: opaque.
        let fg = plate(32, 4, edge: 16, subject: grey)
        XCTAssertEqual(Keyer(settings: settings { $0.clipBlack = 0.8 }).computeMatte(fg.image).alphaPlane[16, 0], 0)
        XCTAssertEqual(Keyer(settings: settings { $0.clipWhite = 0.7 }).computeMatte(fg.image).alphaPlane[16, 0], 255)
        // (0.75 - 0.5) / (0.9 - 0.5) = 0.625 -> 159.4.
        XCTAssertEqual(
            Keyer(
                settings: settings {
                    $0.clipBlack = 0.5; $0.clipWhite = 0.9
                }
            ).computeMatte(fg.image).alphaPlane[16, 0], 159)
    }

    func testAShadowOnTheScreenStillKeys() {
        // The right half of the screen at 60% light: its strength is 60% of the left's, and it is
        // still fully screen, because the matte is measured against the local screen.
        let b = YUVBuffer(width: 64, height: 32)
        PlaneKernels.fill(b.image, YUVColor(rgb: RGB(r: 40, g: 180, b: 60)))
        PlaneKernels.fill(b.image, YUVColor(rgb: RGB(r: 24, g: 108, b: 36)), in: Rect(x: 32, y: 0, width: 32, height: 32))
        let alpha = Keyer(settings: settings()).computeMatte(b.image).alphaPlane
        XCTAssertEqual(Set((0..<32).flatMap { y in (0..<64).filter { $0 < 16 || $0 > 47 }.map { alpha[$0, y] } }), [0])
    }

    func testAGreenCastSubjectIsNotTakenForTheScreen() {
        // (100, 180, 100) has a third of the screen's strength: the screen estimate ignores it
        // and the matte keeps it (1 - 80/255 = 0.69, over clip white 0.6).
        let fg = plate(64, 16, edge: 32, subject: YUVColor(rgb: RGB(r: 100, g: 180, b: 100)))
        let alpha = Keyer(settings: settings { $0.clipWhite = 0.6 }).computeMatte(fg.image).alphaPlane
        XCTAssertEqual(alpha[40, 8], 255)
        XCTAssertEqual(alpha[10, 8], 0)
    }

    func testDespillKeepsLuma() {
        // (100, 180, 100): spill 80. Green loses 80, all three gain 0.587 * 80 = 47: grey 147,
        // the same luma. In YUV: Y untouched, U and V to 128.
        let spilled = YUVColor(rgb: RGB(r: 100, g: 180, b: 100))
        let fg = plate(64, 16, edge: 32, subject: spilled)
        let bg = YUVBuffer(width: 64, height: 16)
        PlaneKernels.fill(bg.image, YUVColor(y: 60, u: 150, v: 100))
        let out = YUVBuffer(width: 64, height: 16)
        Keyer(settings: settings { $0.clipWhite = 0.6 }).apply(foreground: fg.image, background: bg.image, into: out.image)
        XCTAssertEqual(out.image.y[40, 8], spilled.y)
        XCTAssertEqual(Int(out.image.u[20, 4]), 128, accuracy: 1)
        XCTAssertEqual(Int(out.image.v[20, 4]), 128, accuracy: 1)
        // Where the screen was: the background, exactly.
        XCTAssertEqual(out.image.y[4, 8], 60); XCTAssertEqual(out.image.u[2, 4], 150); XCTAssertEqual(out.image.v[2, 4], 100)

        // Half the amount: half the chroma move. Balance 1 (limit = red = 100): the same spill here.
        let half = YUVBuffer(width: 64, height: 16)
        Keyer(
            settings: settings {
                $0.clipWhite = 0.6; $0.despill = 0.5
            }
        ).apply(foreground: fg.image, background: bg.image, into: half.image)
        XCTAssertEqual(Double(half.image.u[20, 4]), (Double(spilled.u) + 128) / 2, accuracy: 1)
        XCTAssertEqual(half.image.y[40, 8], spilled.y)
        // No despill: the subject as it was.
        let none = YUVBuffer(width: 64, height: 16)
        Keyer(
            settings: settings {
                $0.clipWhite = 0.6; $0.despill = 0
            }
        ).apply(foreground: fg.image, background: bg.image, into: none.image)
        XCTAssertEqual(none.image.u[20, 4], spilled.u); XCTAssertEqual(none.image.v[20, 4], spilled.v)
    }

    func testAnEdgePixelLosesItsScreenInsteadOfMixingWithIt() {
        // Through clip white 0.8, luma column 15 has alpha 0.25 / 0.8 (79.7 -> 80) and the screen's
        // luma 173 (pure green in BT.709, the working signal): out = 173 + (175/255) (100 - 173) =
        // 122.9 (the pixel minus its screen share plus the background's; here the pixel's luma is
        // the screen's, so a mix would give the same luma); column 16 alpha 0.75 / 0.8 (239) and
        // the grey's luma 120: 120 + (16/255) (100 - 173) = 115.4.
        let fg = plate(32, 4, edge: 16, subject: grey)
        let bg = YUVBuffer(width: 32, height: 4)
        PlaneKernels.fill(bg.image, YUVColor(y: 100, u: 128, v: 128))
        let out = YUVBuffer(width: 32, height: 4)
        Keyer(settings: settings { $0.clipWhite = 0.8 }).apply(foreground: fg.image, background: bg.image, into: out.image)
        XCTAssertEqual(row(out.image.y, 1), [UInt8](repeating: 100, count: 15) + [123, 115] + [UInt8](repeating: 120, count: 15))
        // Chroma sample 7 (luma 14 and 15: alpha 0 and 80): mean alpha 40/255, the screen's
        // chroma taken out of the screen pixel leaves nothing green: neutral grey, as the background
        // (a mix of the pixel and the background would keep 0.69 of the screen's green chroma).
        XCTAssertEqual(Int(out.image.u[7, 0]), 128, accuracy: 1)
        XCTAssertEqual(Int(out.image.v[7, 0]), 128, accuracy: 1)
    }

    func testKeyViews() {
        let fg = plate(32, 4, edge: 16, subject: grey)
        let bg = YUVBuffer(width: 32, height: 4), out = YUVBuffer(width: 32, height: 4)
        Keyer(
            settings: settings {
                $0.view = .matte; $0.clipWhite = 0.8
            }
        ).apply(foreground: fg.image, background: bg.image, into: out.image)
        // 16 + 80 * 219 / 255 = 84.7 -> 85 and 16 + 239 * 219 / 255 = 221.3 -> 221 (video range:
        // 16 black, 235 white).
        XCTAssertEqual(row(out.image.y, 0), [UInt8](repeating: 16, count: 15) + [85, 221] + [UInt8](repeating: 235, count: 15))
        XCTAssertEqual(Set(row(out.image.u, 0) + row(out.image.v, 1)), [128])
        Keyer(settings: settings { $0.view = .status }).apply(foreground: fg.image, background: bg.image, into: out.image)
        XCTAssertEqual(row(out.image.y, 3), [UInt8](repeating: 16, count: 15) + [128, 128] + [UInt8](repeating: 235, count: 15))
    }

    func testStackMatteViewCombinesTheLayers() {
        // Layer 1 keeps its left half, layer 2 its right half: combined, everything is opaque.
        let bottom = YUVBuffer(width: 32, height: 4)
        let left = YUVBuffer(width: 32, height: 4), right = YUVBuffer(width: 32, height: 4)
        PlaneKernels.fill(left.image, green); PlaneKernels.fill(left.image, grey, in: Rect(x: 0, y: 0, width: 16, height: 4))
        PlaneKernels.fill(right.image, green); PlaneKernels.fill(right.image, grey, in: Rect(x: 16, y: 0, width: 16, height: 4))
        let out = YUVBuffer(width: 32, height: 4)
        Keyer(
            settings: settings {
                $0.view = .matte; $0.clipWhite = 0.4
            }
        ).applyStack([bottom.image, left.image, right.image], into: out.image)
        XCTAssertEqual(Set(row(out.image.y, 2)), [235])
    }
}
