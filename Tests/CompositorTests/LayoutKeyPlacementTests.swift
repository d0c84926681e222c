import XCTest

@testable import Compositor

/// `Layout.placed`: chromakey's foreground scaled and placed, and the part of it on the canvas.
final class LayoutKeyPlacementTests: XCTestCase {
    func placement(_ scale: Double, _ x: Double, _ y: Double) -> KeyPlacement {
        var p = KeyPlacement()
        p.scale = scale; p.x = x; p.y = y
        return p
    }

    func testTheForegroundIsScaledAndPlacedOnEvenPixels() {
        let canvas = Size(width: 1920, height: 1080), fg = Size(width: 1920, height: 1080)
        XCTAssertEqual(Layout.placed(fg, on: canvas, KeyPlacement()).picture, Rect(x: 0, y: 0, width: 1920, height: 1080))
        let half = Layout.placed(fg, on: canvas, placement(0.5, 1, 1))
        XCTAssertEqual(half.picture, Rect(x: 960, y: 540, width: 960, height: 540))
        XCTAssertEqual(half.keep, .all)
        XCTAssertEqual(Layout.placed(fg, on: canvas, placement(0.5, 0, 0.5)).picture, Rect(x: 0, y: 270, width: 960, height: 540))
        // A third: 640x360 at a quarter of the room (1280 x 0.25 = 320, 720 x 0.25 = 180).
        XCTAssertEqual(Layout.placed(fg, on: canvas, placement(1.0 / 3, 0.25, 0.25)).picture, Rect(x: 320, y: 180, width: 640, height: 360))
    }

    func testALargerForegroundIsCroppedWhereItOverhangs() {
        let canvas = Size(width: 640, height: 360), fg = Size(width: 640, height: 360)
        // Twice the size, centred: the middle half of it both ways.
        let centred = Layout.placed(fg, on: canvas, placement(2, 0.5, 0.5))
        XCTAssertEqual(centred.picture, Rect(x: 0, y: 0, width: 640, height: 360))
        XCTAssertEqual(centred.keep, Layout.Keep(width: 0.5, height: 0.5))
        XCTAssertTrue(centred.keep.isCentred)
        // Its bottom-right corner on the canvas's: the bottom-right quarter.
        let corner = Layout.placed(fg, on: canvas, placement(2, 1, 1))
        XCTAssertEqual(corner.keep, Layout.Keep(width: 0.5, height: 0.5, left: 0.5, top: 0.5))
        XCTAssertFalse(corner.keep.isCentred)
        // A portrait foreground on a landscape canvas, at 4x, top-left: its fit is 202x360
        // (even), so 808x1440 at 0,0: the left 640 / 808 and top 360 / 1440 show.
        let tall = Layout.placed(Size(width: 1080, height: 1920), on: canvas, placement(4, 0, 0))
        XCTAssertEqual(tall.picture, Rect(x: 0, y: 0, width: 640, height: 360))
        XCTAssertEqual(tall.keep.left, 0)
        XCTAssertEqual(tall.keep.top, 0)
        XCTAssertEqual(tall.keep.width, 640.0 / 808, accuracy: 1e-12)
        XCTAssertEqual(tall.keep.height, 0.25, accuracy: 1e-12)
    }

    func testChromakeysBackgroundFitsOrFills() {
        let canvas = Size(width: 640, height: 360), inputs = [Size(width: 640, height: 360), Size(width: 360, height: 640)]
        let fit = Layout(blend: .chromakey, canvas: canvas, inputs: inputs)
        XCTAssertEqual(fit.pictures[1], Rect(x: 218, y: 0, width: 202, height: 360))
        var fill = KeyPlacement()
        fill.backgroundFit = .fill
        let filled = Layout(blend: .chromakey, canvas: canvas, inputs: inputs, keyed: fill)
        XCTAssertEqual(filled.pictures[1], Rect(x: 0, y: 0, width: 640, height: 360))
        XCTAssertEqual(filled.keep[1].width, 1)
        XCTAssertEqual(filled.keep[1].height, (360.0 / 640) / (640.0 / 360), accuracy: 1e-12)
        XCTAssertEqual(filled.pictures[0], Rect(x: 0, y: 0, width: 640, height: 360))
    }
}
