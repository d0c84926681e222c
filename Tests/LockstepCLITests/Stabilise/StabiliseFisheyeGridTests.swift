import Foundation
import TestSupport
import XCTest

/// A fisheye comes out rectilinear, measured from the outside: scripts/tools/measure-stabilise's `grid`
/// camera (the published GoPro HERO5 Black Wide profile, Fixtures/lens, rendered by OpenCV's
/// fisheye model, looking at a checkerboard on a plane while it shakes) is stabilised with that
/// profile; OpenCV finds the board's 9 x 5 inner corners in input and output frames and fits a
/// straight line to each row and column. Straight lines stay straight only through a pinhole:
/// the input's bend by pixels, the output's must not.
/// `--no-shake`: the script's shake and wobble measures (optical flow through every frame) are
/// not this test's claim and the grid variant checks nothing with them; left out, they cost nothing.
/// 3 s, not 4: straightness is measured on frames 15, 45, 75 (every 30th from the 15th), three
/// frames as the test asks; a fourth second only rendered, stabilised and searched one more.
final class StabiliseFisheyeGridTests: XCTestCase {
    func testFisheyeLinesComeOutStraight() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("stabilise-grid-\(UUID())")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try Processes.run(
            Repository.root.appendingPathComponent("scripts/tools/measure-stabilise").path,
            ["--bin", Repository.binary.path, "--variants", "grid", "--seconds", "3", "--size", "640x360", "--no-vidstab", "--no-shake", "--out", out.path],
            timeout: 900)
        let text = String(decoding: r.stdout, as: UTF8.self) + r.stderr
        let results = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("results.json"))) as? [[String: Any]]
        let row = try XCTUnwrap(results?.first, text)
        let input = try XCTUnwrap(row["straightIn"] as? [Any], text).compactMap { $0 as? Double }
        let output = try XCTUnwrap(row["straightOut"] as? [Any], text)
        let found = output.compactMap { $0 as? Double }
        XCTAssertEqual(found.count, output.count, "the board in every measured output frame: \(text)")
        XCTAssertGreaterThanOrEqual(found.count, 3, text)
        XCTAssertFalse(input.isEmpty, "the bent board found in the input: \(text)")
        // The fisheye bends the rows and columns (about 1.2 px RMS at this size); the output's
        // are straight to the corner finder's precision.
        XCTAssertGreaterThan(input.min() ?? 0, 0.8, "the input's lines are bent: \(text)")
        XCTAssertLessThanOrEqual(found.max() ?? .infinity, 0.25, "the output's lines are straight: \(text)")
        XCTAssertEqual(r.status, 0, "the script's own checks: \(text)")
    }
}
