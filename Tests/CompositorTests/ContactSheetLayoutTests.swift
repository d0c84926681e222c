import Compositor
import XCTest

final class ContactSheetLayoutTests: XCTestCase {
    func testThreeTilesInOneRow() {
        let l = ContactSheetLayout(count: 3, tile: Size(width: 320, height: 180))
        XCTAssertEqual(l.columns, 3)
        XCTAssertEqual(l.rows, 1)
        XCTAssertEqual(l.labelScale, 2)
        // 8 + 3 x (320 + 8) wide; 8 + 180 + label band 40 (two lines of 9 x 2, 4 above, even) + 8 high.
        XCTAssertEqual(l.canvas, Size(width: 992, height: 236))
        XCTAssertEqual(
            l.tiles,
            [
                Rect(x: 8, y: 8, width: 320, height: 180), Rect(x: 336, y: 8, width: 320, height: 180),
                Rect(x: 664, y: 8, width: 320, height: 180)
            ])
        XCTAssertEqual(l.labels[1], Rect(x: 336, y: 192, width: 320, height: 36))
        XCTAssertEqual(l.lineStep, 18)
    }

    func testFiveTilesWrapAfterFourAndNothingOverlaps() {
        let l = ContactSheetLayout(count: 5, tile: Size(width: 161, height: 121))
        XCTAssertEqual(l.columns, 4)
        XCTAssertEqual(l.rows, 2)
        XCTAssertEqual(l.labelScale, 1)
        XCTAssertEqual(l.tiles[4], Rect(x: 8, y: 8 + 120 + 22 + 8, width: 160, height: 120), "odd sides made even; band 2 x 9 + 4, made even")
        let all = l.tiles + l.labels
        for r in all {
            XCTAssertTrue(r.x % 2 == 0 && r.y % 2 == 0 && r.width % 2 == 0 && r.height % 2 == 0, "\(r) even")
            XCTAssertTrue(r.x >= 0 && r.y >= 0 && r.x + r.width <= l.canvas.width && r.y + r.height <= l.canvas.height, "\(r) inside")
        }
        for i in all.indices {
            for j in all.indices where i < j {
                let a = all[i], b = all[j]
                let apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y
                XCTAssertTrue(apart, "\(a) and \(b) overlap")
            }
        }
        // Two label lines fit in the band.
        XCTAssertLessThanOrEqual(l.lineStep + BitmapFont.height(scale: l.labelScale), l.labels[0].height)
    }

    func testLabelsAreCutToTheTileWidth() {
        XCTAssertEqual(ContactSheetLayout.fit("short.mp4", width: 160, scale: 1), "short.mp4")
        let cut = ContactSheetLayout.fit("a-very-long-clip-name.mp4", width: 60, scale: 1)
        XCTAssertEqual(cut, "a-very-...")
        XCTAssertLessThanOrEqual(BitmapFont.width(of: cut), 60)
        XCTAssertLessThanOrEqual(BitmapFont.width(of: ContactSheetLayout.fit(String(repeating: "x", count: 200), width: 320, scale: 2)), 320)
        XCTAssertEqual(ContactSheetLayout.fit("abcdef", width: 17, scale: 1), "abc", "3 cells (17 pixels): no room for the dots, the start only")
    }

    func testDurationLabels() {
        XCTAssertEqual(ContactSheetLayout.durationLabel(seconds: 4), "4.00 s")
        XCTAssertEqual(ContactSheetLayout.durationLabel(seconds: 12.5), "12.50 s")
        XCTAssertEqual(ContactSheetLayout.durationLabel(seconds: 65.25), "1:05.3")
        XCTAssertEqual(ContactSheetLayout.durationLabel(seconds: 3723), "1:02:03")
        XCTAssertEqual(ContactSheetLayout.durationLabel(seconds: .nan), "duration unknown")
    }
}
