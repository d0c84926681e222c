import ArgumentParser
import TestSupport
import XCTest

@testable import LockstepCLI

/// --offsets, --drift, --trim, --longest, --hold-last: the exact sentence for each bad value.
final class PlacementValidationTests: XCTestCase {
    let fixtures = Repository.fixtures
    var fg: String { fixtures.appendingPathComponent("fg.mp4").path }
    var bg: String { fixtures.appendingPathComponent("bg.mp4").path }

    func message(_ args: [String]) -> String {
        do {
            _ = try CompositeCommand.parse(["--blend", "mix", "-o", "/tmp/o.mp4"] + args + [fg, bg])
            return "accepted"
        } catch {
            return CompositeCommand.message(for: error)
        }
    }

    func testGoodPlacementsAreAccepted() throws {
        XCTAssertEqual(message(["--offsets", "0,1.25"]), "accepted")
        XCTAssertEqual(message(["--offsets", "0,-1/3", "--drift", "0,-250.5", "--trim", "2=0.5:", "--trim", "1=:3", "--longest", "--hold-last"]), "accepted")
        XCTAssertEqual(message(["--sync", "index", "--hold-last"]), "accepted", "holding the last frame is not a matter of time")
        let c = try CompositeCommand.parse(["--blend", "mix", "-o", "/tmp/o.mp4", "--offsets", "0,1.25", "--drift", "0,500", "--trim", "2=0.5:4", fg, bg])
        let clocks = try XCTUnwrap(c.options.clocks)
        XCTAssertEqual(clocks.map(\.offset.seconds), [0, 1.25])
        XCTAssertEqual(clocks.map(\.driftPpm), [0, 500])
        XCTAssertEqual(clocks[1].trim.start.seconds, 0.5); XCTAssertEqual(clocks[1].trim.end?.seconds, 4)
        XCTAssertNil(try CompositeCommand.parse(["--blend", "mix", "-o", "/tmp/o.mp4", fg, bg]).options.clocks, "nothing given: no clocks")
        XCTAssertEqual(try CompositeCommand.parse(["--blend", "mix", "-o", "/tmp/o.mp4", fg, bg]).options.sync, .time, "time sync by default")
    }

    func testCountsAndTheReferenceInput() {
        XCTAssertEqual(message(["--offsets", "0,1,2"]), "--offsets needs one offset per input: 2 expected, 3 given.")
        XCTAssertEqual(message(["--drift", "0"]), "--drift needs one value per input: 2 expected, 1 given.")
        XCTAssertEqual(
            message(["--offsets", "0.5,1"]),
            "--offsets: the first input is the clock the others are placed on, so its offset must be 0; got 0.5.")
        XCTAssertEqual(
            message(["--drift", "3,1"]),
            "--drift: the first input is the clock the others are measured against, so its drift must be 0; got 3.0.")
    }

    func testValuesOutOfRange() {
        XCTAssertEqual(message(["--drift", "0,20000"]), "--drift: input 2's drift must be between -10000 and 10000 ppm; got 20000.0.")
        XCTAssertEqual(message(["--drift", "0,nan"]), "--drift: input 2's drift must be between -10000 and 10000 ppm; got nan.")
        XCTAssertEqual(message(["--offsets", "0,100000"]), "--offsets: input 2's offset must be within 86400 s; got 100000.")
        XCTAssertEqual(message(["--trim", "2=3:1"]), "--trim: input 2's trim must end after it starts; got 3:1.")
        XCTAssertEqual(message(["--trim", "2=-1:"]), "--trim: input 2's trim must lie between 0 and 86400 s of its own time; got -1:.")
        XCTAssertEqual(message(["--trim", "3=1:2"]), "--trim 3=1:2: there is no input 3; the inputs are numbered 1 to 2.")
        XCTAssertEqual(message(["--trim", "2=1:", "--trim", "2=:3"]), "--trim: input 2 is trimmed twice.")
        XCTAssertEqual(message(["--trim", "2=x"]), "The value '2=x' is invalid for '--trim <N=START:END>'")
    }

    func testTimePlacementNeedsTimeSync() {
        let sentence = "--offsets, --drift, --trim and --longest need time sync (--sync time or audio): index sync takes frame k of every input, whatever its time."
        XCTAssertEqual(message(["--sync", "index", "--offsets", "0,1"]), sentence)
        XCTAssertEqual(message(["--sync", "index", "--longest"]), sentence)
        XCTAssertEqual(message(["--sync", "index", "--trim", "1=1:"]), sentence)
        XCTAssertEqual(
            message(["--frames", "0:10", "--offsets", "0,1"]),
            "--frames cannot be combined with --sync audio, --offsets, --drift, --trim or --longest: a segment render places inputs only from their first frames.")
    }

    /// --sync audio finds what --offsets and --drift give; trims and --longest go with it.
    func testSyncAudio() throws {
        XCTAssertEqual(message(["--sync", "audio"]), "accepted")
        XCTAssertEqual(message(["--sync", "audio", "--trim", "2=1:", "--longest"]), "accepted")
        let c = try CompositeCommand.parse(["--blend", "mix", "-o", "/tmp/o.mp4", "--sync", "audio", fg, bg])
        XCTAssertEqual(c.options.sync, .time)
        XCTAssertTrue(c.options.clocksFromSound)
        let sentence = "--sync audio finds the offsets and drifts from the sound; --offsets and --drift give them: choose one."
        XCTAssertEqual(message(["--sync", "audio", "--offsets", "0,1"]), sentence)
        XCTAssertEqual(message(["--sync", "audio", "--drift", "0,20"]), sentence)
        XCTAssertEqual(
            message(["--sync", "audio", "--frames", "0:10"]),
            "--frames cannot be combined with --sync audio, --offsets, --drift, --trim or --longest: a segment render places inputs only from their first frames.")
        XCTAssertEqual(message(["--sync", "sound"]), "The value 'sound' is invalid for '--sync <index|time|audio>'. Please provide one of 'index', 'time' or 'audio'.")
    }
}
