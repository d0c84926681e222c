import Compositor
import XCTest

final class BitmapFontTests: XCTestCase {
    /// A luma plane of `w` x `h` with `pad` extra bytes per row (a stride wider than the
    /// picture, as FFmpeg's frames have), filled with `background`; the padding holds 0xEE so a
    /// write past the right edge shows.
    final class PaddedPlane {
        let storage: UnsafeMutablePointer<UInt8>
        let plane: Plane
        let count: Int
        init(width w: Int, height h: Int, pad: Int = 3, background: UInt8 = 0) {
            count = (w + pad) * h
            storage = .allocate(capacity: count)
            storage.initialize(repeating: 0xEE, count: count)
            plane = Plane(base: storage, stride: w + pad, width: w, height: h)
            for y in 0..<h { plane.row(y).update(repeating: background, count: w) }
        }
        deinit { storage.deallocate() }

        /// The picture as text, one string per row: '#' where `ink`, '.' elsewhere.
        func art(ink: UInt8 = 255) -> [String] {
            (0..<plane.height).map { y in String((0..<plane.width).map { plane[$0, y] == ink ? "#" : "." }) }
        }
        func count(of value: UInt8) -> Int {
            var n = 0
            for y in 0..<plane.height { for x in 0..<plane.width where plane[x, y] == value { n += 1 } }
            return n
        }
        /// True when every padding byte (between width and stride) is still untouched.
        var paddingIntact: Bool {
            for y in 0..<plane.height { for x in plane.width..<plane.stride where plane.row(y)[x] != 0xEE { return false } }
            return true
        }
    }

    func testCapitalAMatchesItsHandDrawnRows() {
        let p = PaddedPlane(width: 5, height: 7)
        BitmapFont.draw("A", into: p.plane, x: 0, y: 0, value: 255)
        XCTAssertEqual(
            p.art(),
            [
                ".###.",
                "#...#",
                "#...#",
                "#...#",
                "#####",
                "#...#",
                "#...#"
            ])
        XCTAssertTrue(p.paddingIntact)
    }

    func testLowercaseIsRealLowercase() {
        let p = PaddedPlane(width: 11, height: 7)
        BitmapFont.draw("gk", into: p.plane, x: 0, y: 0, value: 255)
        XCTAssertEqual(
            p.art(),
            [
                "......#....",
                ".####.#....",
                "#...#.#..#.",
                "#...#.#.#..",
                ".####.##...",
                "....#.#.#..",
                ".###..#..#."
            ])
    }

    func testDigitsAndColonAsATimecodeUses() {
        let p = PaddedPlane(width: 17, height: 7)
        BitmapFont.draw("1:0", into: p.plane, x: 0, y: 0, value: 255)
        XCTAssertEqual(
            p.art(),
            [
                "..#..........###.",
                ".##....##...#...#",
                "..#....##...#..##",
                "..#.........#.#.#",
                "..#....##...##..#",
                "..#....##...#...#",
                ".###.........###."
            ])
    }

    func testPixelCountsOfKnownGlyphsScaleWithTheSquareOfTheScale() {
        // Ink pixels counted by hand from the rows: '.' 4, 'I' 11, 'H' 17, '#' 20, ' ' 0, 'l' 10.
        let expected: [(String, Int)] = [(".", 4), ("I", 11), ("H", 17), ("#", 20), (" ", 0), ("l", 10)]
        for (text, ink) in expected {
            for scale in [1, 2, 3] {
                let p = PaddedPlane(width: 5 * scale, height: 7 * scale)
                BitmapFont.draw(text, into: p.plane, x: 0, y: 0, scale: scale, value: 200)
                XCTAssertEqual(p.count(of: 200), ink * scale * scale, "'\(text)' at scale \(scale)")
                XCTAssertTrue(p.paddingIntact)
            }
        }
    }

    func testScaledGlyphIsMadeOfSquares() {
        let p = PaddedPlane(width: 10, height: 14)
        BitmapFont.draw("T", into: p.plane, x: 0, y: 0, scale: 2, value: 255)
        XCTAssertEqual(Array(p.art().prefix(4)), ["##########", "##########", "....##....", "....##...."])
    }

    func testWidthMeasuresWithoutTheTrailingGap() {
        XCTAssertEqual(BitmapFont.width(of: ""), 0)
        XCTAssertEqual(BitmapFont.width(of: "A"), 5)
        XCTAssertEqual(BitmapFont.width(of: "AB"), 11)
        XCTAssertEqual(BitmapFont.width(of: "AB", scale: 3), 33)
        XCTAssertEqual(BitmapFont.width(of: "clip.mp4 12.5 s", scale: 2), (15 * 6 - 1) * 2)
        XCTAssertEqual(BitmapFont.width(of: "é"), 5, "one scalar, one cell")
        XCTAssertEqual(BitmapFont.height(scale: 2), 14)
        // The measure is where drawing really ends: the last ink column of "HH" is width - 1.
        let p = PaddedPlane(width: 20, height: 7)
        BitmapFont.draw("HH", into: p.plane, x: 0, y: 0, value: 255)
        let lastInk = (0..<20).last { x in (0..<7).contains { p.plane[x, $0] == 255 } }
        XCTAssertEqual(lastInk, BitmapFont.width(of: "HH") - 1)
    }

    func testClipsAtEveryEdgeWithoutTouchingMemoryOutside() {
        // Left and top: 'H' moved 3 left and 2 up shows its last two columns from row 2 on.
        let a = PaddedPlane(width: 4, height: 4)
        BitmapFont.draw("H", into: a.plane, x: -3, y: -2, value: 255)
        XCTAssertEqual(a.art(), [".#..", "##..", ".#..", ".#.."])
        // Right and bottom: only the top-left 2x2 of 'H' lands inside, the padding is untouched.
        let b = PaddedPlane(width: 6, height: 6)
        BitmapFont.draw("H", into: b.plane, x: 4, y: 4, value: 255)
        XCTAssertEqual(b.art(), ["......", "......", "......", "......", "....#.", "....#."])
        XCTAssertTrue(b.paddingIntact)
        // Wholly outside in any direction, and at a large scale: nothing drawn, nothing touched.
        let c = PaddedPlane(width: 8, height: 8)
        for (x, y) in [(-100, 0), (8, 0), (0, 8), (0, -8), (1_000_000, 1_000_000), (-1_000_000, -1_000_000)] {
            BitmapFont.draw("Hello", into: c.plane, x: x, y: y, scale: 1, value: 255)
        }
        BitmapFont.draw("W", into: c.plane, x: -50 * 5, y: 0, scale: 50, value: 255)
        XCTAssertEqual(c.count(of: 255), 0)
        XCTAssertTrue(c.paddingIntact)
        // A glyph far larger than the plane fills exactly the part of it that is ink.
        let d = PaddedPlane(width: 5, height: 5)
        BitmapFont.draw("L", into: d.plane, x: 0, y: 0, scale: 10, value: 255)
        XCTAssertEqual(d.art(), ["#####", "#####", "#####", "#####", "#####"], "'L' column 0 covers x 0..<10")
        XCTAssertTrue(d.paddingIntact)
    }

    func testOnlyInkIsWrittenTheBackgroundStays() {
        let p = PaddedPlane(width: 5, height: 7, background: 77)
        BitmapFont.draw("O", into: p.plane, x: 0, y: 0, value: 255)
        XCTAssertEqual(p.count(of: 255), 16)
        XCTAssertEqual(p.count(of: 77), 35 - 16)
    }

    func testEveryPrintableCharacterHasItsOwnGlyph() {
        var seen: [String: Character] = [:]
        for code in UInt32(32)...126 {
            let s = Unicode.Scalar(code)!
            let r = BitmapFont.rows(of: s)
            let key = "\(r)"
            XCTAssertNil(seen[key], "'\(Character(s))' draws like '\(seen[key].map(String.init) ?? "")'")
            seen[key] = Character(s)
            let ink = [r.0, r.1, r.2, r.3, r.4, r.5, r.6]
            XCTAssertTrue(ink.allSatisfy { $0 < 0x20 }, "'\(Character(s))' uses only 5 columns")
            if code != 32 { XCTAssertTrue(ink.contains { $0 != 0 }, "'\(Character(s))' is not blank") }
        }
        XCTAssertEqual(seen.count, 95)
    }

    func testAnythingElseDrawsAsAQuestionMark() {
        let q = PaddedPlane(width: 5, height: 7), other = PaddedPlane(width: 23, height: 7)
        BitmapFont.draw("?", into: q.plane, x: 0, y: 0, value: 255)
        BitmapFont.draw("é\n\u{7F}\u{1F600}", into: other.plane, x: 0, y: 0, value: 255)
        for cell in 0..<4 {
            let part = other.art().map { String(Array($0)[(cell * 6)..<(cell * 6 + 5)]) }
            XCTAssertEqual(part, q.art(), "cell \(cell)")
        }
    }

    func testASCIIBytesDrawLikeTheString() {
        let a = PaddedPlane(width: 40, height: 9), b = PaddedPlane(width: 40, height: 9)
        BitmapFont.draw("f 0123", into: a.plane, x: 1, y: 1, scale: 1, value: 9)
        let bytes: [UInt8] = Array("f 0123".utf8)
        BitmapFont.draw(ascii: bytes, into: b.plane, x: 1, y: 1, scale: 1, value: 9)
        XCTAssertEqual(a.art(ink: 9), b.art(ink: 9))
        XCTAssertGreaterThan(a.count(of: 9), 0)
    }

    func testColourTextPaintsChromaUnderTheInk() {
        let buffer = YUVBuffer(width: 12, height: 8)
        let img = buffer.image
        PlaneKernels.fill(img, YUVColor(y: 16, u: 128, v: 128))
        let red = YUVColor(y: 81, u: 90, v: 240)
        // '.' at (2, 0): ink at luma x 3...4, y 5...6, i.e. chroma (1...2, 2...3).
        BitmapFont.draw(".", into: img, x: 2, y: 0, color: red)
        var lumaInk: [[Int]] = [], chromaInk: [[Int]] = []
        for y in 0..<8 { for x in 0..<12 where img.y[x, y] == 81 { lumaInk.append([x, y]) } }
        for y in 0..<4 { for x in 0..<6 where img.u[x, y] == 90 && img.v[x, y] == 240 { chromaInk.append([x, y]) } }
        XCTAssertEqual(lumaInk, [[3, 5], [4, 5], [3, 6], [4, 6]])
        XCTAssertEqual(chromaInk, [[1, 2], [2, 2], [1, 3], [2, 3]])
        // Unpainted chroma keeps the background.
        XCTAssertEqual(img.u[0, 0], 128)
        XCTAssertEqual(img.v[5, 3], 128)
    }
}
