import XCTest

@testable import Compositor

/// Erode, dilate, feather, garbage and core mattes on tiny planes.
final class KeyerMorphologyTests: XCTestCase {
    /// A matte plane from rows of values (kept alive by the returned buffer).
    func matte(_ rows: [[UInt8]]) -> (YUVBuffer, Plane) {
        let b = YUVBuffer(width: rows[0].count, height: rows.count)
        for (y, r) in rows.enumerated() { for (x, v) in r.enumerated() { b.image.y[x, y] = v } }
        return (b, b.image.y)
    }

    func rows(_ p: Plane) -> [[UInt8]] { (0..<p.height).map { y in (0..<p.width).map { p[$0, y] } } }

    func testErodeAndDilateBySquares() {
        let (b, p) = matte([
            [0, 0, 0, 0, 0, 0, 0],
            [0, 255, 255, 255, 0, 0, 0],
            [0, 255, 255, 255, 0, 0, 0],
            [0, 255, 255, 255, 0, 0, 200],
            [0, 0, 0, 0, 0, 0, 0]
        ])
        let m = MatteMorphology(width: 7, height: 5, radius: 1)
        m.erode(p, radius: 1)
        // Only the block's centre has a full 3x3 of 255 around it; the lone 200 goes.
        XCTAssertEqual(
            rows(p),
            [
                [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 0, 255, 0, 0, 0, 0],
                [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0]
            ])
        m.dilate(p, radius: 1)
        XCTAssertEqual(
            rows(p),
            [
                [0, 0, 0, 0, 0, 0, 0], [0, 255, 255, 255, 0, 0, 0], [0, 255, 255, 255, 0, 0, 0],
                [0, 255, 255, 255, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0]
            ])
        withExtendedLifetime(b) {}
    }

    func testLargeRadiiAgreeWithTheDirectMinimumAndMaximum() {
        // Against the definition, edges repeating: radii up to 16 take the window whole on
        // lanes, larger ones van Herk / Gil-Werman (`MatteMorphology.directRadius`).
        var rng = SystemRandomNumberGenerator()
        let w = 41, h = 17
        let source = (0..<h).map { _ in (0..<w).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        for r in [1, 2, 3, 6, 16, 17, 20] {
            for minimum in [true, false] {
                let (b, p) = matte(source)
                let m = MatteMorphology(width: w, height: h, radius: r)
                if minimum { m.erode(p, radius: r) } else { m.dilate(p, radius: r) }
                var expected = source
                for y in 0..<h {
                    for x in 0..<w {
                        var v: UInt8 = minimum ? 255 : 0
                        for dy in -r...r {
                            for dx in -r...r {
                                let s = source[min(max(y + dy, 0), h - 1)][min(max(x + dx, 0), w - 1)]
                                v = minimum ? min(v, s) : max(v, s)
                            }
                        }
                        expected[y][x] = v
                    }
                }
                XCTAssertEqual(rows(p), expected, "radius \(r), \(minimum ? "erode" : "dilate")")
                withExtendedLifetime(b) {}
            }
        }
    }

    func testFeatherIsTwoBoxBlurs() {
        // A step 0 | 255, radius 1: the first box gives 0 0 85 170 255 255, the second
        // 0 28 85 170 227 255 (28.3 and 226.7 rounded). Rows all alike: the vertical passes keep them.
        let (b, p) = matte(Array(repeating: [0, 0, 0, 255, 255, 255], count: 4))
        MatteMorphology(width: 6, height: 4, radius: 1).feather(p, radius: 1)
        XCTAssertEqual(rows(p), Array(repeating: [0, 28, 85, 170, 227, 255], count: 4))
        withExtendedLifetime(b) {}
    }

    func testFeatherAgreesWithTwoBoxBlursByDefinition() {
        // Each box: the mean of the (2r+1) pixels around, edges repeating, rounded to nearest
        // (never a half: 2r+1 is odd); horizontal then vertical, twice. Radii on both sides of
        // `MatteMorphology.directRadius`.
        var rng = SystemRandomNumberGenerator()
        let w = 45, h = 21
        let source = (0..<h).map { _ in (0..<w).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        func box(_ a: [[UInt8]], _ r: Int) -> [[UInt8]] {
            let k = 2 * r + 1
            func mean(_ s: Int) -> UInt8 { UInt8((2 * s + k) / (2 * k)) }
            let across = (0..<h).map { y in (0..<w).map { x in mean((-r...r).reduce(0) { $0 + Int(a[y][min(max(x + $1, 0), w - 1)]) }) } }
            return (0..<h).map { y in (0..<w).map { x in mean((-r...r).reduce(0) { $0 + Int(across[min(max(y + $1, 0), h - 1)][x]) }) } }
        }
        for r in [1, 4, 16, 17] {
            let (b, p) = matte(source)
            MatteMorphology(width: w, height: h, radius: r).feather(p, radius: r)
            XCTAssertEqual(rows(p), box(box(source, r), r), "radius \(r)")
            withExtendedLifetime(b) {}
        }
    }

    func testGarbageRectAndPolygonMasks() {
        // Pixel centres x + 0.5 in [2, 6) of an 8-pixel row.
        XCTAssertEqual(
            GarbageMatte.mask(.rect(x: 0.25, y: 0, width: 0.5, height: 1), width: 8, height: 1),
            [0, 0, 255, 255, 255, 255, 0, 0])
        // The triangle (0,0) (1,0) (0,1) on 4x4: centres with x + y < 4.
        XCTAssertEqual(
            GarbageMatte.mask(.polygon([0, 0, 1, 0, 0, 1]), width: 4, height: 4),
            [
                255, 255, 255, 0,
                255, 255, 0, 0,
                255, 0, 0, 0,
                0, 0, 0, 0
            ])
    }

    func testGarbageMakesTransparentAndCoreOpaque() {
        let w = 32, h = 8
        let grey = YUVColor(y: 120, u: 128, v: 128), green = YUVColor(rgb: RGB(r: 0, g: 255, b: 0))
        let subject = YUVBuffer(width: w, height: h), screen = YUVBuffer(width: w, height: h)
        PlaneKernels.fill(subject.image, grey)
        PlaneKernels.fill(screen.image, green)
        var s = KeyerSettings()
        s.garbage = .rect(x: 0.5, y: 0, width: 0.5, height: 1)
        // All subject, garbage = right half: the left half is transparent.
        let left = Keyer(settings: s).computeMatte(subject.image).alphaPlane
        XCTAssertEqual((0..<w).map { left[$0, 3] }, [UInt8](repeating: 0, count: 16) + [UInt8](repeating: 255, count: 16))
        // All screen (the first guess: no subject to measure it against), core = a triangle: opaque inside.
        var c = KeyerSettings()
        c.core = .polygon([0, 0, 1, 0, 0, 1])
        let core = Keyer(settings: c).computeMatte(screen.image).alphaPlane
        let expected = GarbageMatte.mask(.polygon([0, 0, 1, 0, 0, 1]), width: w, height: h)
        XCTAssertEqual((0..<h).flatMap { y in (0..<w).map { core[$0, y] } }, expected)
    }

    func testShapesParseAndSayWhatIsWrong() {
        XCTAssertEqual(KeyShape(parsing: "rect:0.1,0.2,0.5,0.5"), .rect(x: 0.1, y: 0.2, width: 0.5, height: 0.5))
        XCTAssertEqual(KeyShape(parsing: "polygon:0,0,1,0,0.5,1"), .polygon([0, 0, 1, 0, 0.5, 1]))
        XCTAssertEqual(KeyShape(parsing: "poly:0,0,1,0"), .polygon([0, 0, 1, 0]))
        XCTAssertNil(KeyShape(parsing: "circle:0,0,1"))
        XCTAssertNil(KeyShape(parsing: "rect:0,0,1"))
        XCTAssertNil(KeyShape(parsing: "polygon:0,0,1"))
        XCTAssertNil(KeyShape(parsing: "0,0,1,1"))
        XCTAssertEqual(KeyShape.polygon([0, 0, 1, 0]).problem, "a polygon needs at least 3 points; got 2")
        XCTAssertEqual(KeyShape.polygon([0, 0, 1.5, 0, 0, 1]).problem, "coordinates must be between 0 and 1; got 1.5")
        XCTAssertEqual(
            KeyShape.rect(x: 0.5, y: 0, width: 0.75, height: 1).problem,
            "coordinates must be between 0 and 1 (the rectangle must lie inside the picture); got 1.25")
        XCTAssertNil(KeyShape.rect(x: 0, y: 0, width: 1, height: 1).problem)
    }
}
