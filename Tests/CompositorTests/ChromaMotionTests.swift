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
    /// The AVX2 rows (`cvec_chroma_motion_row_avx2`, MatteMotion.h) against the Swift lanes: the
    /// same blocks marked over four frames (the last frame's chroma each keeps is the next one's
    /// reference), at chroma widths with 0 to 31 samples past the last pair of chunks and an odd
    /// chunk count; every sample changes by up to the threshold, one a plane by more.
    func testTheAVX2RowsMarkTheSameBlocksAsTheLanes() throws {
        try XCTSkipUnless(KeyerVectors.avx2, "no AVX2 on this processor")
        var n = KeyerVectorsTests.Numbers(seed: 5)
        var marked = 0
        for (cw, ch) in [(16, 8), (23, 9), (48, 16), (100, 20), (960, 24)] {
            let w = 2 * cw, h = 2 * ch
            let pictures = [true, false].map { _ in ChromaMotion(width: cw, height: ch) }
            let picture = YUVBuffer(width: w, height: h)
            for frame in 0..<4 {
                for plane in [picture.image.u, picture.image.v] {
                    for y in 0..<ch {
                        for x in 0..<cw { plane[x, y] = frame == 0 ? n.byte() : UInt8(clamping: Int(plane[x, y]) + Int(n.next() % 33) - 16) }
                    }
                    // One sample moves by more than the threshold.
                    let x = Int(n.next() % UInt64(cw)), y = Int(n.next() % UInt64(ch))
                    plane[x, y] = plane[x, y] &+ (17 + UInt8(n.next() % 100))
                }
                var moving: [[Bool]] = []
                for (colour, avx2) in zip(pictures, [true, false]) {
                    let motion = MatteMotion(width: w, height: h)
                    colour.mark(picture.image, into: motion, measure: frame > 0, avx2: avx2)
                    moving.append(Array(UnsafeBufferPointer(start: motion.moving, count: motion.columns * motion.rows)))
                }
                XCTAssertEqual(moving[0], moving[1], "\(cw)x\(ch) frame \(frame)")
                marked += moving[1].filter { $0 }.count
                if frame > 0 && cw >= 100 { XCTAssertTrue(moving[1].contains(false), "\(cw)x\(ch): not every block marked") }
            }
        }
        XCTAssertGreaterThan(marked, 20, "blocks were marked")
    }
}
