import Foundation
import TestSupport
import XCTest

/// `lockstep verify` names the frames where the filter chain changes, read from the provenance,
/// and they are the frames the `--filter-at` schedule says: the first at or after each T.
final class VerifyFilterSwitchTests: ScratchFolderTestCase {
    /// Per entry, the first output frame whose time is at or after T: ceil(T * fps), worked out
    /// here in floating point, apart from the product's exact arithmetic.
    func expected(_ initial: String, _ schedule: [(Double, String)], fps: Double) -> [[String: Any]] {
        [["frame": 0, "filter": initial]] + schedule.map { ["frame": Int((($0.0 * fps) - 1e-9).rounded(.up)), "filter": $0.1] }
    }

    func switches(_ movie: String) throws -> (json: [[String: Any]], text: String) {
        let r = try Processes.lockstep(["verify", "--json", movie])
        XCTAssertEqual(r.status, 0, r.stdout)
        let report = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let text = try Processes.lockstep(["verify", movie])
        return (report?["filterSwitches"] as? [[String: Any]] ?? [], text.stdout)
    }

    func assertSwitches(_ got: [[String: Any]], _ want: [[String: Any]], fps: Double, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(got.map { $0["frame"] as? Int }, want.map { $0["frame"] as? Int }, file: file, line: line)
        XCTAssertEqual(got.map { $0["filter"] as? String }, want.map { $0["filter"] as? String }, file: file, line: line)
        for s in got {
            XCTAssertEqual(s["time"] as? Double ?? -1, Double(s["frame"] as? Int ?? -1) / fps, accuracy: 1e-9, file: file, line: line)
        }
    }

    func testFilterSwitchesMatchTheScheduleToTheFrame() throws {
        // Barcoded fixture, 30 fps, 90 frames; two switches one frame apart (30 and 31).
        let schedule: [(Double, String)] = [(0.5, "mono"), (1, "invert"), (1.02, "none"), (2, "blur:radius=3")]
        let out = scratch.appendingPathComponent("f.mp4").path
        let r = try Processes.lockstep([
            "filter", Repository.fixture("bg.mp4"), "-o", out, "--quiet", "--filter", "rosy",
            "--filter-at", schedule.map { "\($0.0)=\($0.1)" }.joined(separator: ";")
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let want = expected("rosy", schedule, fps: 30)
        XCTAssertEqual(want.map { $0["frame"] as? Int }, [0, 15, 30, 31, 60])
        let got = try switches(out)
        assertSwitches(got.json, want, fps: 30)
        XCTAssertTrue(
            got.text.contains(
                "\nfilters: rosy from frame 0 (0.000 s), mono from frame 15 (0.500 s), invert from frame 30 (1.000 s), "
                    + "none from frame 31 (1.033 s), blur:radius=3 from frame 60 (2.000 s)\nok\n"), got.text)
    }

    func testCompositeSwitchesOnAClipFromASecondGenerator() throws {
        // ffmpeg's testsrc2 at 25 fps in Matroska, mixed with the fixture; no --filter: "none" first.
        let gen = scratch.appendingPathComponent("gen.mkv").path
        try Processes.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", gen
            ])
        let schedule: [(Double, String)] = [(0.3, "mono"), (0.36, "invert"), (1, "none"), (1.5, "sepia:intensity=0.5")]
        let out = scratch.appendingPathComponent("c.mp4").path
        let r = try Processes.lockstep([
            "composite", "--blend", "mix", "-o", out, "--quiet", gen, Repository.fixture("bg.mp4"),
            "--filter-at", schedule.map { "\($0.0)=\($0.1)" }.joined(separator: ";")
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let want = expected("none", schedule, fps: 25)
        XCTAssertEqual(want.map { $0["frame"] as? Int }, [0, 8, 9, 25, 38])
        assertSwitches(try switches(out).json, want, fps: 25)
    }

    func testAMovieWithoutFiltersReportsNoSwitches() throws {
        let r = try Processes.lockstep(["verify", "--json", Repository.fixture("bg.mp4")])
        XCTAssertFalse(r.stdout.contains("filterSwitches"), r.stdout)
    }
}
