import Foundation
import TestSupport
import XCTest

/// Issue 41, item 6: `calibrate karma.mp4 -o k.json` was a usage error ("--imu is needed") where
/// `snake` follows the movie's own gyro. Now the movie's GPMF or CAMM track is the default trace,
/// and a movie without one is told what to give.
final class CalibrateOwnTraceTests: ScratchFolderTestCase {
    func testAMovieWithItsOwnGyroNeedsNoIMU() throws {
        let karma = Repository.shared("karma.mp4")
        let own = scratch.appendingPathComponent("own.json").path, named = scratch.appendingPathComponent("named.json").path
        let a = try Processes.lockstep(["calibrate", karma, "-o", own])
        XCTAssertEqual(a.status, 0, a.stderr)
        let b = try Processes.lockstep(["calibrate", karma, "--imu", karma, "-o", named])
        XCTAssertEqual(b.status, 0, b.stderr)
        XCTAssertEqual(a.stdout.replacingOccurrences(of: own, with: "OUT"), b.stdout.replacingOccurrences(of: named, with: "OUT"))
        func profile(_ path: String) throws -> [String: Any] {
            var p = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
            p["name"] = nil
            return p
        }
        XCTAssertEqual(NSDictionary(dictionary: try profile(own)), NSDictionary(dictionary: try profile(named)))
        // (That answer against karma's outside estimate: RealCameraCalibrateTests.)

        let plain = Repository.fixture("fg.mp4"), out = scratch.appendingPathComponent("fg.json").path
        let c = try Processes.lockstep(["calibrate", plain, "-o", out])
        XCTAssertEqual(c.status, 1)
        XCTAssertEqual(
            c.stderr,
            "Error: \(plain): no --imu TRACE given, and the movie has no gyro track of its own (GPMF or CAMM) to follow; give --imu TRACE (a trace store, a Gyroflow .gcsv, a .csv or a flight log).\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }
}
