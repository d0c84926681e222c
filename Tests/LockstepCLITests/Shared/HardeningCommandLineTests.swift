import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

/// Issue 9's option values, each refused with one sentence naming the option (exit 64).
final class OptionHardeningTests: XCTestCase {
    var fg: String { Repository.fixture("fg.mp4") }
    var bg: String { Repository.fixture("bg.mp4") }

    func composite(_ args: [String]) -> String {
        do { _ = try CompositeCommand.parse(args + ["-o", "/tmp/o.mp4", fg, bg]); return "accepted" } catch { return CompositeCommand.message(for: error) }
    }
    func snake(_ args: [String]) -> String {
        do { _ = try SnakeCommand.parse([fg, "--imu", bg, "-o", "/tmp/o.mp4"] + args); return "accepted" } catch { return SnakeCommand.message(for: error) }
    }

    func testNumbersThatOverflowOrAreNotNumbers() {
        XCTAssertEqual(composite(["--blend", "mix", "--size", "4294967296x2"]), "--size 4294967296x2: width and height must be at most 16384.")
        XCTAssertEqual(
            composite(["--blend", "mix", "--stall-timeout", "1e11"]),
            "--stall-timeout must be a positive number of seconds, at most 86400; got 100000000000.0.")
        XCTAssertEqual(composite(["--blend", "mix", "--weights", "1e308,1e308"]), "--weights are too large: their sum is not a finite number.")
        XCTAssertEqual(composite(["--blend", "mix", "--weights", "inf,1"]), "--weights must be finite numbers; got inf.")
        XCTAssertEqual(composite(["--blend", "mix", "--weights", "nan,1"]), "--weights must be finite numbers; got nan.")
        XCTAssertEqual(composite(["--blend", "mix", "--gain", "nan,1"]), "--gain values must be between 0 and 16.")
        XCTAssertEqual(composite(["--blend", "mix", "--fps", "5000"]), "--fps 5000: the frame rate must be between 1/1000 and 1000.")
        XCTAssertEqual(composite(["--blend", "mix", "--fps=-30"]), "--fps -30: the frame rate must be positive.")
        XCTAssertEqual(
            composite(["--blend", "mix", "--fps", "201001753010175.3013013"]),
            "The value '201001753010175.3013013' is invalid for '--fps <N[/D]>'")
        XCTAssertEqual(composite(["--blend", "mix", "--crf=-1"]), "--crf must be between 0 and 51; got -1.")
        XCTAssertEqual(composite(["--blend", "chromakey", "--similarity", "nan"]), "--similarity must be between 0 and 1; got nan.")
        XCTAssertEqual(composite(["--blend", "chromakey", "--smoothness", "inf"]), "--smoothness must be between 0 and 1; got inf.")
        XCTAssertEqual(composite(["--blend", "chromakey", "--key-color", "+12345"]), "The value '+12345' is invalid for '--key-color <RRGGBB>'")
        XCTAssertEqual(composite(["--blend", "mix", "--weights", "1e307,1e307"]), "accepted")
    }

    func testSnakeNumbers() {
        XCTAssertEqual(snake(["--gyro-gain", "inf"]), "--gyro-gain must be between -1000 and 1000; got inf.")
        XCTAssertEqual(snake(["--gyro-gain", "nan"]), "--gyro-gain must be between -1000 and 1000; got nan.")
        XCTAssertEqual(snake(["--trail-scale", "nan"]), "--trail-scale must be above 0 and at most 1; got nan.")
        XCTAssertEqual(snake(["--damping=-0.1"]), "--damping must be between 0 and 1; got -0.1.")
        XCTAssertEqual(snake(["--shift-gain", "1e300"]), "--shift-gain must be between -1 and 1; got 1e+300.")
        XCTAssertEqual(snake(["--offset-ms", "1e300"]), "--offset-ms must be between -3600000 and 3600000; got 1e+300.")
        XCTAssertEqual(snake(["--crf", "99"]), "--crf must be between 0 and 51; got 99.")
        XCTAssertEqual(snake(["--preset", "x"]), "--preset x is not an x264 preset; use one of ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo.")
        XCTAssertEqual(snake([]), "accepted")
    }

    func testSnakeChecksTheOutputFolderAsCompositeDoes() {
        do { _ = try SnakeCommand.parse([fg, "--imu", bg, "-o", "/nonexistent/o.mp4"]); XCTFail("accepted") } catch {
            XCTAssertEqual(SnakeCommand.message(for: error), "/nonexistent/o.mp4: the folder /nonexistent does not exist.")
        }
        do { _ = try SnakeCommand.parse([fg, "--imu", bg, "-o", fg]); XCTFail("accepted") } catch {
            XCTAssertEqual(SnakeCommand.message(for: error), "\(fg) is also an input; write the output somewhere else.")
        }
    }

    func testTheBinaryExits64WithTheSentence() throws {
        let r = try Processes.lockstep(["composite", "--blend", "mix", "--stall-timeout", "1e11", "-o", "/tmp/o.mp4", fg, bg])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.hasPrefix("Error: --stall-timeout must be a positive number of seconds, at most 86400; got 100000000000.0.\n"), r.stderr)
    }
}

/// Output names, signals and temporaries, through the binary as a person runs it.
final class OutputAndSignalTests: ScratchFolderTestCase {
    let q = ["q0.mp4", "q1.mp4", "q2.mp4", "q3.mp4"].map { Repository.fixture($0) }

    func testALongOutputNameWorksAndATooLongOneIsOneLine() throws {
        let long = scratch.appendingPathComponent(String(repeating: "n", count: 236) + ".mp4").path
        let r = try Processes.lockstep(["composite", "--blend", "mix", "-o", long, q[0], q[1]])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try leftovers(), [(long as NSString).lastPathComponent])
        let tooLong = scratch.appendingPathComponent(String(repeating: "n", count: 256) + ".mp4").path
        let t = try Processes.lockstep(["composite", "--blend", "mix", "-o", tooLong, q[0], q[1]])
        XCTAssertEqual(t.status, 64)
        XCTAssertTrue(t.stderr.hasPrefix("Error: \(tooLong): the file name is 260 bytes long; the longest a folder takes is 255.\n"), t.stderr)
    }

    /// A long job: four inputs upscaled to 1080p at a slow preset, started in the scratch folder.
    func startLongJob(_ out: String) throws -> (Process, Pipe) {
        let p = Process()
        p.executableURL = Repository.binary
        p.arguments = ["composite", "--blend", "quad", "--size", "1920x1080", "--preset", "medium", "-o", out] + q
        let err = Pipe(); p.standardError = err; p.standardOutput = Pipe()
        try p.run()
        let deadline = Date().addingTimeInterval(20)
        while (try leftovers()).filter({ $0.contains(".lockstep-\(p.processIdentifier)-") }).isEmpty && Date() < deadline { usleep(20_000) }
        return (p, err)
    }

    func stop(with signal: Int32, expecting status: Int32) throws {
        let out = scratch.appendingPathComponent("o.mp4").path
        let (p, err) = try startLongJob(out)
        XCTAssertFalse(try leftovers().isEmpty, "the job should have started writing")
        XCTAssertTrue(Processes.waitUntilCatching(p.processIdentifier, signal), "the job never caught signal \(signal)")
        kill(p.processIdentifier, signal)
        p.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(p.terminationReason, .exit, "ended by its own exit, not by the signal")
        XCTAssertEqual(p.terminationStatus, status)
        XCTAssertEqual(stderr, "Error: cancelled\n", "no backtrace")
        XCTAssertEqual(try leftovers(), [])
    }

    func testSIGHUPCleansUpLikeSIGINT() throws { try stop(with: SIGHUP, expecting: 129) }
    func testSIGQUITStopsWithCleanupAndNoBacktrace() throws { try stop(with: SIGQUIT, expecting: 131) }
    func testSIGTERMCleansUp() throws { try stop(with: SIGTERM, expecting: 143) }

    func testTheNextRunRemovesTheTemporaryOfAKilledOne() throws {
        let out = scratch.appendingPathComponent("o.mp4").path
        let (p, _) = try startLongJob(out)
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let stale = try leftovers()
        XCTAssertEqual(stale.count, 1)
        XCTAssertTrue(stale[0].hasPrefix(".o.mp4.lockstep-\(p.processIdentifier)-"), "\(stale)")
        let next = scratch.appendingPathComponent("next.mp4").path
        let r = try Processes.lockstep(["composite", "--blend", "mix", "-o", next, q[0], q[1]])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try leftovers(), ["next.mp4"])
    }

    func testSIGINTEndsAJobBlockedOpeningAFIFO() throws {
        let fifo = scratch.appendingPathComponent("camera.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let r = try runStopped(
            ["composite", "--blend", "mix", "-o", scratch.appendingPathComponent("o.mp4").path, q[0], fifo],
            with: SIGINT, failure: "SIGINT did not end a job blocked in open(2)")
        XCTAssertEqual(r.status, 130)
        XCTAssertEqual(r.stderr, "Error: cancelled\n")
        XCTAssertEqual(try leftovers(), ["camera.fifo"])
    }

    func testTimeSyncWarnsOfTimestampsThatGoBack() throws {
        let one = scratch.appendingPathComponent("one.ts"), joined = scratch.appendingPathComponent("joined.ts")
        try Processes.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30:d=1", "-c:v", "libx264",
                "-bf", "0", "-pix_fmt", "yuv420p", one.path
            ])
        let bytes = try Data(contentsOf: one)
        try (bytes + bytes).write(to: joined)
        let out = scratch.appendingPathComponent("o.mp4").path
        let r = try Processes.lockstep(["composite", "--blend", "mix", "--sync", "time", "--audio", "none", "-o", out, q[0], joined.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "wrote \(out): 30 frames, 320x240 at 30 fps, 1.000 s, no audio\n")
        XCTAssertEqual(r.stderr, "warning: input 2 (\(joined.path)): its timestamps go back from 2.367 s to 1.400 s at source frame 30; under --sync time the output ends there\n")
    }
}

/// A disk that fills up during the job: exit 1, nothing left (a 64 KB tmpfs; needs root).
final class FullDiskTests: ScratchFolderTestCase {
    func testAFullDiskLeavesNothingBehind() throws {
        let disk = scratch.appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        let m = try Processes.run("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", disk.path])
        guard m.status == 0 else { throw XCTSkip("cannot mount a small tmpfs here: \(m.stderr)") }
        defer { _ = try? Processes.run("umount", [disk.path]) }
        // 40 KB taken: the header fits, the movie does not.
        try Data(count: 40 * 1024).write(to: disk.appendingPathComponent("fill"))
        let q = ["q0.mp4", "q1.mp4"].map { Repository.fixture($0) }
        let r = try Processes.lockstep(["composite", "--blend", "mix", "-o", disk.appendingPathComponent("o.mp4").path] + q)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains(": No space left on device ("), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one line")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: disk.path), ["fill"])
    }
}

/// `verify` on a genuine output whose provenance was changed by hand.
final class CraftedVerifyTests: ScratchFolderTestCase {
    func testAZeroFrameRateInTheProvenanceIsAViolationNotACrash() throws {
        let out = scratch.appendingPathComponent("t.mp4")
        let c = try Processes.lockstep([
            "composite", "--blend", "mix", "--sync", "time", "--fps", "30", "-o", out.path,
            Repository.fixture("r25.mp4"), Repository.fixture("q0.mp4")
        ])
        XCTAssertEqual(c.status, 0, c.stderr)
        var bytes = try Data(contentsOf: out)
        let from = Data(#""fps":"30/1""#.utf8), to = Data(#""fps":"0000""#.utf8)
        let range = try XCTUnwrap(bytes.range(of: from))
        bytes.replaceSubrange(range, with: to)
        try bytes.write(to: out)
        let r = try Processes.lockstep(["verify", out.path])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stdout.contains("\n  provenanceMalformed: the provenance gives the frame rate \"0000\", not a positive fraction; the time-sync checks are not done\n"), r.stdout)
    }
}
