import ArgumentParser
import TestSupport
import XCTest

@testable import LockstepCLI

/// What a person sees for each kind of bad option: the exact sentence.
final class CompositeValidationTests: XCTestCase {
    let fixtures = Repository.fixtures
    var fg: String { fixtures.appendingPathComponent("fg.mp4").path }
    var bg: String { fixtures.appendingPathComponent("bg.mp4").path }

    func message(_ args: [String]) -> String {
        do {
            _ = try CompositeCommand.parse(args)
            return "accepted"
        } catch {
            return CompositeCommand.message(for: error)
        }
    }

    func testWrongInputCountForTheBlend() {
        XCTAssertEqual(
            message(["--blend", "chromakey", "-o", "/tmp/o.mp4", fg]),
            "--blend chromakey takes exactly 2 inputs (FOREGROUND BACKGROUND); got 1.")
        XCTAssertEqual(
            message(["--blend", "quad", "-o", "/tmp/o.mp4", fg, bg, fg, bg, fg]),
            "--blend quad takes 2 to 4 inputs; got 5.")
    }

    func testUnknownBlendAndSyncNameTheChoices() {
        XCTAssertEqual(
            message(["--blend", "overlay", "-o", "/tmp/o.mp4", fg, bg]),
            "The value 'overlay' is invalid for '--blend <blend>'. Please provide one of the following:\n  - chromakey\n  - quad\n  - grid\n  - pip\n  - stack\n  - mix")
        XCTAssertEqual(
            message(["--blend", "mix", "--sync", "nearest", "-o", "/tmp/o.mp4", fg, bg]),
            "The value 'nearest' is invalid for '--sync <index|time|audio>'. Please provide one of 'index', 'time' or 'audio'.")
    }

    func testBadOptionValues() {
        XCTAssertEqual(
            message(["--blend", "mix", "--size", "321x240", "-o", "/tmp/o.mp4", fg, bg]),
            "--size 321x240: width and height must be even numbers of at least 2.")
        XCTAssertEqual(
            message(["--blend", "mix", "--fps", "0", "-o", "/tmp/o.mp4", fg, bg]),
            "--fps 0: the frame rate must be positive.")
        XCTAssertEqual(
            message(["--blend", "chromakey", "--similarity", "1.5", "-o", "/tmp/o.mp4", fg, bg]),
            "--similarity must be between 0 and 1; got 1.5.")
        XCTAssertEqual(
            message(["--blend", "mix", "--weights", "1,2,3", "-o", "/tmp/o.mp4", fg, bg]),
            "--weights needs one weight per input: 2 expected, 3 given.")
        XCTAssertEqual(
            message(["--blend", "mix", "--weights", "0,0", "-o", "/tmp/o.mp4", fg, bg]),
            "--weights must be zero or positive, and not all zero.")
        XCTAssertEqual(
            message(["--blend", "mix", "--crf", "60", "-o", "/tmp/o.mp4", fg, bg]),
            "--crf must be between 0 and 51; got 60.")
        XCTAssertEqual(
            message(["--blend", "mix", "--preset", "quick", "-o", "/tmp/o.mp4", fg, bg]),
            "--preset quick is not an x264 preset; use one of ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo.")
        XCTAssertEqual(
            message(["--blend", "mix", "--key-color", "green", "-o", "/tmp/o.mp4", fg, bg]),
            "The value 'green' is invalid for '--key-color <RRGGBB>'")
    }

    func testPathsAreCheckedBeforeAnythingRuns() {
        XCTAssertEqual(message(["--blend", "mix", "-o", "/tmp/o.avi", fg, bg]), "/tmp/o.avi: the output must end in .mp4, .m4v, .mov or .mkv.")
        XCTAssertEqual(message(["--blend", "mix", "-o", "/tmp/o.mp4", fg, "/nonexistent/x.mp4"]), "/nonexistent/x.mp4: no such file.")
        XCTAssertEqual(message(["--blend", "mix", "-o", "/tmp/o.mp4", fg, "/tmp"]), "/tmp: is a folder, not a movie.")
        XCTAssertEqual(message(["--blend", "mix", "-o", "/nonexistent/o.mp4", fg, bg]), "/nonexistent/o.mp4: the folder /nonexistent does not exist.")
        XCTAssertEqual(message(["--blend", "mix", "-o", bg, fg, bg]), "\(bg) is also an input; write the output somewhere else.")
        XCTAssertEqual(message(["--blend", "mix", "-o", "/tmp/o.mp4", fg, bg]), "accepted")
    }
}

/// The sentences of issue 24's options (grid, pip, which audio, loudness).
final class GridAndAudioValidationTests: XCTestCase {
    let fg = Repository.fixtures.appendingPathComponent("fg.mp4").path, bg = Repository.fixtures.appendingPathComponent("bg.mp4").path

    func message(_ args: [String]) -> String {
        do { _ = try CompositeCommand.parse(args); return "accepted" } catch { return CompositeCommand.message(for: error) }
    }

    func testSentences() {
        let two = ["-o", "/tmp/o.mp4", fg, bg]
        XCTAssertEqual(message(["--blend", "grid", "--layout", "1x1"] + two), "--layout 1x1 has 1 cell for 2 inputs.")
        XCTAssertEqual(message(["--blend", "grid", "--layout", "17x1"] + two), "--layout 17x1: rows and columns must be between 1 and 16.")
        XCTAssertEqual(message(["--blend", "quad", "--layout", "3x3"] + two), "--layout needs --blend grid (quad is always 2x2; pip places its insets itself).")
        XCTAssertEqual(message(["--blend", "mix", "--cell-fit", "fill"] + two), "--cell-fit needs --blend grid, quad or pip.")
        XCTAssertEqual(message(["--blend", "mix", "--border", "4"] + two), "--border needs --blend grid, quad or pip.")
        XCTAssertEqual(message(["--blend", "grid", "--border", "100"] + two), "--border must be between 0 and 64 pixels; got 100.")
        XCTAssertEqual(message(["--blend", "stack", "--labels"] + two), "--labels and --label need --blend grid, quad or pip.")
        XCTAssertEqual(message(["--blend", "grid", "--label", "a", "--label", "b", "--label", "c"] + two), "--label is given 3 times for 2 inputs.")
        XCTAssertEqual(message(["--blend", "grid", "--pip-size", "0.5"] + two), "--pip-corner and --pip-size need --blend pip.")
        XCTAssertEqual(
            message(["--blend", "pip", "--pip-size", "0.95"] + two),
            "--pip-size must be between 0.05 and 0.9 (a share of the canvas width); got 0.95.")
        XCTAssertEqual(message(["--blend", "quad", "--audio-from", "3"] + two), "--audio-from 3: there are 2 inputs; give 1 to 2.")
        // The extremes an Int holds: once a trap (counting from 0 subtracted 1 from Int.min).
        XCTAssertEqual(
            message(["--blend", "mix", "--audio-from=-9223372036854775808"] + two),
            "--audio-from -9223372036854775808: there are 2 inputs; give 1 to 2.")
        XCTAssertEqual(
            message(["--blend", "mix", "--audio-from", "9223372036854775807"] + two),
            "--audio-from 9223372036854775807: there are 2 inputs; give 1 to 2.")
        XCTAssertEqual(message(["--blend", "quad", "--audio-from", "1", "--audio", "none"] + two), "--audio-from and --audio none contradict each other: choose one.")
        XCTAssertEqual(message(["--blend", "quad", "--loudness", "r128", "--audio", "none"] + two), "--loudness needs sound, and --audio none writes none.")
        XCTAssertEqual(message(["--blend", "quad", "--loudness=-80"] + two), "--loudness must be r128 (-23 LUFS) or a target between -70 and -5 LUFS; got -80.0.")
        XCTAssertEqual(message(["--blend", "grid", "--layout", "3x3", "--cell-fit", "fill", "--border", "2", "--labels", "--loudness", "r128", "--audio-from", "2"] + two), "accepted")
        XCTAssertEqual(message(["--blend", "grid"] + ["-o", "/tmp/o.mp4"] + Array(repeating: fg, count: 65)), "--blend grid takes 2 to 64 inputs; got 65.")
    }
}
