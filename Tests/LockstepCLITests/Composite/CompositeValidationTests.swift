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
        XCTAssertEqual(message(["--blend", "chromakey", "-o", "/tmp/o.mp4", fg]),
                       "--blend chromakey takes exactly 2 inputs (FOREGROUND BACKGROUND); got 1.")
        XCTAssertEqual(message(["--blend", "quad", "-o", "/tmp/o.mp4", fg, bg, fg, bg, fg]),
                       "--blend quad takes 2 to 4 inputs; got 5.")
    }

    func testUnknownBlendAndSyncNameTheChoices() {
        XCTAssertEqual(message(["--blend", "overlay", "-o", "/tmp/o.mp4", fg, bg]),
                       "The value 'overlay' is invalid for '--blend <blend>'. Please provide one of 'chromakey', 'quad', 'stack' or 'mix'.")
        XCTAssertEqual(message(["--blend", "mix", "--sync", "nearest", "-o", "/tmp/o.mp4", fg, bg]),
                       "The value 'nearest' is invalid for '--sync <index|time>'. Please provide one of 'index' and 'time'.")
    }

    func testBadOptionValues() {
        XCTAssertEqual(message(["--blend", "mix", "--size", "321x240", "-o", "/tmp/o.mp4", fg, bg]),
                       "--size 321x240: width and height must be even numbers of at least 2.")
        XCTAssertEqual(message(["--blend", "mix", "--fps", "0", "-o", "/tmp/o.mp4", fg, bg]),
                       "--fps 0: the frame rate must be positive.")
        XCTAssertEqual(message(["--blend", "chromakey", "--similarity", "1.5", "-o", "/tmp/o.mp4", fg, bg]),
                       "--similarity must be between 0 and 1; got 1.5.")
        XCTAssertEqual(message(["--blend", "mix", "--weights", "1,2,3", "-o", "/tmp/o.mp4", fg, bg]),
                       "--weights needs one weight per input: 2 expected, 3 given.")
        XCTAssertEqual(message(["--blend", "mix", "--weights", "0,0", "-o", "/tmp/o.mp4", fg, bg]),
                       "--weights must be zero or positive, and not all zero.")
        XCTAssertEqual(message(["--blend", "mix", "--crf", "60", "-o", "/tmp/o.mp4", fg, bg]),
                       "--crf must be between 0 and 51; got 60.")
        XCTAssertEqual(message(["--blend", "mix", "--preset", "quick", "-o", "/tmp/o.mp4", fg, bg]),
                       "--preset quick is not an x264 preset; use one of ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo.")
        XCTAssertEqual(message(["--blend", "mix", "--key-color", "green", "-o", "/tmp/o.mp4", fg, bg]),
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
