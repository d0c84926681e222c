import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

/// The second hardening pass (scripts/tools/adversarial-sweep): each failure it found on the newer
/// commands, as the user sees it (one sentence, exit status, nothing written).
final class CommandLimitsTests: ScratchFolderTestCase {
    var q0: String { Repository.fixture("q0.mp4") }

    /// The first line of stderr and the status of the real binary.
    func run(_ args: [String]) throws -> (status: Int32, error: String) {
        let r = try Processes.lockstep(args, timeout: 60)
        return (r.status, String(r.stderr.split(separator: "\n").first ?? ""))
    }

    // --loops 9223372036854775807 crashed (SIGSEGV: a plan of that many runs), 1000000000 never ended.
    func testReverseLoopsAreBounded() throws {
        let out = scratch.appendingPathComponent("r.mp4").path
        for loops in ["9223372036854775807", "1000000000", "1001"] {
            let r = try run(["reverse", q0, "-o", out, "--loops", loops])
            XCTAssertEqual(r.status, 64)
            XCTAssertEqual(r.error, "Error: --loops must be at most 1000 (it is \(loops)).")
        }
        let b = try run(["reverse", q0, "-o", out, "--boomerang", "--loops", "4611686018427387904"])
        XCTAssertEqual(b.status, 64)
        XCTAssertEqual(b.error, "Error: --loops must be at most 1000 (it is 4611686018427387904).")
        XCTAssertEqual(try leftovers(), [])
    }

    // --filter mono,mono,... (20001 filters) ran into the stall watchdog after 80 s on a 320x240 clip.
    func testAFilterChainIsAtMost64Filters() throws {
        let chain = Array(repeating: "mono", count: 20001).joined(separator: ",")
        let message = { (args: [String]) -> String in
            do { _ = try FilterCommand.parse(args); return "accepted" } catch { return FilterCommand.message(for: error) }
        }
        XCTAssertEqual(message([self.q0, "-o", "/tmp/o.mp4", "--filter", chain]), "--filter: a chain of 20001 filters; at most 64 are chained.")
        let entry = "1=" + Array(repeating: "invert", count: 65).joined(separator: ",")
        XCTAssertEqual(
            message([self.q0, "-o", "/tmp/o.mp4", "--filter-at", entry]),
            "--filter-at entry 1 (\"\(entry)\"): a chain of 65 filters; at most 64 are chained.")
        XCTAssertEqual(message([self.q0, "-o", "/tmp/o.mp4", "--filter", Array(repeating: "mono", count: 64).joined(separator: ",")]), "accepted")
        let r = try run(["filter", q0, "-o", scratch.appendingPathComponent("f.mp4").path, "--filter", chain])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.error, "Error: --filter: a chain of 20001 filters; at most 64 are chained.")
        XCTAssertEqual(try leftovers(), [])
    }

    // --duration 1e300 trapped (Double to Int64) while checking the options.
    func testTestsrcHugeDurationIsASentence() throws {
        let out = scratch.appendingPathComponent("t.mp4").path
        for duration in ["1e300", "1e18"] {
            let r = try run(["testsrc", "-o", out, "--duration", duration])
            XCTAssertEqual(r.status, 64)
            XCTAssertEqual(r.error, "Error: --duration is too long: the frame code counts 1048576 frames.")
        }
        XCTAssertEqual(try leftovers(), [])
    }
}

/// `verify --coded --junit/--report` name files it writes: never the movie it reads.
final class CodedReportPlaceTests: ScratchFolderTestCase {
    // --junit MOVIE replaced the movie with the XML report, exit 0.
    func testAReportCannotBeTheMovieItself() throws {
        let movie = scratch.appendingPathComponent("coded.mp4").path
        try FileManager.default.copyItem(atPath: Repository.fixture("q0.mp4"), toPath: movie)
        let before = try Data(contentsOf: URL(fileURLWithPath: movie))
        for flag in ["--junit", "--report"] {
            let r = try Processes.lockstep(["verify", "--coded", movie, flag, movie], timeout: 60)
            XCTAssertEqual(r.status, 64)
            XCTAssertEqual(r.stderr.split(separator: "\n").first, "Error: \(movie) is also an input; write the output somewhere else.")
        }
        let both = scratch.appendingPathComponent("r.xml").path
        let r = try Processes.lockstep(["verify", "--coded", movie, "--junit", both, "--report", both], timeout: 60)
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.stderr.split(separator: "\n").first, "Error: \(both) is also an input; write the output somewhere else.")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: movie)), before)
        XCTAssertEqual(try leftovers(), ["coded.mp4"])
    }
}

/// A stop signal while a job waits for a FIFO's writer: exit 128 + the signal, "Error: cancelled".
final class FIFOStopSignalTests: ScratchFolderTestCase {
    func stop(_ args: [String], with sig: Int32) throws -> (status: Int32, stderr: String) {
        try runStopped(args, with: sig, failure: "the signal did not end \(args[0])")
    }

    // concat and reverse exited 1 with "Error: FIFO: cancelled" (the reader's error, not the job's).
    func testConcatReverseAndAlignStoppedOpeningAFIFOExit128PlusTheSignal() throws {
        let fifo = scratch.appendingPathComponent("camera.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let out = scratch.appendingPathComponent("o.mp4").path
        let concat = try stop(["concat", "-o", out, Repository.fixture("q0.mp4"), fifo], with: SIGINT)
        XCTAssertEqual(concat.status, 130)
        XCTAssertEqual(concat.stderr, "Error: cancelled\n")
        let reverse = try stop(["reverse", "-o", out, fifo], with: SIGTERM)
        XCTAssertEqual(reverse.status, 143)
        XCTAssertEqual(reverse.stderr, "Error: cancelled\n")
        // align said "Error: cancelled" and exited 1: it had no path of its own for a stopped job,
        // which every command now shares (withCancellation).
        let align = try stop(["align", Repository.fixture("q0.mp4"), fifo], with: SIGHUP)
        XCTAssertEqual(align.status, 129)
        XCTAssertEqual(align.stderr, "Error: cancelled\n")
        XCTAssertEqual(try leftovers(), ["camera.fifo"])
    }
}

/// `calibrate -o` names the profile it writes: never one of the files it reads.
final class CalibrateOutputPlaceTests: ScratchFolderTestCase {
    // -o MOVIE replaced the movie by the JSON profile, exit 0 (seen on a copy of karma.mp4).
    func testTheProfileCannotBeTheMovieOrTheTrace() throws {
        let movie = scratch.appendingPathComponent("camera.mp4").path
        try FileManager.default.copyItem(atPath: Repository.fixture("q0.mp4"), toPath: movie)
        let trace = try file("t.gcsv", "GYROFLOW IMU LOG\n")
        for (imu, output) in [(movie, movie), (trace, trace)] {
            do { _ = try CalibrateCommand.parse([movie, "--imu", imu, "-o", output]); XCTFail("accepted") } catch {
                XCTAssertEqual(CalibrateCommand.message(for: error), "\(output) is also an input; write the output somewhere else.")
            }
        }
        do { _ = try CalibrateCommand.parse([movie, "--imu", trace, "-o", "/nonexistent/p.json"]); XCTFail("accepted") } catch {
            XCTAssertEqual(CalibrateCommand.message(for: error), "/nonexistent/p.json: the folder /nonexistent does not exist.")
        }
        XCTAssertNoThrow(try CalibrateCommand.parse([movie, "--imu", trace, "-o", scratch.appendingPathComponent("p.json").path]))
    }
}

/// A value ArgumentParser cannot parse is echoed in its message: shortened and escaped.
final class EchoedValueTests: XCTestCase {
    // A 100 KB --garbage value was a 100 KB error line.
    func testALongValueIsCutAndAControlCharacterEscaped() throws {
        let value = "polygon:" + Array(repeating: "0.5", count: 20001).joined(separator: ",")
        let r = try Processes.lockstep(
            [
                "composite", "--blend", "chromakey", "-o", "/tmp/o.mp4",
                Repository.fixture("fg.mp4"), Repository.fixture("bg.mp4"), "--garbage", value
            ], timeout: 60)
        XCTAssertEqual(r.status, 64)
        let whole = "Error: The value '\(value)' is invalid for '--garbage <rect:X,Y,W,H|polygon:X1,Y1,X2,Y2,X3,Y3,...>'"
        XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), String(whole.prefix(500)) + "...")
        XCTAssertLessThan(r.stderr.utf8.count, 2000)
        let e = try Processes.lockstep(["reverse", "--pool-frames", "\u{1B}[31m", "-o", "/tmp/o.mp4", Repository.fixture("q0.mp4")], timeout: 60)
        XCTAssertEqual(e.status, 64)
        XCTAssertEqual(e.stderr.split(separator: "\n").first, "Error: The value '\\u{1B}[31m' is invalid for '--pool-frames'")
    }

    // The escaping took --help's many lines for one message with line breaks: the whole help
    // came out as one line with "\n" in it, cut at 500 characters.
    func testHelpIsPrintedWhole() throws {
        for args in [["--help"], ["composite", "--help"], ["help", "composite"], ["imu", "serve", "--help"]] {
            let r = try Processes.lockstep(args, timeout: 60)
            XCTAssertEqual(r.status, 0, "\(args)")
            XCTAssertFalse(r.stdout.contains("\\n"), "\(args)")
            XCTAssertTrue(r.stdout.contains("-h, --help"), "\(args)")
            XCTAssertGreaterThan(r.stdout.split(separator: "\n").count, 8, "\(args)")
        }
        let composite = try Processes.lockstep(["composite", "--help"], timeout: 60).stdout
        for option in ["--keyer", "--clip-black", "--despill", "--garbage", "--key-view", "--report"] {
            XCTAssertTrue(composite.contains(option), option)
        }
    }
}
