import Foundation
import TestSupport
import XCTest

/// End to end on an independent shaky camera (scripts/tools/measure-stabilise: a real photograph seen
/// by a rotation-only camera with a pan and the hand shake, 1.99 degrees RMS in 2-15 Hz, a 1 kHz gyro with turned
/// axes, 60 ms late), small and short here: calibrate runs inside `stabilise`, and OpenCV's
/// feature tracks (the script's outside measure) must see the shake in the 2-15 Hz band cut.
/// The full measure (720p, rolling shutter, fisheye, horizon, vid.stab) is the script's.
final class StabiliseShakeTests: XCTestCase {
    func testShakeIsCutOnAnIndependentCamera() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("stabilise-shake-\(UUID())")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try Processes.run(
            Repository.root.appendingPathComponent("scripts/tools/measure-stabilise").path,
            ["--bin", Repository.binary.path, "--variants", "global", "--seconds", "4", "--size", "480x270", "--no-vidstab", "--out", out.path],
            timeout: 900)
        let text = String(decoding: r.stdout, as: UTF8.self)
        let results = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("results.json"))) as? [[String: Any]]
        let row = try XCTUnwrap(results?.first, text + r.stderr)
        let shakeIn = try XCTUnwrap((row["in"] as? [String: Any])?["shake"] as? Double)
        let shakeOut = try XCTUnwrap((row["out"] as? [String: Any])?["shake"] as? Double)
        XCTAssertGreaterThan(shakeIn, 0.5, "the camera shakes: \(text)")
        XCTAssertGreaterThan(shakeIn / shakeOut, 5, "shake cut from \(shakeIn) to \(shakeOut) degrees: \(text)")
    }
}
