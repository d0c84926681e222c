import Compositor
import XCTest

final class BlackPictureTests: XCTestCase {
    func testBlackIsDarkAndFlatWithAMarginOverVerifys() {
        let a = YUVBuffer(width: 16, height: 8)
        PlaneKernels.fill(a.image, YUVColor(y: 16, u: 128, v: 128))
        XCTAssertTrue(BlackPicture.isBlack(a.image))
        PlaneKernels.fill(a.image, YUVColor(y: 24, u: 128, v: 128))
        XCTAssertTrue(BlackPicture.isBlack(a.image), "verify's 20 plus what encoding moves")
        PlaneKernels.fill(a.image, YUVColor(y: 25, u: 128, v: 128))
        XCTAssertFalse(BlackPicture.isBlack(a.image))
        // Dark on average, but with detail: sampled pixels (x 0,4,8,12 of rows 0 and 4), half at
        // 16 and half at 32 (mean 24, spread 8).
        PlaneKernels.fill(a.image, YUVColor(y: 16, u: 128, v: 128))
        for x in [0, 4, 8, 12] { a.image.y.row(0)[x] = 32 }
        XCTAssertFalse(BlackPicture.isBlack(a.image))
    }

    func testTenBitPicturesAreJudgedOnTheirTopEightBits() {
        let a = YUV16Buffer(width: 16, height: 8)
        for y in 0..<8 { for x in 0..<16 { a.image.y.row(y)[x] = 64 } }  // 10-bit black: 16 in 8 bits
        XCTAssertTrue(BlackPicture.isBlack(a.image))
        for y in 0..<8 { for x in 0..<16 { a.image.y.row(y)[x] = 400 } }  // 100 in 8 bits
        XCTAssertFalse(BlackPicture.isBlack(a.image))
    }
}

extension BlackPictureTests {
    /// The integer sums and the early stop against the Doubles of the definition, on pictures
    /// around the bounds: dark with a few bright rows at the top (stops early: not black), at the
    /// bottom (read to the end), and noise whose mean and spread straddle 24 and 6.
    func testTheEarlyStopJudgesAsTheWholeMeanAndSpreadDo() {
        func reference(_ p: Plane) -> Bool {
            var sum = 0.0, sq = 0.0, n = 0.0
            for y in stride(from: 0, to: p.height, by: 4) {
                for x in stride(from: 0, to: p.width, by: 4) { let l = Double(p[x, y]); sum += l; sq += l * l; n += 1 }
            }
            let m = sum / n
            return m <= BlackPicture.mean && max(0, sq / n - m * m).squareRoot() <= BlackPicture.deviation
        }
        var seed: UInt32 = 3
        func next() -> Int { seed = seed &* 1_664_525 &+ 1_013_904_223; return Int(seed >> 24) }
        let a = YUVBuffer(width: 64, height: 48)
        var seen = [false: 0, true: 0]
        for trial in 0..<400 {
            let base = 14 + trial % 14, spread = trial % 17
            for y in 0..<48 { for x in 0..<64 { a.image.y[x, y] = UInt8(base + next() % (spread + 1)) } }
            if trial % 5 == 1 { for y in 0..<4 { for x in 0..<64 { a.image.y[x, y] = 235 } } }
            if trial % 5 == 2 { for y in 44..<48 { for x in 0..<64 { a.image.y[x, y] = 235 } } }
            let expected = reference(a.image.y)
            XCTAssertEqual(BlackPicture.isBlack(a.image), expected, "trial \(trial)")
            seen[expected, default: 0] += 1
        }
        XCTAssertGreaterThan(seen[true]!, 50, "the trials must hold black pictures")
        XCTAssertGreaterThan(seen[false]!, 50, "and pictures that are not")
    }
}
