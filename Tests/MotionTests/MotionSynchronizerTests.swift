import Motion
import XCTest

final class MotionSynchronizerTests: XCTestCase {
    typealias Sync = MotionSynchronizer<Int, String>

    func testAFrameWaitsForOneSamplePastItsTimeThenTakesTheNearest() {
        var s = Sync(tolerance: 20)
        XCTAssertTrue(s.appendFrame(0, time: 100).isEmpty)
        XCTAssertTrue(s.appendMotion("a", time: 90).isEmpty)
        XCTAssertTrue(s.appendMotion("b", time: 105).isEmpty, "d is still shrinking: wait")
        let m = s.appendMotion("c", time: 120)
        XCTAssertEqual(m.map(\.motion), ["b"])
        XCTAssertEqual(m.first?.distance, 5)
    }

    func testATieGoesToTheLaterSample() {
        var s = Sync(tolerance: 20)
        _ = s.appendMotion("early", time: 90)
        _ = s.appendMotion("late", time: 110)
        _ = s.appendFrame(0, time: 100)
        XCTAssertEqual(s.appendMotion("after", time: 130).map(\.motion), ["late"])
    }

    func testTheMatchedSampleStaysForTheNextFrame() {
        var s = Sync(tolerance: 50)
        _ = s.appendMotion("m", time: 100)
        _ = s.appendFrame(0, time: 95)
        _ = s.appendFrame(1, time: 99)
        let out = s.appendMotion("n", time: 200)
        XCTAssertEqual(out.map(\.frame), [0, 1])
        XCTAssertEqual(out.map(\.motion), ["m", "m"])
    }

    func testTooManyWaitingFramesGoWithTheClosestSeenAndNoMotionAtAllGivesNone() {
        var s = Sync(tolerance: 1000, maxQueuedFrames: 2)
        _ = s.appendMotion("m", time: 0)
        XCTAssertTrue(s.appendFrame(0, time: 10).isEmpty)
        XCTAssertTrue(s.appendFrame(1, time: 20).isEmpty)
        XCTAssertEqual(s.appendFrame(2, time: 30).map(\.motion), ["m"], "the oldest leaves with the closest seen")
        var none = Sync(tolerance: 1000, maxQueuedFrames: 1)
        _ = none.appendFrame(0, time: 10)
        let out = none.appendFrame(1, time: 20)
        XCTAssertEqual(out.count, 1); XCTAssertNil(out[0].motion); XCTAssertNil(out[0].distance)
        XCTAssertEqual(none.unmatched, 1)
    }

    func testASampleFartherThanTheToleranceIsNeverMadeUp() {
        var s = Sync(tolerance: 10)
        _ = s.appendMotion("far", time: 0)
        _ = s.appendFrame(0, time: 100)
        let out = s.finish()
        XCTAssertNil(out[0].motion)
        XCTAssertEqual(out[0].distance, 100, "the distance is still reported")
        XCTAssertEqual(s.unmatched, 1)
    }
}
