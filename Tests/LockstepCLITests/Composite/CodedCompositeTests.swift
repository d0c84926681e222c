import Foundation
import TestSupport
import XCTest

/// Lockstep on itself: a composite of coded inputs keeps each input's code readable where it is
/// not covered, and `verify --coded --input K` reads input K's.
final class CodedCompositeTests: ScratchFolderTestCase {
    func testQuadKeepsEveryInputsCodeAndAudioOfTheHeardInput() throws {
        let a = scratch.appendingPathComponent("a.mkv").path, b0 = scratch.appendingPathComponent("b0.mkv").path
        let b = scratch.appendingPathComponent("b.mp4").path, out = scratch.appendingPathComponent("quad.mp4").path
        for p in [a, b0] {
            let r = try Processes.lockstep(["testsrc", "-o", p, "--duration", "4", "--size", "640x360", "--codec", "ffv1"])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        // Input 1 starts at its code 30 (its first second cut off by the ffmpeg CLI).
        try Processes.check(
            "ffmpeg",
            [
                "-v", "error", "-y", "-i", b0, "-vf", "trim=start_frame=30,setpts=PTS-STARTPTS",
                "-af", "atrim=start=1,asetpts=PTS-STARTPTS", "-c:v", "libx264", "-crf", "18", "-c:a", "aac", b
            ])
        // Only input 0 is heard: two codes mixed would overlap.
        let c = try Processes.lockstep(["composite", "--blend", "quad", "--gain", "1,0", "--quiet", "-o", out, a, b])
        XCTAssertEqual(c.status, 0, c.stderr)
        for (k, first) in [(0, 0), (1, 30)] {
            let r = try Processes.lockstep(["verify", "--coded", "--json", "--input", String(k), out])
            let doc = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any] ?? [:]
            XCTAssertEqual(doc["firstCode"] as? Int, first, "input \(k): \(r.stdout) \(r.stderr)")
            XCTAssertEqual(doc["unreadable"] as? [[Int]], [], "input \(k)")
            XCTAssertEqual((doc["missing"] as? [Any])?.count, 0, "input \(k)")
            XCTAssertEqual((doc["repeated"] as? [Any])?.count, 0, "input \(k)")
            if k == 0 {
                XCTAssertEqual(r.status, 0, r.stdout)
                XCTAssertEqual((doc["avOffsetMs"] as? [String: Any])?["mean"] as? Double ?? 99, 0, accuracy: 1)
            }
        }
        // Chromakey: the coded foreground (no key colour in it) covers the canvas; its code is read.
        let keyed = scratch.appendingPathComponent("key.mp4").path
        XCTAssertEqual(try Processes.lockstep(["composite", "--blend", "chromakey", "--gain", "1,0", "--quiet", "-o", keyed, a, b]).status, 0)
        let k0 = try Processes.lockstep(["verify", "--coded", "--input", "0", keyed])
        XCTAssertEqual(k0.status, 0, k0.stdout + k0.stderr)
        XCTAssertTrue(k0.stdout.hasPrefix("\(keyed): 90 frames, codes 0-89 in output frames 0-89"), k0.stdout)
        let bad = try Processes.lockstep(["verify", "--coded", "--input", "2", out])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr, "Error: \(out): --input 2 is out of range: the composite has 2 inputs (0 to 1).\n")
    }
}
