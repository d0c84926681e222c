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
