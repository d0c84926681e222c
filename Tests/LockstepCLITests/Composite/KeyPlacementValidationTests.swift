import ArgumentParser
import TestSupport
import XCTest

@testable import LockstepCLI

/// `--fg-scale`, `--fg-position`, `--bg-fit`: what a person sees for each bad value (exit 64),
/// and what the good ones become.
/// (Beside the keyer's own options, with their `message`.)
extension KeyerValidationTests {
    func testBadValuesAreOneSentenceNamingTheOption() {
        XCTAssertEqual(message(["--fg-scale", "0"]), "--fg-scale must be more than 0 and at most 4; got 0.0.")
        XCTAssertEqual(message(["--fg-scale", "4.5"]), "--fg-scale must be more than 0 and at most 4; got 4.5.")
        XCTAssertEqual(message(["--fg-scale", "nan"]), "--fg-scale must be more than 0 and at most 4; got nan.")
        XCTAssertEqual(
            message(["--fg-position", "1.5,0"]),
            "--fg-position: X and Y must be between 0 and 1 (0,0: the foreground's top-left corner on the canvas's; 1,1: its bottom-right corner on the canvas's); got 1.5.")
        XCTAssertEqual(message(["--fg-position", "middle"]), "The value 'middle' is invalid for '--fg-position <X,Y>'")
        XCTAssertEqual(message(["--fg-position", "0.5"]), "The value '0.5' is invalid for '--fg-position <X,Y>'")
        XCTAssertEqual(message(["--bg-fit", "stretch"]), "The value 'stretch' is invalid for '--bg-fit <fit|fill>'. Please provide one of 'fit' and 'fill'.")
        XCTAssertEqual(message(["--bg-fit", "fill"], blend: "quad"), "--fg-scale, --fg-position and --bg-fit need --blend chromakey.")
        XCTAssertEqual(message(["--fg-scale", "0.5"], blend: "stack"), "--fg-scale, --fg-position and --bg-fit need --blend chromakey.")
    }

    func testGoodValuesReachTheOptions() throws {
        XCTAssertEqual(message(["--fg-scale", "4", "--fg-position", "0,1", "--bg-fit", "fill"]), "accepted")
        let named = try CompositeCommand.parse(["--blend", "chromakey", "--fg-scale", "0.5", "--fg-position", "Bottom-Left", "--bg-fit", "fill", "-o", "/tmp/o.mp4", fg, bg])
        let p = named.options.keyPlacement
        XCTAssertEqual([p.scale, p.x, p.y], [0.5, 0, 1])
        XCTAssertEqual(p.backgroundFit, .fill)
        let numbers = try CompositeCommand.parse(["--blend", "chromakey", "--fg-position", "0.25, 0.75", "-o", "/tmp/o.mp4", fg, bg])
        XCTAssertEqual([numbers.options.keyPlacement.x, numbers.options.keyPlacement.y], [0.25, 0.75])
    }
}
