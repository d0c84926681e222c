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
}
