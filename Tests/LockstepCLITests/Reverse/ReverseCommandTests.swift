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
            // Stopped once it writes: its temporary is there (the note was printed by then, before).
            let stopped = try Processes.lockstepStopped(["reverse", karma, "-o", out], by: signal) { try !leftovers().isEmpty }
            XCTAssertEqual(stopped.reason, .exit, "signal \(signal)")
            XCTAssertEqual(stopped.status, status, "signal \(signal): \(stopped.stderr)")
            XCTAssertEqual(stopped.stderr, "Error: cancelled\n", "signal \(signal)")
            XCTAssertEqual(try leftovers(), [], "signal \(signal)")
        }
        let done = try run([karma, "-o", out, "--to", "1", "--quiet"])
        XCTAssertEqual(done.status, 0, done.stderr)
        XCTAssertEqual(
            done.stderr,
            "note: \(karma): its GPMF telemetry track is not kept in the output: the output's time runs backwards: the camera's samples would not match its picture\n")
        XCTAssertTrue(done.stdout.hasPrefix("wrote \(out): 30 frames from 362,"), done.stdout)
    }

    /// `--gop` and `--audio-codec` as every frame-producing command takes them: a keyframe every
    /// G output frames (ffprobe's key_frame flags), FLAC in a .mkv, refused into an .mp4.
    func testGOPAndAudioCodec() throws {
        let mkv = scratch.appendingPathComponent("out.mkv").path
        let r = try run([Repository.fixture("q0.mp4"), "-o", mkv, "--gop", "10", "--audio-codec", "flac", "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Self.keyframes(mkv), Array(stride(from: 0, to: 75, by: 10)))
        XCTAssertEqual(try Self.audioCodec(mkv), "flac")
        let flac = try run([Repository.fixture("q0.mp4"), "-o", out, "--audio-codec", "flac"])
        XCTAssertEqual(flac.status, 64)
        XCTAssertEqual(
            flac.stderr.split(separator: "\n").first.map(String.init),
            "Error: --audio-codec flac needs a .mkv output (FFmpeg 5.1 writes FLAC into Matroska; into MP4 only as an experimental feature); got \(out).")
        let gop = try run([Repository.fixture("q0.mp4"), "-o", out, "--gop", "0"])
        XCTAssertEqual(gop.status, 64)
        XCTAssertEqual(gop.stderr.split(separator: "\n").first.map(String.init), "Error: --gop 0: the GOP length must be between 1 and 10000 frames.")
        XCTAssertEqual(try leftovers(), ["out.mkv"])
    }

    /// The output frames ffprobe flags as keyframes.
    static func keyframes(_ movie: String) throws -> [Int] {
        let csv = String(decoding: try Processes.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame", "-of", "csv=p=0", movie]), as: UTF8.self)
        return csv.split(separator: "\n").enumerated().filter { $0.element.hasPrefix("1") }.map(\.offset)
    }

    /// The first audio stream's codec, as ffprobe names it.
    static func audioCodec(_ movie: String) throws -> String {
        String(decoding: try Processes.check("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name", "-of", "csv=p=0", movie]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
