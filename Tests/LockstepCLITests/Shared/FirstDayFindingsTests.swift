import Foundation
import TestSupport
import XCTest

/// Issue 41, item 8: the smaller things that each cost a new user minutes, on the real files
/// they were found on (../shared/media) and against an outside reader where there is one.
final class FirstDayFindingsTests: ScratchFolderTestCase {
    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// `imu export --from 30 --to 40` on a trace of 12 s wrote an empty file and exited 0.
    func testAnExportWindowPastTheTraceIsRefused() throws {
        let karma = Repository.shared("karma.mp4"), out = path("k.csv")
        let r = try Processes.lockstep(["imu", "export", karma, "--from", "30", "--to", "40", "-o", out])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: --from 30 --to 40: trace 1 of \(karma) has no samples there; it runs from 0 to 12.065 s; nothing was written\n")
        XCTAssertEqual(try leftovers(), [])
        // A window inside the trace still writes.
        XCTAssertEqual(try Processes.lockstep(["imu", "export", karma, "--from", "3", "--to", "4", "-o", out]).status, 0)
    }

    /// `probe` said 86 frames for the iPhone clip, where every other command (and ffprobe's
    /// decoded count) sees 77: its edit list hides 9.
    func testProbeCountsTheFramesAnEditListShows() throws {
        let clip = Repository.shared("phones/sample_edit_list.mp4")
        let decoded = String(
            decoding: try Processes.check(
                "ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", clip]), as: UTF8.self)
        XCTAssertEqual(decoded.trimmingCharacters(in: CharacterSet(charactersIn: ", \n")), "77")
        let r = try Processes.lockstep(["probe", clip])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains(", 77 frames (and 9 an edit list hides), "), r.stdout)
        let json = try Processes.lockstep(["probe", "--json", clip])
        let doc = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        let video = (doc["streams"] as! [[String: Any]])[0]
        XCTAssertEqual(video["frames"] as? Int, 77)
        XCTAssertEqual(video["hiddenFrames"] as? Int, 9)
        XCTAssertEqual(video["packets"] as? Int, 86)
    }

    /// `verify` on a camera original called 0.1 ms of timestamp jitter an irregular step; a
    /// frame 3 ms off is still one, and Lockstep's own outputs keep the exact bound.
    func testCameraJitterIsNotAnIrregularStep() throws {
        func clip(_ name: String, jitter: String) throws -> String {
            let out = path(name)
            try Processes.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=30:d=2", "-vf", "settb=1/90000,setpts='(N/30 + \(jitter))/TB'",
                    "-fps_mode", "passthrough", "-enc_time_base", "1:90000", "-video_track_timescale", "90000", "-c:v", "libx264", "-preset", "ultrafast", out
                ])
            return out
        }
        let jittery = try clip("jitter.mp4", jitter: "0.0001*mod(N,2)")
        let r = try Processes.lockstep(["verify", jittery])
        XCTAssertEqual(r.status, 0, r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("ok\n"), r.stdout)
        let off = try clip("off.mp4", jitter: "0.003*eq(N,30)")
        let bad = try Processes.lockstep(["verify", off])
        XCTAssertEqual(bad.status, 1, bad.stdout)
        XCTAssertTrue(bad.stdout.contains("irregularStep: frame 30 comes 36.3 ms after frame 29"), bad.stdout)
    }

    /// Calibrating karma against an unrelated flight log said to widen --search-ms, which
    /// already covered every offset at which the log covers the clip.
    func testAnUnrelatedLogIsCalledThatNotANarrowSearch() throws {
        let karma = Repository.shared("karma.mp4"), log = Repository.shared("blackbox/LOG00037.BFL")
        let r = try Processes.lockstep(["calibrate", karma, "--imu", log, "-o", path("k.json")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(
            r.stderr.hasPrefix("Error: \(karma): the clip does not match the trace: no orientation makes the gyro turn like the picture at any offset where the trace covers the video ("), r.stderr)
        XCTAssertTrue(r.stderr.hasSuffix("; is it the right trace?\n"), r.stderr)
        XCTAssertFalse(r.stderr.contains("--search-ms"), r.stderr)
        XCTAssertEqual(try leftovers(), [])
    }

    /// `filter --variants -o looks/` failed when the folder did not exist: it is made, and
    /// removed again when no variant could be written.
    func testVariantsMakeTheirFolder() throws {
        let looks = path("looks")
        let r = try Processes.lockstep(["filter", Repository.fixture("bg.mp4"), "--variants", "mono;rosy", "--quiet", "-o", looks + "/"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: looks).sorted(), ["mono.mp4", "rosy.mp4"])
        let none = path("none")
        let bad = try Processes.lockstep(["filter", Repository.fixture("notmovie.mp4"), "--variants", "mono", "--quiet", "-o", none])
        XCTAssertEqual(bad.status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: none), "the folder made for nothing is gone")
    }
}
