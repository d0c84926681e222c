import Compositor
import XCTest

final class RenderedChangeTests: XCTestCase {
    func testMeanAbsoluteLumaDifferenceOnTheSubsample() {
        let a = YUVBuffer(width: 16, height: 8), b = YUVBuffer(width: 16, height: 8)
        PlaneKernels.fill(a.image, YUVColor(y: 100, u: 128, v: 128))
        PlaneKernels.fill(b.image, YUVColor(y: 100, u: 128, v: 128))
        // Sampled pixels: x 0,4,8,12 of rows 0 and 4 (8 of them). One goes up by 40; a pixel
        // off the subsample changes without counting.
        b.image.y.row(4)[8] = 140
        b.image.y.row(1)[1] = 0
        let change = RenderedChange(width: 16, height: 8)
        XCTAssertNil(change.measure(a.image))
        XCTAssertEqual(change.measure(a.image), 0)
        XCTAssertEqual(change.measure(b.image), 5)  // 40 / 8
        XCTAssertEqual(change.measure(a.image), 5)
        XCTAssertNil(change.measure(YUVBuffer(width: 8, height: 8).image), "another size: nothing to compare with")
        XCTAssertNil(change.measure(a.image))
    }
}
