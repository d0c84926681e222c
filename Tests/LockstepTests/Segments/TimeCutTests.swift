import Compositor
import XCTest

@testable import Lockstep

/// `--from/--to` as typed, and the frames a cut keeps: the frame on screen at `--from` first,
/// frames starting before `--to` last, exactly (no floating point), also at 30000/1001.
final class TimeCutTests: XCTestCase {
    func seconds(_ text: String) throws -> Rational { try TimeCut.time(text, option: "--from") }

    func testTimesAreSecondsOrClockTimes() throws {
        XCTAssertEqual(try seconds("12.5"), Rational(25, 2))
        XCTAssertEqual(try seconds("0"), Rational(0, 1))
        XCTAssertEqual(try seconds("1:02.5"), Rational(125, 2))
        XCTAssertEqual(try seconds("01:02:03.250"), Rational(3723_250, 1000))
        XCTAssertEqual(try seconds("100:00"), Rational(6000, 1))
        let bad = "expected a time in seconds (12.5) or HH:MM:SS.mmm (00:01:02.500), 0 or more."
        for text in ["", "-1", "+2", "1:", ":5", "1:60", "1:75:00", "a", "1:2:3:4", "1.5:00", "1/0"] {
            XCTAssertThrowsError(try seconds(text), text) { XCTAssertEqual("\($0)", "--from \(text): \(bad)") }
        }
    }

    /// `--from 9223372036854775807` trapped in every frame-producing command (the frame
    /// arithmetic overflowed; OptionExtremeValuesSlowTests found it): a time is refused past a
    /// million hours, and one just under it still resolves to frames at 240 fps.
    func testATimePastAMillionHoursIsRefused() throws {
        for text in ["9223372036854775807", "3600000000", "3600000000.5"] {
            XCTAssertThrowsError(try TimeCut(from: text, to: nil), text) {
                XCTAssertEqual("\($0)", "--from \(text): later than any movie's end (at most 1000000 hours).")
            }
        }
        XCTAssertThrowsError(try TimeCut(from: nil, to: "9223372036854775807")) {
            XCTAssertEqual("\($0)", "--to 9223372036854775807: later than any movie's end (at most 1000000 hours).")
        }
        XCTAssertEqual(try TimeCut(from: "3599999999.999", to: nil).frames(frameRate: Rational(240, 1)).start, 863_999_999_999)
    }

    func testACutMustEndAfterItStarts() {
        XCTAssertThrowsError(try TimeCut(from: "2", to: "1")) { XCTAssertEqual("\($0)", "--from 2 --to 1: the cut must end after it starts.") }
        XCTAssertThrowsError(try TimeCut(from: "2", to: "2.0")) { XCTAssertEqual("\($0)", "--from 2 --to 2.0: the cut must end after it starts.") }
        XCTAssertNoThrow(try TimeCut(from: nil, to: "0.001"))
        // `--to 0` alone: no frame (every job trapped on the empty range before it was refused).
        for zero in ["0", "0.0", "00:00:00.000"] {
            XCTAssertThrowsError(try TimeCut(from: nil, to: zero)) { XCTAssertEqual("\($0)", "--to \(zero): the cut must end after 0 (the output's start).") }
        }
    }

    func testFramesAreTheOnesOnScreen() throws {
        let r30 = Rational(30, 1)
        XCTAssertEqual(try TimeCut(from: "1.5", to: "4").frames(frameRate: r30).start, 45)
        XCTAssertEqual(try TimeCut(from: "1.5", to: "4").frames(frameRate: r30).end, 120)
        // 1.51 s is inside frame 45 (1.500-1.533); 4.01 s inside frame 120, which starts before it.
        XCTAssertEqual(try TimeCut(from: "1.51", to: "4.01").frames(frameRate: r30).start, 45)
        XCTAssertEqual(try TimeCut(from: "1.51", to: "4.01").frames(frameRate: r30).end, 121)
        XCTAssertNil(try TimeCut(from: "3", to: nil).frames(frameRate: r30).end)
        // NTSC: frame 90 starts at 3.003 s, so 3.003 is its start and 3.0029 lies in frame 89.
        let ntsc = Rational(30000, 1001)
        XCTAssertEqual(try TimeCut(from: "3.003", to: nil).frames(frameRate: ntsc).start, 90)
        XCTAssertEqual(try TimeCut(from: "3.0029", to: nil).frames(frameRate: ntsc).start, 89)
        XCTAssertEqual(try TimeCut(from: nil, to: "3.003").frames(frameRate: ntsc).end, 90)
        XCTAssertEqual(try TimeCut(from: nil, to: "3.0031").frames(frameRate: ntsc).end, 91)
    }

    func testAFrameRangeFromACutNamesTheCutInItsErrors() throws {
        let range = FrameRange(try TimeCut(from: "7", to: nil), frameRate: Rational(30, 1))
        XCTAssertTrue(range.isOpen)
        XCTAssertThrowsError(try range.resolved(length: 180, input: 0, path: "a.mp4", frameRate: Rational(30, 1))) {
            XCTAssertEqual("\($0)", "--from 7: input 1 (a.mp4) ends the output at 6.000 s (180 frames); the cut must lie within 0-6.000 s.")
        }
        let closed = try FrameRange(try TimeCut(from: "2", to: nil), frameRate: Rational(30, 1)).resolved(length: 180, input: 0, path: "a.mp4", frameRate: Rational(30, 1))
        XCTAssertEqual(closed.start, 60)
        XCTAssertEqual(closed.end, 180)
    }
}
