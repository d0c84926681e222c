import Foundation
import TestSupport
import XCTest

/// `lockstep calibrate` stopped by a signal: it had no handler of its own (SIGINT/SIGTERM killed
/// it by the default action, no "Error:" line, a shell saw no 130/143 from the program, and a
/// trace read from a FIFO could not be stopped cleanly). Now: exit 128 + the signal, "Error:
/// cancelled", no profile under -o's name, nothing new in the folder.
final class CalibrateSignalTests: ScratchFolderTestCase {
    /// A 60 s 320x180 clip made by the ffmpeg CLI and a gyro CSV covering it, written here.
    /// calibrate is signalled 0.3 s after it opens the clip, and a 60 s clip keeps it busy for
    /// seconds even at 320x180; 640x360 only cost four times the encoding (4.2 CPU-seconds).
    func longClipAndTrace() throws -> (clip: String, trace: String) {
        let clip = scratch.appendingPathComponent("long.mp4").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = [
            "-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=60",
            "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-threads", "1", clip
        ]
        try p.run(); p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        var text = "t_ns,gx,gy,gz\n"
        for i in 0...12_000 { text += "\(i * 5_000_000),0.01,0.02,0\n" }
        return (clip, try file("trace.csv", text))
    }

    func testSIGINTAndSIGTERMWhileDecodingExit130And143LeavingNoProfile() throws {
        let (clip, trace) = try longClipAndTrace()
        let out = scratch.appendingPathComponent("profile.json").path
        let before = try leftovers()
        for (sig, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            let r = try runStopped(["calibrate", clip, "--imu", trace, "-o", out], with: sig, failure: "calibrate ran on after signal \(sig)")
            XCTAssertEqual(r.status, status)
            // The token's way out, not the 3 s fallback's (which says so): no wall clock, which
            // a loaded machine stretched past the 4.4 s this test allowed.
            XCTAssertEqual(r.stderr, "Error: cancelled\n")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
            XCTAssertEqual(try leftovers(), before)
        }
    }

    // A FIFO as the movie: the open blocks; the token's interrupt ends it.
    func testStoppedWhileOpeningAFIFOMovieExits130() throws {
        let fifo = scratch.appendingPathComponent("camera.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        var text = "t_ns,gx,gy,gz\n"
        for i in 0...200 { text += "\(i * 5_000_000),0.01,0.02,0\n" }
        let trace = try file("trace.csv", text)
        let out = scratch.appendingPathComponent("profile.json").path
        let r = try runStopped(["calibrate", fifo, "--imu", trace, "-o", out], with: SIGINT, failure: "calibrate ran on after SIGINT")
        XCTAssertEqual(r.status, 130)
        XCTAssertEqual(r.stderr, "Error: cancelled\n")
        XCTAssertEqual(try leftovers(), ["camera.fifo", "trace.csv"])
    }

    // The full sweep of 2026-11-27: a command stopped before its job starts (verify opening its
    // movie, snake opening its trace, both a FIFO) ended with 130 and no line at all.
    func testStoppedBeforeTheJobStartsSaysCancelled() throws {
        let fifo = scratch.appendingPathComponent("in.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let out = scratch.appendingPathComponent("o.mp4").path
        for args in [["verify", "--coded", fifo], ["snake", Repository.fixture("synthetic/pan.mp4"), "--imu", fifo, "-o", out]] {
            let r = try runStopped(args, with: SIGINT, failure: "\(args[0]) ran on after SIGINT")
            XCTAssertEqual(r.status, 130, args[0])
            XCTAssertEqual(r.stderr, "Error: cancelled\n", args[0])
            XCTAssertEqual(try leftovers(), ["in.fifo"], args[0])
        }
    }

    // A FIFO as the trace: read() blocks where no token reaches; the fallback ends the process.
    func testStoppedWhileReadingAFIFOTraceExits143() throws {
        let fifo = scratch.appendingPathComponent("trace.csv").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let out = scratch.appendingPathComponent("profile.json").path
        let r = try runStopped(
            ["calibrate", Repository.fixture("q0.mp4"), "--imu", fifo, "-o", out], with: SIGTERM,
            failure: "calibrate ran on after SIGTERM")
        XCTAssertEqual(r.status, 143)
        XCTAssertEqual(r.stderr, "Error: cancelled (the job did not stop within 3 s of the signal)\n")
        XCTAssertEqual(try leftovers(), ["trace.csv"])
    }
}
