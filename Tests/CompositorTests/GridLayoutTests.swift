import Compositor
import XCTest

final class GridLayoutTests: XCTestCase {
    func testNearSquareShapes() {
        let shapes = (2...10).map { GridSpec.shape(for: $0) }.map { "\($0.rows)x\($0.columns)" }
        XCTAssertEqual(shapes, ["1x2", "2x2", "2x2", "2x3", "2x3", "3x3", "3x3", "3x3", "3x4"])
    }

    /// Cells tile the canvas exactly, every edge even, reading order.
    func testCellsTileTheCanvasOnEvenEdges() {
        for (rows, columns, canvas) in [(3, 3, Size(width: 1920, height: 1080)), (2, 5, Size(width: 1002, height: 398)), (1, 3, Size(width: 854, height: 480))] {
            let cells = Layout.cells(rows: rows, columns: columns, canvas: canvas)
            XCTAssertEqual(cells.count, rows * columns)
            XCTAssertEqual(cells.reduce(0) { $0 + $1.width * $1.height }, canvas.width * canvas.height)
            for c in cells { XCTAssertTrue(c.x % 2 == 0 && c.y % 2 == 0 && c.width % 2 == 0 && c.height % 2 == 0, "\(c)") }
            XCTAssertEqual(cells[1].y, 0); XCTAssertGreaterThan(cells[1].x, 0)
            XCTAssertEqual(cells.last.map { $0.x + $0.width }, canvas.width)
            XCTAssertEqual(cells.last.map { $0.y + $0.height }, canvas.height)
        }
    }

    /// quad is the 2x2 grid: the same cells as before (a quarter each, the left/top on even edges).
    func testQuadIsTheTwoByTwoGrid() {
        let canvas = Size(width: 854, height: 480), inputs = Array(repeating: Size(width: 854, height: 480), count: 4)
        let quad = Layout(blend: .quad, canvas: canvas, inputs: inputs)
        var spec = GridSpec(); spec.layout = .init(rows: 2, columns: 2)
        XCTAssertEqual(quad.places, Layout(blend: .grid, canvas: canvas, inputs: inputs, cells: spec).places)
        XCTAssertEqual(quad.places[1], Rect(x: 426, y: 0, width: 428, height: 240))
    }

    /// A portrait phone first among landscape cameras no longer makes a portrait canvas with
    /// tiny letterboxed cells: the canvas follows the largest landscape input.
    func testCanvasComesFromAllInputsNotTheFirst() {
        let phone = Size(width: 1080, height: 1920), camera = Size(width: 1920, height: 1080), small = Size(width: 854, height: 480)
        XCTAssertEqual(Layout.canvas(blend: .quad, inputs: [phone, camera, small, camera]), Size(width: 1920, height: 1080))
        // Most inputs portrait: a portrait canvas.
        XCTAssertEqual(Layout.canvas(blend: .quad, inputs: [phone, phone, camera]), Size(width: 1080, height: 1920))
        // A 3x3 grid of 1080p: 1920x1080 in cells of 640x360.
        XCTAssertEqual(Layout.canvas(blend: .grid, inputs: Array(repeating: camera, count: 9)), Size(width: 1920, height: 1080))
        // One row of three: three cells of the input's shape, as many pixels as one input.
        var row = GridSpec(); row.layout = .init(rows: 1, columns: 3)
        XCTAssertEqual(Layout.canvas(blend: .grid, inputs: [camera, camera, camera], cells: row), Size(width: 3326, height: 624))
        // Blends without cells keep the first input's size; pip too (it fills the canvas).
        XCTAssertEqual(Layout.canvas(blend: .pip, inputs: [phone, camera]), phone)
        XCTAssertEqual(Layout.canvas(blend: .mix, inputs: [phone, camera]), phone)
    }

    /// fit shows all of a picture with bars; fill covers the cell and keeps the centred share
    /// of the picture of the cell's shape.
    func testFitAndFill() {
        let canvas = Size(width: 1920, height: 1080), phone = Size(width: 1080, height: 1920), camera = Size(width: 1920, height: 1080)
        let fit = Layout(blend: .quad, canvas: canvas, inputs: [phone, camera])
        XCTAssertEqual(fit.pictures[0], Rect(x: 328, y: 0, width: 304, height: 540))
        XCTAssertEqual(fit.keep[0], .all)
        var spec = GridSpec(); spec.fit = .fill
        let fill = Layout(blend: .quad, canvas: canvas, inputs: [phone, camera], cells: spec)
        XCTAssertEqual(fill.pictures[0], fill.places[0])
        XCTAssertEqual(fill.keep[0].width, 1)
        XCTAssertEqual(fill.keep[0].height, (1080.0 / 1920) / (960.0 / 540), accuracy: 1e-12)  // 0.316: a band across the middle
        XCTAssertEqual(fill.keep[1], Layout.Keep(width: 1, height: 1))
    }

    func testPictureInPictureInsets() {
        let canvas = Size(width: 1920, height: 1080)
        var spec = GridSpec(); spec.pip.corner = .bottomRight; spec.pip.size = 0.25
        let l = Layout(blend: .pip, canvas: canvas, inputs: [Size(width: 1920, height: 1080), Size(width: 1280, height: 720), Size(width: 640, height: 480)], cells: spec)
        XCTAssertEqual(l.places[0], Rect(x: 0, y: 0, width: 1920, height: 1080))
        // 2% margins (38 px), 480 wide, 270 high for 16:9; the next one to its left, 4:3.
        XCTAssertEqual(l.places[1], Rect(x: 1920 - 38 - 480, y: 1080 - 38 - 270, width: 480, height: 270))
        XCTAssertEqual(l.places[2], Rect(x: 1920 - 38 - 480 - 38 - 480, y: 1080 - 38 - 360, width: 480, height: 360))
        spec.pip.corner = .topLeft
        XCTAssertEqual(Layout(blend: .pip, canvas: canvas, inputs: [canvas, canvas], cells: spec).places[1], Rect(x: 38, y: 38, width: 480, height: 270))
    }

    /// Borders are even strips inside each cell (pip: the insets only); a label sits inside the
    /// border in the bottom-left corner, its font scaled to the cell, cut to the cell's width.
    func testBordersAndLabels() {
        var spec = GridSpec(); spec.border = 3; spec.labels = ["camera one", String(repeating: "x", count: 200)]
        let l = Layout(blend: .grid, canvas: Size(width: 1920, height: 1080), inputs: [Size(width: 1920, height: 1080), Size(width: 1920, height: 1080)], cells: spec)
        XCTAssertEqual(l.decor.borders.count, 8)
        XCTAssertTrue(l.decor.borders.allSatisfy { $0.width == 4 || $0.height == 4 })
        let a = l.decor.labels[0]
        XCTAssertEqual(a.text, "camera one")
        XCTAssertEqual(a.scale, 6)  // 1 per 180 rows: the 1x2 grid's cells are 1080 high
        XCTAssertEqual(a.box.x, 4); XCTAssertEqual(a.box.y + a.box.height, l.places[0].height - 4)
        XCTAssertTrue(a.box.x % 2 == 0 && a.box.y % 2 == 0 && a.box.width % 2 == 0 && a.box.height % 2 == 0)
        let b = l.decor.labels[1]
        XCTAssertLessThan(b.text.count, 200)
        XCTAssertLessThanOrEqual(b.box.x + b.box.width, l.places[1].x + l.places[1].width - 4)
        var pip = GridSpec(); pip.border = 2
        XCTAssertEqual(Layout(blend: .pip, canvas: Size(width: 640, height: 360), inputs: [Size(width: 640, height: 360), Size(width: 640, height: 360)], cells: pip).decor.borders.count, 4)
        XCTAssertTrue(Layout(blend: .mix, canvas: Size(width: 64, height: 64), inputs: [Size(width: 64, height: 64)], cells: spec).decor.borders.isEmpty)
    }

    /// The canvas a single picture gives (composite's first input, concat, reverse, variants):
    /// even sides, at least 2, one rule for every job.
    func testAPictureGivesAnEvenCanvasOfAtLeastTwo() {
        XCTAssertEqual(Size(width: 1920, height: 1080).evenCanvas, Size(width: 1920, height: 1080))
        XCTAssertEqual(Size(width: 853, height: 481).evenCanvas, Size(width: 852, height: 480))
        XCTAssertEqual(Size(width: 1, height: 3).evenCanvas, Size(width: 2, height: 2))
        XCTAssertEqual(Size(width: 0, height: 0).evenCanvas, Size(width: 2, height: 2))
    }
}
