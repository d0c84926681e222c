import Compositor
import Foundation
import XCTest

@testable import Lockstep

/// Lockstep's keyer through the whole job: its views and its options reach the pictures.
/// (The barcode and timing checks of the default keyer are CompositeEndToEndTests'.)
final class KeyerEndToEndTests: ScratchTestCase {
    /// Mean luma of a rectangle of frame `k`, as the ffmpeg CLI decodes it to gray (full range:
    /// the views' video-range 16 and 235 read 0 and 255).
    func meanLuma(_ url: URL, frame k: Int, x: Range<Int>, y: Range<Int>) throws -> Double {
        let v = try LumaVideo.decode(url)
        let f = v.frames[k]
        var sum = 0
        for yy in y { for xx in x { sum += Int(f[yy * v.width + xx]) } }
        return Double(sum) / Double(x.count * y.count)
    }

    func testMatteViewIsWhiteOnTheSubjectAndBlackOnTheScreen() throws {
        // fg.mp4: pure green with a grey box at x 80-240, y 160-220 (320x240).
        let (out, r) = try compose(.chromakey, ["fg.mp4", "bg.mp4"]) { $0.keying.view = .matte }
        XCTAssertEqual(r.frames, 60)
        XCTAssertEqual(try meanLuma(out, frame: 30, x: 100..<220, y: 170..<210), 255, accuracy: 2)
        XCTAssertEqual(try meanLuma(out, frame: 30, x: 250..<310, y: 170..<230), 0, accuracy: 2)
    }

    func testAGarbageMatteRemovesTheSubjectOutsideIt() throws {
        // A garbage matte over the top half only: the grey box (lower third) is gone; what shows
        // there is the background, as in the background's own frame.
        let (out, _) = try compose(.chromakey, ["fg.mp4", "bg.mp4"]) {
            $0.keying.garbage = .rect(x: 0, y: 0, width: 1, height: 0.5)
            $0.keying.view = .matte
        }
        XCTAssertEqual(try meanLuma(out, frame: 10, x: 100..<220, y: 170..<210), 0, accuracy: 2)
    }

    func testStackStatusViewAndGPUImageKeyerBothRun() throws {
        let (status, r) = try compose(.stack, ["q0.mp4", "l1.mp4", "l2.mp4"]) { $0.keying.view = .status }
        XCTAssertEqual(r.frames, 54)
        // l1 and l2 both hold the grey box: white in the combined status view; the screen black.
        XCTAssertEqual(try meanLuma(status, frame: 5, x: 100..<220, y: 170..<210), 255, accuracy: 2)
        XCTAssertEqual(try meanLuma(status, frame: 5, x: 250..<310, y: 170..<230), 0, accuracy: 2)
        let (gpu, g) = try compose(.stack, ["q0.mp4", "l1.mp4", "l2.mp4"]) { $0.keyer = .gpuimage }
        XCTAssertEqual(g.frames, 54)
        // GPUImage's keyer shows the bottom layer through the screen, not a view's flat black.
        XCTAssertGreaterThan(try meanLuma(gpu, frame: 5, x: 250..<310, y: 170..<230), 10)
    }
}
