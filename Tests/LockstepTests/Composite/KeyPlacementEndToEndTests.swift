import Foundation
import XCTest

@testable import Lockstep

/// Issue 41 (9): `--fg-scale`, `--fg-position` and `--bg-fit` through the command, checked on
/// the pictures the ffmpeg CLI decodes: where the keyed subject lands, and that a portrait
/// background fills a landscape canvas with `fill`. Every output passes `lockstep verify`.
///
/// fg.mp4 (320x240, the canvas): a green screen with a grey box (luma 128) at x 80-240,
/// y 160-220; the background a flat blue portrait (180x320, luma about 82), made here.
final class KeyPlacementEndToEndTests: ScratchTestCase {
    var exe: String {
        let products = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL.deletingLastPathComponent() ?? Bundle.main.bundleURL
        return products.appendingPathComponent("lockstep").path
    }

    func portrait() throws -> String {
        let path = scratch.appendingPathComponent("portrait.mp4").path
        try Shell.check(
            "ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x3050D0:s=180x320:r=30:d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", path])
        return path
    }

    /// The chromakey of fg.mp4 over `background` with `extra` options, verified, decoded.
    func key(over background: String, _ extra: [String], file: StaticString = #filePath, line: UInt = #line) throws -> LumaVideo {
        let out = scratch.appendingPathComponent("keyed-\(UUID().uuidString.prefix(6)).mp4").path
        let r = try Shell.run(exe, ["composite", "--quiet", "--blend", "chromakey", "--crf", "0", "--audio", "none", "-o", out, Fixtures.url("fg.mp4").path, background] + extra)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        let v = try Shell.run(exe, ["verify", out])
        XCTAssertEqual(v.status, 0, String(decoding: v.stdout, as: UTF8.self), file: file, line: line)
        return try LumaVideo.decode(URL(fileURLWithPath: out))
    }

    /// The box holding the subject in frame `k`: the pixels whose luma is the grey box's
    /// (128 +- 12) with all of their 5x5 neighbourhood (clamped at the canvas's edges), grown
    /// back by 2. (A single pixel of that luma is also where the barcode's black meets its white.)
    func subjectBox(_ v: LumaVideo, frame k: Int = 20) -> (x: ClosedRange<Int>, y: ClosedRange<Int>)? {
        let f = v.frames[k], w = v.width, h = v.height
        func grey(_ x: Int, _ y: Int) -> Bool { abs(Int(f[min(max(y, 0), h - 1) * w + min(max(x, 0), w - 1)]) - 128) <= 12 }
        var xs: [Int] = [], ys: [Int] = []
        for y in 0..<h {
            for x in 0..<w where (-2...2).allSatisfy({ dy in (-2...2).allSatisfy { dx in grey(x + dx, y + dy) } }) {
                xs.append(x); ys.append(y)
            }
        }
        guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() else { return nil }
        return (max(0, x0 - 2)...min(w - 1, x1 + 2), max(0, y0 - 2)...min(h - 1, y1 + 2))
    }

    func assertBox(_ box: (x: ClosedRange<Int>, y: ClosedRange<Int>)?, x: ClosedRange<Int>, y: ClosedRange<Int>, file: StaticString = #filePath, line: UInt = #line) {
        guard let box else { return XCTFail("no subject in the picture", file: file, line: line) }
        let edges = [(box.x.lowerBound, x.lowerBound, "left"), (box.x.upperBound, x.upperBound, "right"), (box.y.lowerBound, y.lowerBound, "top"), (box.y.upperBound, y.upperBound, "bottom")]
        for (got, want, name) in edges {
            XCTAssertEqual(Double(got), Double(want), accuracy: 2, "\(name) edge of the subject: \(box)", file: file, line: line)
        }
    }

    /// Mean luma of column `x` (or row `y`) of frame `k`.
    func column(_ v: LumaVideo, _ x: Int, frame k: Int = 20) -> Double { Double((0..<v.height).map { Int(v.frames[k][$0 * v.width + x]) }.reduce(0, +)) / Double(v.height) }
    func row(_ v: LumaVideo, _ y: Int, frame k: Int = 20) -> Double { Double((0..<v.width).map { Int(v.frames[k][y * v.width + $0]) }.reduce(0, +)) / Double(v.width) }

    func testTheBackgroundFillsTheCanvasWithFillAndHasBarsWithFit() throws {
        let bg = try portrait()
        let fit = try key(over: bg, [])
        XCTAssertEqual(fit.frames.count, 60)
        // The portrait fitted into 320x240: 136 wide, bars of 92 either side.
        XCTAssertLessThan(column(fit, 4), 3, "no bar on the left with --bg-fit fit")
        XCTAssertLessThan(column(fit, 315), 3, "no bar on the right with --bg-fit fit")
        let fill = try key(over: bg, ["--bg-fit", "fill"])
        for (name, value) in [("left", column(fill, 0)), ("right", column(fill, 319)), ("top", row(fill, 0)), ("bottom", row(fill, 239))] {
            XCTAssertEqual(value, 82, accuracy: 4, "\(name) edge under --bg-fit fill")
        }
        // The subject where it always was.
        assertBox(subjectBox(fill), x: 80...239, y: 160...219)
    }

    func testTheForegroundIsScaledAndPlaced() throws {
        let bg = try portrait()
        // Half size in the bottom-right corner: the 160x120 foreground at 160,120, its box at
        // half its coordinates from there.
        let corner = try key(over: bg, ["--bg-fit", "fill", "--fg-scale", "0.5", "--fg-position", "bottom-right"])
        assertBox(subjectBox(corner), x: 200...279, y: 200...229)
        // The same by numbers; the screen around it keyed away (the background's luma at the
        // foreground's own corners and outside it).
        let numbers = try key(over: bg, ["--bg-fit", "fill", "--fg-scale", "0.5", "--fg-position", "1,1"])
        assertBox(subjectBox(numbers), x: 200...279, y: 200...229)
        for (x, y) in [(162, 122), (317, 237), (20, 20), (150, 230)] {
            XCTAssertEqual(Double(numbers.frames[20][y * 320 + x]), 82, accuracy: 4, "at \(x),\(y)")
        }
        // Twice the size, its bottom-right corner on the canvas's: 640x480 at -320,-240, so
        // only its bottom-right quarter shows and the box lands at 0-159, 80-199.
        let large = try key(over: bg, ["--bg-fit", "fill", "--fg-scale", "2", "--fg-position", "1,1"])
        assertBox(subjectBox(large), x: 0...159, y: 80...199)
        // A quarter size at the top-left.
        let small = try key(over: bg, ["--fg-scale", "0.25", "--fg-position", "0,0", "--bg-fit", "fill"])
        assertBox(subjectBox(small), x: 20...59, y: 40...54)
    }
}
