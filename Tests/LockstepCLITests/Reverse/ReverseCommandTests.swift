import Foundation
import TestSupport
import XCTest

/// `lockstep reverse` as a person runs it: bad input is one sentence naming the file or the
/// option and the cause, a non-zero exit, and nothing under the output's name.
final class ReverseCommandTests: ScratchFolderTestCase {
    func run(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try Processes.lockstep(["reverse"] + args, timeout: 120)
    }
    var out: String { scratch.appendingPathComponent("out.mp4").path }

    func testNotAMovie() throws {
        let input = Repository.fixture("notmovie.mp4")
        let r = try run([input, "-o", out])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: \(input): not a movie FFmpeg can read (Invalid data found when processing input)\n")
        XCTAssertEqual(try leftovers(), [])
    }

    func testNoVideoStream() throws {
        let input = Repository.fixture("reverse/novideo.mkv")
        let r = try run([input, "-o", out])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: \(input): no video stream\n")
        XCTAssertEqual(try leftovers(), [])
    }

    func testBadOptions() throws {
        let input = Repository.fixture("reverse/vfr.mp4")
        let loops = try run([input, "-o", out, "--loops", "0"])
        XCTAssertEqual(loops.status, 64)
        XCTAssertEqual(loops.stderr.split(separator: "\n").first, "Error: --loops must be at least 1 (it is 0).")
        let audio = try run([input, "-o", out, "--audio", "backwards"])
        XCTAssertEqual(audio.status, 64)
        XCTAssertEqual(
            audio.stderr.split(separator: "\n").first,
            "Error: The value 'backwards' is invalid for '--audio <reverse|keep|none>'. Please provide one of 'reverse', 'keep' or 'none'.")
        let crf = try run([input, "-o", out, "--crf", "60"])
        XCTAssertEqual(crf.status, 64)
        XCTAssertEqual(crf.stderr.split(separator: "\n").first, "Error: --crf must be between 0 and 51; got 60.")
        XCTAssertEqual(try leftovers(), [])
    }

    /// A file already under the output's name survives a failed run untouched.
    func testAFailedRunKeepsWhatWasThere() throws {
        let path = try file("out.mp4", "precious")
        let r = try run([Repository.fixture("notmovie.mp4"), "-o", path])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "precious")
        XCTAssertEqual(try leftovers(), ["out.mp4"])
    }

    func testAReverseRunSaysWhatItWrote() throws {
        let r = try run([Repository.fixture("reverse/longgop.mp4"), "-o", out, "--pool-frames", "16", "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "wrote \(out): 100 frames from 100, 320x240 at 30 fps, audio 3.333 s; pool 16 pictures, longest GOP 60, 159 pictures decoded, 7 seeks\n")
        let verify = try Processes.lockstep(["verify", out])
        XCTAssertEqual(verify.status, 0, verify.stdout)
        XCTAssertEqual(try leftovers(), ["out.mp4"])
    }

    /// karma.mp4 reversed and stopped by a signal part way: one line on stderr, the signal's exit
    /// status, nothing left. Its note about the output (the telemetry track is not kept) is told
    /// with the output's summary, so a stopped run does not print it: it printed the note at the
    /// start, then "Error: cancelled" (scripts/tools/adversarial-sweep). A run that finishes
    /// still says it, once.
    func testAStoppedReverseSaysOneLine() throws {
        let karma = Repository.shared("karma.mp4")
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, 143), (SIGUSR1, 138)] {
            let p = Process()
            p.executableURL = Repository.binary
            p.arguments = ["reverse", karma, "-o", out]
            let err = Pipe()
            p.standardError = err; p.standardOutput = FileHandle.nullDevice
            try p.run()
            // Started writing: its temporary is there (the note, on main, was printed by then).
            let deadline = Date().addingTimeInterval(60)
            while try leftovers().isEmpty && Date() < deadline && p.isRunning { usleep(20_000) }
            XCTAssertTrue(Processes.waitUntilCatching(p.processIdentifier, signal), "signal \(signal) never caught")
            kill(p.processIdentifier, signal)
            p.waitUntilExit()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(p.terminationReason, .exit, "signal \(signal)")
            XCTAssertEqual(p.terminationStatus, status, "signal \(signal): \(stderr)")
            XCTAssertEqual(stderr, "Error: cancelled\n", "signal \(signal)")
            XCTAssertEqual(try leftovers(), [], "signal \(signal)")
        }
        let done = try run([karma, "-o", out, "--to", "1", "--quiet"])
        XCTAssertEqual(done.status, 0, done.stderr)
        XCTAssertEqual(
            done.stderr,
            "note: \(karma): its GPMF telemetry track is not kept in the output: the output's time runs backwards: the camera's samples would not match its picture\n")
        XCTAssertTrue(done.stdout.hasPrefix("wrote \(out): 30 frames from 362,"), done.stdout)
    }
}
