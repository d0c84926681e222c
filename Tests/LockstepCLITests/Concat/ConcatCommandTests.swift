import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

/// `lockstep concat` at the command line: bad input is one line naming the file or option and
/// the cause, a non-zero exit, and nothing under the output's name (nor a temporary beside it).
final class ConcatCommandTests: ScratchFolderTestCase {
    func fixture(_ name: String) -> String { Repository.fixture(name) }
    var c0: String { fixture("concat/c0.mp4") }
    var c1: String { fixture("concat/c1.mp4") }

    func message(_ args: [String]) -> String {
        do {
            _ = try ConcatCommand.parse(args)
            return "accepted"
        } catch {
            return ConcatCommand.message(for: error)
        }
    }

    func testOptionsAreCheckedWithASentence() {
        XCTAssertEqual(message(["--max-duration", "0", "-o", "/tmp/o.mp4", c0]), "--max-duration must be a positive number of seconds; got 0.")
        XCTAssertEqual(message(["--max-duration=-2.5", "-o", "/tmp/o.mp4", c0]), "--max-duration must be a positive number of seconds; got -2.5.")
        XCTAssertEqual(message(["-o", "/tmp/o.mp4"]), "concat needs at least one clip.")
        XCTAssertEqual(message(["--size", "321x240", "-o", "/tmp/o.mp4", c0]), "--size 321x240: width and height must be even numbers of at least 2.")
        XCTAssertEqual(message(["--crossfade-ms", "0", "-o", "/tmp/o.mp4", c0]), "--crossfade-ms must be between 1 and 2000; got 0.")
        XCTAssertEqual(message(["--stall-timeout", "0", "-o", "/tmp/o.mp4", c0]), "--stall-timeout must be a positive number of seconds, at most 86400; got 0.0.")
        XCTAssertEqual(message(["--fps=-30", "-o", "/tmp/o.mp4", c0]), "--fps -30: the frame rate must be positive.")
        XCTAssertEqual(
            message(["--preset", "quick", "-o", "/tmp/o.mp4", c0]),
            "--preset quick is not an x264 preset; use one of ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo.")
        XCTAssertEqual(
            message(["--copy", "--max-duration", "2", "-o", "/tmp/o.mp4", c0]),
            "--copy cannot be combined with --max-duration: copied video is not re-encoded, so it cannot be cut, scaled or retimed.")
        XCTAssertEqual(message(["-o", "/tmp/o.mp4", c0, "/nonexistent/x.mp4"]), "/nonexistent/x.mp4: no such file.")
        XCTAssertEqual(message(["-o", c0, c0, c1]), "\(c0) is also an input; write the output somewhere else.")
        XCTAssertEqual(message(["--max-duration", "2.5", "-o", "/tmp/o.mp4", c0, c1]), "accepted")
    }

    /// Runs the binary; returns (status, stderr), and checks the folder holds only `keep`.
    func fails(_ args: [String], keep: [String] = []) throws -> (Int32, String) {
        let r = try Processes.lockstep(args, timeout: 120)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(try leftovers(), keep, "nothing is left under the output's name, nor a temporary")
        return (r.status, r.stderr)
    }

    func testBadClipsAreOneLineNamingTheFile() throws {
        let out = scratch.appendingPathComponent("out.mp4").path
        var r = try fails(["concat", c0, fixture("notmovie.mp4"), c1, "-o", out])
        XCTAssertEqual(r.0, 1)
        XCTAssertEqual(r.1, "Error: \(fixture("notmovie.mp4")): not a movie FFmpeg can read (Invalid data found when processing input)\n")
        r = try fails(["concat", c0, fixture("audioonly.m4a"), "-o", out])
        XCTAssertEqual(r.0, 1)
        XCTAssertEqual(r.1, "Error: \(fixture("audioonly.m4a")): no video stream\n")
        // Truncated in the middle: found only when its reading gets there, after c0 was encoded.
        r = try fails(["concat", c0, fixture("truncated.mp4"), c1, "-o", out])
        XCTAssertEqual(r.0, 1)
        XCTAssertEqual(r.1, "Error: \(fixture("truncated.mp4")): truncated file: its index lists 90 video frames, only 55 could be read\n")
        r = try fails(["concat", "--copy", fixture("concat/x0.mp4"), fixture("concat/x2.mp4"), "-o", out])
        XCTAssertEqual(r.0, 1)
        XCTAssertEqual(r.1, "Error: \(fixture("concat/x2.mp4")): cannot be joined by copy to \(fixture("concat/x0.mp4")): its profile is Constrained Baseline, the first clip's High\n")
        r = try fails(["concat", "--max-duration", "0", c0, "-o", out])
        XCTAssertEqual(r.0, 64)
        XCTAssertTrue(r.1.hasPrefix("Error: --max-duration must be a positive number of seconds; got 0.\n"), r.1)
    }

    func testAFailedRunLeavesAnExistingOutputAlone() throws {
        let out = try file("out.mp4", "what the user had")
        let r = try fails(["concat", c0, fixture("truncated.mp4"), "-o", out], keep: ["out.mp4"])
        XCTAssertEqual(r.0, 1)
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "what the user had")
    }

    func testASuccessfulRunSaysWhatItWroteAndVerifies() throws {
        let out = scratch.appendingPathComponent("out.mp4").path
        let r = try Processes.lockstep(["concat", c0, c1, "--max-duration", "1.5", "-o", out], timeout: 120)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "wrote \(out): 45 frames (30 + 15), 320x240 at 30 fps, 1.500000 s, audio 1.500000 s\n")
        // By time (the default since issue 21) no clip changes speed: nothing to say.
        XCTAssertEqual(r.stderr, "")
        let v = try Processes.lockstep(["verify", out])
        XCTAssertEqual(v.status, 0, v.stdout)
        XCTAssertEqual(try leftovers(), ["out.mp4"])
    }

    /// --keep-frames (the old join): one line says which clips change speed and by how much.
    func testKeepFramesSaysWhichClipsChangeSpeed() throws {
        let out = scratch.appendingPathComponent("out.mp4").path
        let r = try Processes.lockstep(["concat", "--keep-frames", c0, c1, "--max-duration", "1.5", "-o", out], timeout: 120)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "wrote \(out): 45 frames (30 + 15), 320x240 at 30 fps, 1.500000 s, audio 1.500000 s\n")
        XCTAssertEqual(
            r.stderr,
            "note: --keep-frames shows every frame once at 30 fps: clip 2 (\(c1), 25 fps) at 1.2x speed; "
                + "the sound keeps its own time, so the picture drifts from it (without --keep-frames every clip keeps its timeline and its sync)\n")
        XCTAssertEqual(try Processes.lockstep(["verify", out]).status, 0)
    }

    func testCtrlCStopsTheJoinAndLeavesNothing() throws {
        let out = scratch.appendingPathComponent("out.mp4").path
        let p = Process()
        p.executableURL = Repository.binary
        p.arguments = ["concat", "--quiet"] + Array(repeating: [fixture("concat/c3.mp4"), c0], count: 30).flatMap { $0 } + ["-o", out]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertTrue(Processes.waitUntilCatching(p.processIdentifier, SIGINT), "concat never caught SIGINT")
        XCTAssertTrue(p.isRunning, "the join of 60 clips takes longer than that")
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 130)
        XCTAssertEqual(try leftovers(), [])
    }

    /// GPUImage #744, VidClips' frozen writer, as composite's StallTests: a clip that stops
    /// delivering half-way ends the join with an error naming it (the watchdog), not a hang.
    func testAClipThatStopsDeliveringEndsTheJoinWithAnErrorNamingIt() throws {
        let fifo = scratch.appendingPathComponent("camera.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // Half of a Matroska clip, then the writer keeps the pipe open and says nothing.
        let feeder = try StalledFeed.start(halfOf: fixture("late.mkv"), into: fifo)
        defer { feeder.terminate() }
        let out = scratch.appendingPathComponent("out.mp4").path
        let started = Date()
        let r = try Processes.lockstep(["concat", "--stall-timeout", "2", "--quiet", "-o", out, fixture("q0.mp4"), fifo], timeout: 60)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: input 2 (\(fifo)) made no progress for 2 s while reading and decoding; stopped\n")
        XCTAssertLessThan(elapsed, 15, "stopped by the watchdog, not by the feeder going away")
        XCTAssertEqual(try leftovers(), ["camera.fifo"])
    }

    /// A concat with a note about its output (karma.mp4's telemetry, not kept beside a clip
    /// without any) stopped by SIGTERM part way: one line, exit 143, nothing left; run to its
    /// end, the note once (reverse's case: ReverseCommandTests.testAStoppedReverseSaysOneLine).
    func testAStoppedConcatSaysOneLine() throws {
        let karma = Repository.shared("karma.mp4"), q0 = fixture("q0.mp4")
        let out = scratch.appendingPathComponent("o.mp4").path
        let stopped = try Processes.lockstepStopped(["concat", karma, q0, "-o", out], by: SIGTERM) { try !leftovers().isEmpty }
        XCTAssertEqual(stopped.reason, .exit, stopped.stderr)
        XCTAssertEqual(stopped.status, 143, stopped.stderr)
        XCTAssertEqual(stopped.stderr, "Error: cancelled\n")
        XCTAssertEqual(try leftovers(), [])
        let done = try Processes.lockstep(["concat", karma, q0, "-o", out, "--to", "0.5", "--quiet"])
        XCTAssertEqual(done.status, 0, done.stderr)
        XCTAssertEqual(
            done.stderr,
            "note: camera telemetry is not kept in the output: clip 2 (\(q0)) has no GPMF or CAMM track, clip 1 (\(karma)) has one\n")
    }
}
