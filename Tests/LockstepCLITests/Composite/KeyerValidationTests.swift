import ArgumentParser
import TestSupport
import XCTest

@testable import LockstepCLI

/// The keyer's options: what a person sees for each bad value (exit 64), and that good ones pass.
final class KeyerValidationTests: XCTestCase {
    let fixtures = Repository.fixtures
    var fg: String { fixtures.appendingPathComponent("fg.mp4").path }
    var bg: String { fixtures.appendingPathComponent("bg.mp4").path }

    func message(_ extra: [String], blend: String = "chromakey") -> String {
        do {
            _ = try CompositeCommand.parse(["--blend", blend] + extra + ["-o", "/tmp/o.mp4", fg, bg])
            return "accepted"
        } catch {
            XCTAssertEqual(CompositeCommand.exitCode(for: error).rawValue, 64, "\(extra)")
            return CompositeCommand.message(for: error)
        }
    }

    func testShapes() {
        XCTAssertEqual(message(["--garbage", "polygon:0.1,0.1,0.9,0.1"]), "--garbage: a polygon needs at least 3 points; got 2.")
        XCTAssertEqual(message(["--garbage", "polygon:0.1,0.1,0.9,0.1,0.5,1.2"]), "--garbage: coordinates must be between 0 and 1; got 1.2.")
        XCTAssertEqual(message(["--core", "rect:-0.1,0,0.5,0.5"]), "--core: coordinates must be between 0 and 1 (the rectangle must lie inside the picture); got -0.1.")
        XCTAssertEqual(message(["--core", "rect:0.1,0.1,0,0.5"]), "--core: a rectangle needs a positive width and height; got 0.0 x 0.5.")
        XCTAssertEqual(
            message(["--garbage", "circle:0.5,0.5,0.2"]),
            "The value 'circle:0.5,0.5,0.2' is invalid for '--garbage <rect:X,Y,W,H|polygon:X1,Y1,X2,Y2,X3,Y3,...>'")
        XCTAssertEqual(message(["--garbage", "polygon:0.1,0.1,0.9,0.1,0.5,0.9", "--core", "rect:0.4,0.4,0.2,0.2"]), "accepted")
    }

    func testRadiiAndLevels() {
        XCTAssertEqual(message(["--erode", "-1"]), "--erode must be 0 or more pixels; got -1.")
        XCTAssertEqual(message(["--feather", "-3"], blend: "stack"), "--feather must be 0 or more pixels; got -3.")
        XCTAssertEqual(message(["--dilate", "1000"]), "--dilate must be at most 256 pixels; got 1000.")
        XCTAssertEqual(message(["--clip-black", "1.5"]), "--clip-black must be between 0 and 1; got 1.5.")
        XCTAssertEqual(message(["--clip-black", "0.6", "--clip-white", "0.4"]), "--clip-white must be above --clip-black; got 0.4 and 0.6.")
        XCTAssertEqual(message(["--despill", "2"]), "--despill must be between 0 and 1; got 2.0.")
        XCTAssertEqual(message(["--screen-balance", "nan"]), "--screen-balance must be between 0 and 1; got nan.")
        XCTAssertEqual(message(["--spill-cast", "0.6"]), "--spill-cast must be between 0.0 and 0.5; got 0.6.")
        XCTAssertEqual(message(["--spill-cast", "nan"]), "--spill-cast must be between 0.0 and 0.5; got nan.")
        XCTAssertEqual(message(["--spill-cast", "0", "--clip-white", "0.8"]), "accepted")
        XCTAssertEqual(message(["--erode", "2", "--dilate", "1", "--feather", "3", "--despill", "0.5", "--key-view", "matte"]), "accepted")
    }

    func testKeyerChoice() {
        XCTAssertEqual(
            message(["--keyer", "keylight"]),
            "The value 'keylight' is invalid for '--keyer <lockstep|gpuimage>'. Please provide one of 'lockstep' and 'gpuimage'.")
        XCTAssertEqual(
            message(["--keyer", "gpuimage", "--despill", "0.5"]),
            "--clip-black, --clip-white, --screen-balance, --despill, --despill-balance, --spill-cast, --core-clip, --matte-smoothing, --erode, --dilate, --feather, --garbage, --core and --key-view need --keyer lockstep."
        )
        XCTAssertEqual(message(["--keyer", "gpuimage", "--key-color", "808080", "--similarity", "0.2"]), "accepted")
        XCTAssertEqual(
            message(["--key-color", "808080"]),
            "--key-color 808080: the lockstep keyer needs a screen colour whose strongest channel stands clear of the other two (a green or blue screen); --keyer gpuimage keys any colour.")
        XCTAssertEqual(message(["--key-color", "808080"], blend: "mix"), "accepted")
        XCTAssertEqual(
            message(["--key-view", "alpha"]),
            "The value 'alpha' is invalid for '--key-view <composite|matte|status>'. Please provide one of 'composite', 'matte' or 'status'.")
    }
}
