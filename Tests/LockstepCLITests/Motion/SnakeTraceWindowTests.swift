import Foundation
import TestSupport
import XCTest

/// The snake reads only the part of a trace its clip needs (issue 26): a 2 s clip with a 1-hour
/// trace took 649 MB and 51 s (debug build); memory now follows the clip, not the trace.
final class SnakeTraceWindowTests: ScratchFolderTestCase {
    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// A store holding one trace of `seconds` at `rate` Hz: made by `imu import` of a short
    /// file (from -2 s), then filled by Python's sqlite3 (an outside writer, fast).
    func longStore(seconds: Int, rate: Int) throws -> String {
        let store = path("long.sqlite")
        let seed = try file("seed.csv", "t_ns,gx,gy,gz\n-2000000000,0.1,0.2,0.3\n-1995000000,0.1,0.2,0.3\n")
        let r = try Processes.lockstep(["imu", "import", seed, "-o", store])
        XCTAssertEqual(r.status, 0, r.stderr)
        let script = """
            import sqlite3, sys, math
            c = sqlite3.connect(sys.argv[1])
            n, step = int(sys.argv[2]), int(sys.argv[3])
            c.executemany("INSERT INTO sample (trace_id, t_ns, gx, gy, gz) VALUES (1, ?, ?, ?, ?)",
                          ((-1_990_000_000 + i * step, 0.3 * math.sin(i / 50), 0.2 * math.cos(i / 70), 0.0) for i in range(n)))
            c.commit()
            """
        let p = try Processes.run("python3", ["-c", script, store, String(seconds * rate), String(1_000_000_000 / rate)])
        XCTAssertEqual(p.status, 0, p.stderr)
        return store
    }

    /// Peak resident memory (MB) and status of `lockstep ARGS`, measured by GNU time.
    func peak(_ args: [String]) throws -> (mb: Int, status: Int32, stderr: String) {
        let report = path("time.txt")
        let r = try Processes.run("/usr/bin/time", ["-f", "%M", "-o", report, Repository.binary.path] + args, timeout: 600)
        let kb = Int(try String(contentsOfFile: report, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last ?? "") ?? -1
        return (kb / 1024, r.status, r.stderr)
    }

    func testATwoSecondClipWithAnHourLongTraceTakesMemoryForTheClip() throws {
        let store = try longStore(seconds: 3600, rate: 200)
        let clip = path("clip.mp4")
        XCTAssertEqual(try Processes.lockstep(["testsrc", "--duration", "2", "--size", "320x240", "-o", clip]).status, 0)
        let started = Date()
        let r = try peak(["snake", clip, "--imu", store, "--quiet", "-o", path("snake.mp4")])
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(r.status, 0, r.stderr)
        print("snake, 2 s clip, 1-hour trace (720,000 samples): \(r.mb) MB peak, \(String(format: "%.1f", seconds)) s")
        XCTAssertLessThan(r.mb, 200, "memory follows the clip (it was 649 MB)")
        // The clip's motion is the trace's: every frame paired.
        let report = path("r.csv")
        let withReport = try Processes.lockstep(["snake", clip, "--imu", store, "--quiet", "--report", report, "-o", path("s2.mp4")])
        XCTAssertEqual(withReport.status, 0, withReport.stderr)
        XCTAssertTrue(withReport.stdout.contains("motion: 60 frames paired, 0 without"), withReport.stdout)
    }
}
