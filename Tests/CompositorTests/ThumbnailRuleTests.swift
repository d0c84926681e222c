import Compositor
import XCTest

/// The thumbnail rule on small synthetic planes: what counts as black, flat, a fade, and which
/// frame of a run the picker takes. No I/O.
final class ThumbnailRuleTests: XCTestCase {
    /// A 64x48 luma plane with `f(x, y)` in each pixel (kept alive by the buffer).
    func plane(_ f: (Int, Int) -> Int) -> (YUVBuffer, Plane) {
        let b = YUVBuffer(width: 64, height: 48)
        let p = b.image.y
        for y in 0..<48 { for x in 0..<64 { p[x, y] = UInt8(max(0, min(255, f(x, y)))) } }
        return (b, p)
    }

    /// A detailed picture: 8-pixel checks of 60 and 180 with a diagonal ramp, faded from video
    /// black (16) by `alpha` as a fade filter does.
    func picture(alpha: Double = 1, offset: Int = 0) -> PictureDetail {
        let (b, p) = plane { x, y in
            let v = ((x / 8 + y / 8) % 2 == 0 ? 60 : 180) + (x + y) / 4 + offset
            return Int((16 + Double(v - 16) * alpha).rounded())
        }
        return withExtendedLifetime(b) { PictureDetail.measure(p) }
    }

    func flat(_ v: Int) -> PictureDetail {
        let (b, p) = plane { _, _ in v }
        return withExtendedLifetime(b) { PictureDetail.measure(p) }
    }

    // MARK: measuring

    func testFlatPlaneHasNoDeviationAndNoGradient() {
        let d = flat(120)
        XCTAssertEqual(d, PictureDetail(mean: 120, deviation: 0, gradient: 0))
    }

    func testOnePixelCheckerboardHasTheLargestGradient() {
        let (b, p) = plane { x, y in (x + y) % 2 == 0 ? 16 : 235 }
        let d = withExtendedLifetime(b) { PictureDetail.measure(p) }
        // The last row and column are only neighbours, never samples: 63 x 47 points.
        XCTAssertEqual(d.mean, 125.5, accuracy: 0.1)
        XCTAssertEqual(d.deviation, 109.5, accuracy: 0.1)
        XCTAssertEqual(d.gradient, 219, accuracy: 1e-9)
    }

    func testSmoothRampHasContrastButNoDetail() {
        let (b, p) = plane { x, _ in 16 + x * 3 }
        let d = withExtendedLifetime(b) { PictureDetail.measure(p) }
        XCTAssertEqual(d.gradient, 1.5, accuracy: 1e-9, "3 levels a column, 0 a row: (3 + 0) / 2")
        XCTAssertGreaterThan(d.deviation, 50)
        XCTAssertEqual(ThumbnailRule().classify(d), .picture, "1.5 is above the 0.3 edge threshold")
        let (b2, p2) = plane { x, _ in 100 + x / 4 }  // a level every 4 columns: a sky, not a picture
        XCTAssertEqual(ThumbnailRule().classify(withExtendedLifetime(b2) { PictureDetail.measure(p2) }), .flat)
    }

    func testLargePlanesAreSampledOnAGridWithTheirOwnNeighbours() {
        // 1-pixel vertical stripes: every horizontal neighbour differs by 100 wherever the grid falls.
        let b = YUVBuffer(width: 1000, height: 600)
        let p = b.image.y
        for y in 0..<600 { for x in 0..<1000 { p[x, y] = x % 2 == 0 ? 50 : 150 } }
        let d = withExtendedLifetime(b) { PictureDetail.measure(p, samples: 100) }
        XCTAssertEqual(d.gradient, 50, accuracy: 1e-9, "(100 + 0) / 2 at every sample")
        XCTAssertEqual(d.mean, 50, "a step of 10 columns samples only even columns: the grid is coarse, the gradient is not")
    }

    func testPaddingBeyondTheWidthIsNeverRead() {
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: 20 * 10)
        defer { storage.deallocate() }
        storage.initialize(repeating: 255, count: 200)
        let p = Plane(base: storage, stride: 20, width: 12, height: 10)
        for y in 0..<10 { p.row(y).update(repeating: 90, count: 12) }
        XCTAssertEqual(PictureDetail.measure(p), PictureDetail(mean: 90, deviation: 0, gradient: 0))
    }

    // MARK: classifying

    func testClassification() {
        let rule = ThumbnailRule()
        XCTAssertEqual(rule.classify(flat(16)), .black)
        XCTAssertEqual(rule.classify(flat(27)), .black)
        XCTAssertEqual(rule.classify(flat(128)), .flat, "a grey slate")
        XCTAssertEqual(rule.classify(flat(200)), .flat, "a white card")
        XCTAssertEqual(rule.classify(picture()), .picture)
        // A dim logo on black stays black (its mean is under 28), however sharp.
        let (b, p) = plane { x, y in (20...27).contains(x) && (20...27).contains(y) ? 235 : 16 }
        XCTAssertEqual(rule.classify(withExtendedLifetime(b) { PictureDetail.measure(p) }), .black)
        // A dark but detailed scene is a picture.
        XCTAssertEqual(rule.classify(picture(alpha: 0.3)), .picture)
    }

    // MARK: picking

    /// Runs the picker over a run the way the thumbnail search does; the index taken, or nil.
    func choose(_ frames: [PictureDetail]) -> (taken: Int?, best: Int?) {
        var picker = ThumbnailPicker()
        var held: Int?
        for (i, d) in frames.enumerated() {
            switch picker.offer(d) {
            case .takeHeld: return (held, picker.bestOffer)
            case .takeThis: return (i, picker.bestOffer)
            case .hold: held = i
            case .skip: break
            }
        }
        return (picker.finish() ? held : nil, picker.bestOffer)
    }

    func testTwoSecondsOfBlackThenPictureIsACut() {
        let frames = Array(repeating: flat(16), count: 60) + (0..<30).map { picture(offset: $0 % 3) }
        XCTAssertEqual(choose(frames).taken, 60)
    }

    func testFadeInFromBlackTakesItsFirstFullFrame() {
        // 10 black, a 30-frame fade (alpha 1/30 ... 30/30, frame 39 full), then 30 full frames.
        // Each fade frame is outshone by the next (3.9 levels, over 3% of its level above black).
        let fade = (1...30).map { picture(alpha: Double($0) / 30) }
        let frames = Array(repeating: flat(16), count: 10) + fade + Array(repeating: picture(), count: 30)
        XCTAssertEqual(choose(frames).taken, 39)
        // Starting in the middle of the fade (the scan began there): the same frame.
        XCTAssertEqual(choose(Array(frames[25...])).taken, 39 - 25)
        // No frame of the fade is a cut: the deviation never doubles from one frame to the next.
        for k in 11..<40 { XCTAssertLessThan(frames[k].deviation, 2 * frames[k - 1].deviation + 2, "frame \(k)") }
    }

    func testSlowFadeEndsWithinItsLastFewFrames() {
        // 4 s at 30 fps: under 1 level a frame, less than the margin, but 8 frames outshine.
        let fade = (1...120).map { picture(alpha: Double($0) / 120) }
        guard let k = choose([flat(16)] + fade + Array(repeating: picture(), count: 10)).taken else { return XCTFail("nothing taken") }
        XCTAssertTrue((116...120).contains(k), "frame \(k)")
        XCTAssertGreaterThan(fade[k - 1].level - 16, 0.96 * (picture().level - 16))
    }

    func testAFadeThenAWobblingPictureEndsAtTheFade() {
        let wobble = [0, 1, 0, -1, 1, 0, 1, 0, -1, 0].map { picture(offset: $0) }
        let frames = [flat(16)] + (1...30).map { picture(alpha: Double($0) / 30) } + wobble
        XCTAssertEqual(choose(frames).taken, 30)
    }

    func testCutFromBlackIsTakenEvenIfTheNextFramesBrighten() {
        let frames = Array(repeating: flat(16), count: 5) + [picture(), picture(offset: 2), picture(offset: 4), picture(offset: 6)]
        XCTAssertEqual(choose(frames).taken, 5)
    }

    func testFlatSlateThenPicture() {
        let frames = Array(repeating: flat(90), count: 45) + Array(repeating: picture(), count: 10)
        XCTAssertEqual(choose(frames).taken, 45)
    }

    func testSteadyPictureFromTheStartIsTakenButABrighteningOneIsWaitedOut() {
        XCTAssertEqual(choose([picture(), picture(), picture(offset: 1)]).taken, 0)
        XCTAssertEqual(choose((0..<12).map { picture(offset: $0 % 2) }).taken, 0, "wobble under the margin")
        // With no history, a picture that keeps brightening may be inside a fade: waited out.
        XCTAssertEqual(choose([picture(alpha: 0.8), picture(alpha: 0.9), picture(), picture()]).taken, 2)
    }

    func testCutFromPictureToBlackKeepsThePicture() {
        XCTAssertEqual(choose([flat(16), picture(), flat(16), flat(16)]).taken, 1)
    }

    func testFadeRunningToTheEndOfTheRunEndsOnItsBrightestFrame() {
        let frames = [flat(16)] + (1...20).map { picture(alpha: Double($0) / 20) }
        XCTAssertEqual(choose(frames).taken, 20)
    }

    func testAllBlackTakesNothingButNamesTheMostDetailedFrame() {
        let (b, p) = plane { x, y in (20...27).contains(x) && (20...27).contains(y) ? 235 : 16 }
        let logo = withExtendedLifetime(b) { PictureDetail.measure(p) }
        let frames = [flat(16), flat(17), logo, flat(16), flat(60)]
        let r = choose(frames)
        XCTAssertNil(r.taken)
        XCTAssertEqual(r.best, 2)
    }

    func testLevelIgnoresASmallRegionThatChanges() {
        // A 6% patch going from black to white moves the mean by 14 levels, the level by little.
        let (b1, p1) = plane { x, y in x < 8 && y < 24 ? 16 : 100 + (x + y) % 20 }
        let (b2, p2) = plane { x, y in x < 8 && y < 24 ? 235 : 100 + (x + y) % 20 }
        let d1 = withExtendedLifetime(b1) { PictureDetail.measure(p1) }, d2 = withExtendedLifetime(b2) { PictureDetail.measure(p2) }
        XCTAssertGreaterThan(d2.mean - d1.mean, 10)
        XCTAssertLessThan(abs(d2.level - d1.level), 1.5)
    }

    func testRestartForgetsTheRunButNotTheBest() {
        var picker = ThumbnailPicker()
        XCTAssertEqual(picker.offer(picture(alpha: 0.5)), .hold)
        XCTAssertTrue(picker.isWatching)
        picker.restart()
        XCTAssertFalse(picker.isWatching)
        XCTAssertFalse(picker.finish(), "restart dropped the held frame")
        XCTAssertEqual(picker.bestOffer, 0)
        XCTAssertEqual(picker.offer(flat(16)), .skip)
        XCTAssertFalse(picker.lastIsBest)
        XCTAssertEqual(picker.offered, 2)
    }

    // MARK: matrices

    func testBT709PictureReexpressedInBT601KeepsItsColours() {
        // Colours encoded with BT.709 in video range, converted, must equal BT.601's encoding of
        // the same R'G'B' (YUVColor(rgb:matrix: .bt601)) within rounding.
        func bt709(_ c: RGB) -> YUVColor {
            let r = Double(c.r) / 255, g = Double(c.g) / 255, b = Double(c.b) / 255
            let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
            func q(_ v: Double) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }
            return YUVColor(y: q(16 + 219 * y), u: q(128 + 224 * (b - y) / 1.8556), v: q(128 + 224 * (r - y) / 1.5748))
        }
        let colours = [
            RGB(r: 255, g: 0, b: 0), RGB(r: 0, g: 200, b: 40), RGB(r: 30, g: 60, b: 220), RGB(r: 128, g: 128, b: 128),
            RGB(r: 250, g: 240, b: 10), RGB(r: 90, g: 20, b: 120)
        ]
        let conversion = MatrixConversion(from: .bt709, to: .bt601)
        for c in colours {
            let buffer = YUVBuffer(width: 4, height: 2)
            PlaneKernels.fill(buffer.image, bt709(c))
            conversion.apply(to: buffer.image)
            let want = YUVColor(rgb: c, matrix: .bt601), img = buffer.image
            for (x, y) in [(0, 0), (3, 1)] { XCTAssertEqual(Double(img.y[x, y]), Double(want.y), accuracy: 2, "\(c) Y") }
            XCTAssertEqual(Double(img.u[1, 0]), Double(want.u), accuracy: 2, "\(c) U")
            XCTAssertEqual(Double(img.v[1, 0]), Double(want.v), accuracy: 2, "\(c) V")
        }
        // Grey is grey in every matrix; BT.601 to BT.601 changes nothing.
        let grey = YUVBuffer(width: 2, height: 2)
        PlaneKernels.fill(grey.image, YUVColor(y: 100, u: 128, v: 128))
        conversion.apply(to: grey.image)
        XCTAssertEqual([grey.image.y[0, 0], grey.image.u[0, 0], grey.image.v[0, 0]], [100, 128, 128])
    }

    // MARK: rise: a fade's step measured pixel by pixel

    /// Checks and a ramp faded by `alpha`, with a bright 16x16 block (8% of the picture) at
    /// column `block` and grain of +-`grain` levels (a fixed pattern shifted by `seed`).
    func scene(alpha: Double, block: Int, grain: Int = 0, seed: Int = 0) -> (YUVBuffer, Plane) {
        plane { x, y in
            var v = ((x / 8 + y / 8) % 2 == 0 ? 60 : 180) + (x + y) / 4
            if x >= block && x < block + 16 && y >= 16 && y < 32 { v = 235 }
            v += grain == 0 ? 0 : ((x * 7 + y * 13 + seed * 5) % (2 * grain + 1)) - grain
            return Int((16 + Double(v - 16) * alpha).rounded())
        }
    }

    func testRiseIsTheFadesGainAndIgnoresWhatMoves() {
        let (b0, p0) = scene(alpha: 59.0 / 60, block: 0), (b1, p1) = scene(alpha: 1, block: 4)
        let (b2, p2) = scene(alpha: 1, block: 8, grain: 2, seed: 1), (b3, p3) = scene(alpha: 1, block: 12, grain: 2, seed: 2)
        withExtendedLifetime([b0, b1, b2, b3]) {
            XCTAssertEqual(PictureDetail.rise(from: p0, to: p1) ?? .nan, 1.0 / 59, accuracy: 0.001, "the fade's last step")
            XCTAssertEqual(PictureDetail.rise(from: p1, to: p1) ?? .nan, 0, accuracy: 0.0005)
            XCTAssertEqual(PictureDetail.rise(from: p2, to: p3) ?? .nan, 0, accuracy: 0.002, "a block moving, grain: still")
        }
        let (b, black) = plane { _, _ in 17 }
        withExtendedLifetime(b) { XCTAssertNil(PictureDetail.rise(from: black, to: black), "near black nothing qualifies") }
    }

    /// A 2 s fade at 30 fps of a picture that moves and has grain: its level steps (1.6 levels at
    /// the end) are hardly over the level's own wobble, so the level rule alone ends within the
    /// fade's last frames; with the rise measured the frame taken is the first at full level.
    func testFadeOfAMovingPictureEndsOnItsFirstFullFrameExactly() {
        var frames: [PictureDetail] = []
        var before: (YUVBuffer, Plane)?
        for k in 0..<80 {
            let alpha = k < 10 ? 0 : min(1, Double(k - 10) / 60)  // black 0-9, fade 10-69, full from 70
            let now = scene(alpha: alpha, block: (k * 3) % 48, grain: 2, seed: k)
            var d = withExtendedLifetime(now.0) { PictureDetail.measure(now.1) }
            if let before { d.rise = withExtendedLifetime([before.0, now.0]) { PictureDetail.rise(from: before.1, to: now.1) } }
            frames.append(d)
            before = now
        }
        XCTAssertEqual(choose(frames).taken, 70)
        XCTAssertEqual(choose(Array(frames[40...])).taken, 30, "from the middle of the fade: the same frame")
    }
}
