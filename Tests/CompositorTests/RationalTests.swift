import Compositor
import XCTest

final class RationalTests: XCTestCase {
    func testReducesAndNormalisesSign() {
        XCTAssertEqual(Rational(2, -4).num, -1)
        XCTAssertEqual(Rational(2, -4).den, 2)
    }

    func testParsesFractionsIntegersAndDecimalsExactly() {
        XCTAssertEqual(Rational(parsing: "30000/1001"), Rational(30000, 1001))
        XCTAssertEqual(Rational(parsing: "25"), Rational(25, 1))
        XCTAssertEqual(Rational(parsing: "29.97"), Rational(2997, 100))
        XCTAssertNil(Rational(parsing: "abc"))
        XCTAssertNil(Rational(parsing: "1/0"))
    }

    func testRescaleRoundsToNearestLikeAvRescaleQ() {
        // 1 frame at 30000/1001 fps in 1/48000 s: 1601.6 → 1602.
        XCTAssertEqual(Rational.rescale(1, from: Rational(1001, 30000), to: Rational(1, 48000)), 1602)
        XCTAssertEqual(Rational.rescale(-3, from: Rational(1, 2), to: Rational(1, 1)), -2)
    }

    func testComparisonIsExactWhereDoublesAreNot() {
        // 0.1 + 0.2 != 0.3 in Double; exactly equal here.
        XCTAssertEqual(Rational(1, 10) + Rational(2, 10), Rational(3, 10))
        XCTAssertLessThan(Timestamp(3003, Rational(1, 90000)), Timestamp(1, Rational(1, 29)))
        XCTAssertEqual(Timestamp(3000, Rational(1, 90000)), Timestamp(1, Rational(1, 30)))
    }

    func testAudioLengthOfAVideoIsExactToTheSample() {
        XCTAssertEqual(AudioTimeline.samples(coveringFrames: 90, frameRate: Rational(30, 1), sampleRate: 48000), 144000)
        XCTAssertEqual(AudioTimeline.samples(coveringFrames: 5, frameRate: Rational(30000, 1001), sampleRate: 48000), 8008)
    }
}
