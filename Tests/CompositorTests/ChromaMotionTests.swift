import XCTest

@testable import Compositor

/// Where the picture's colour moves (`ChromaMotion`, issue 44's ninth session): blocks the matte's
/// temporal filters leave although no luma moved.
final class ChromaMotionTests: XCTestCase {
    let screen = RGB(r: 36, g: 148, b: 61)

    /// A block moves when a chroma sample changed by more than 16 levels (U or V), and so does every
    /// block within two of it; 16 levels is noise or a slow drift.
    func testABlockMovesFromSeventeenLevelsOfChromaAndTakesItsNeighboursAlong() {
        let w = 128, h = 96
        let last = YUVBuffer(width: w, height: h), now = YUVBuffer(width: w, height: h)
        PlaneKernels.fill(last.image, YUVColor(y: 100, u: 128, v: 128))
        for (plane, change, moves) in [(0, 16, false), (0, 17, true), (1, -17, true), (1, 16, false)] {
            PlaneKernels.fill(now.image, YUVColor(y: 100, u: 128, v: 128))
            (plane == 0 ? now.image.u : now.image.v)[18, 10] = UInt8(128 + change)  // block (2, 1)
            let colour = ChromaMotion(width: w / 2, height: h / 2), motion = MatteMotion(width: w, height: h)
            colour.mark(last.image, into: motion, measure: false)
            colour.mark(now.image, into: motion, measure: true)
            for r in 0..<6 {
                for c in 0..<8 {
                    XCTAssertEqual(motion.moving[r * 8 + c], moves && c <= 4 && r <= 3, "block (\(c), \(r)), \(plane == 0 ? "U" : "V") \(change)")
                }
            }
        }
    }

    /// Through the keyer: something of the screen's own luma but not its colour passes over luma
    /// columns 40-47 (block column 2, next to the first half-transparent band's); that band's matte
    /// is the new frame's, the band four blocks away is filtered (as `MatteMotion` does for luma:
    /// KeyerRealEdgeTests.testTheMatteIsNotFilteredNextToABlockThatMoved).
    func testTheMatteIsNotFilteredNextToABlockWhoseColourMoved() {
        assertFilteredOnlyAwayFromTheMove(screen: YUVColor(rgb: screen), what: "the block whose colour moved") { image, _ in
            for y in 0..<(image.height / 2) { for cx in 20..<24 { image.u[cx, y] = 128; image.v[cx, y] = 200 } }
        }
    }
}
