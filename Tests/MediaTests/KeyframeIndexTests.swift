import Compositor
import XCTest

@testable import Media

/// The keyframe index from packet records alone: presentation order, durations, segments.
final class KeyframeIndexTests: XCTestCase {
    typealias P = KeyframeIndex.Packet

    /// I P B B (decode order) shown I B B P, then a second GOP; the last packet has a duration.
    func testPresentationOrderAndSegments() throws {
        let packets = [
            P(pts: 0, dts: -2, duration: 1, keyframe: true), P(pts: 3, dts: -1, duration: 1, keyframe: false),
            P(pts: 1, dts: 0, duration: 1, keyframe: false), P(pts: 2, dts: 1, duration: 1, keyframe: false),
            P(pts: 4, dts: 2, duration: 1, keyframe: true), P(pts: 5, dts: 3, duration: 2, keyframe: false)
        ]
        let index = try KeyframeIndex(packets: packets, timeBase: Rational(1, 30))
        XCTAssertEqual(index.pts, [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(index.durations, [1, 1, 1, 1, 1, 2])
        XCTAssertNil(index.constantStep)
        XCTAssertEqual(index.segmentStarts, [0, 4])
        XCTAssertEqual(index.seekPoints.map { $0?.dts }, [-2, 2])
        XCTAssertEqual(index.frames(ofSegment: 1), 4..<6)
        XCTAssertEqual(index.segment(of: 3), 0)
        XCTAssertEqual(index.segment(of: 5), 1)
        XCTAssertEqual(index.frame(withPTS: 3), 3)
        XCTAssertNil(index.frame(withPTS: 7))
        XCTAssertEqual(index.longestSegment, 4)
    }

    /// Shown before the first keyframe (a stream cut in an open GOP): segment 0 from the start.
    func testFramesBeforeTheFirstKeyframe() throws {
        let packets = [
            P(pts: 2, dts: 0, duration: 1, keyframe: true), P(pts: 0, dts: 1, duration: 1, keyframe: false),
            P(pts: 1, dts: 2, duration: 1, keyframe: false), P(pts: 3, dts: 3, duration: 0, keyframe: false)
        ]
        let index = try KeyframeIndex(packets: packets, timeBase: Rational(1, 25))
        XCTAssertEqual(index.segmentStarts, [0, 2])
        XCTAssertNil(index.seekPoints[0])
        XCTAssertEqual(index.constantStep, 1, "the last frame without a duration lasts as long as the one before")
    }

    /// Matroska stores 24 fps in 1 ms ticks: 0, 42, 83, 125... evenly spaced within a tick.
    func testRoundedTimesAreAConstantRate() throws {
        let ms = (0..<48).map { k in P(pts: Int64((Double(k) * 1000 / 24).rounded()), dts: nil, duration: 0, keyframe: k % 24 == 0) }
        let index = try KeyframeIndex(packets: ms, timeBase: Rational(1, 1000))
        XCTAssertNil(index.constantStep)
        XCTAssertEqual(index.constantRate(nominal: Rational(24, 1)), Rational(24, 1))
        XCTAssertNil(index.constantRate(nominal: nil))
        // Really variable: 1/30 s then 1/15 s.
        let times: [Int64] = [0, 2, 4, 6, 8, 10, 14, 18, 22, 26]
        let vfr = times.map { P(pts: $0, dts: nil, duration: 0, keyframe: $0 == 0) }
        XCTAssertNil(try KeyframeIndex(packets: vfr, timeBase: Rational(1, 60)).constantRate(nominal: Rational(20, 1)))
    }

    /// What a reader that skips a whole clip needs of it: the last frame's own packet duration
    /// (0 where the file gives none, not the step filled in) and whether the decoder gives the
    /// frames in the sorted order (decode times all present and increasing; a clock that goes
    /// back, two recordings joined, does not).
    func testLastPacketDurationAndDecodeOrder() throws {
        let plain = [
            P(pts: 0, dts: -2, duration: 1, keyframe: true), P(pts: 3, dts: -1, duration: 1, keyframe: false),
            P(pts: 1, dts: 0, duration: 1, keyframe: false), P(pts: 2, dts: 1, duration: 0, keyframe: false)
        ]
        let index = try KeyframeIndex(packets: plain, timeBase: Rational(1, 30))
        XCTAssertEqual(index.lastPacketDuration, 1, "frame 3 (pts 3) is the second packet")
        XCTAssertTrue(index.decodeTimesIncrease)
        let noDuration = try KeyframeIndex(packets: [P(pts: 0, dts: 0, duration: 2, keyframe: true), P(pts: 2, dts: 2, duration: 0, keyframe: false)], timeBase: Rational(1, 30))
        XCTAssertEqual(noDuration.lastPacketDuration, 0)
        XCTAssertEqual(noDuration.durations, [2, 2])
        // A second recording whose clock starts again below the first's.
        let joined = [
            P(pts: 10, dts: 10, duration: 1, keyframe: true), P(pts: 11, dts: 11, duration: 1, keyframe: false),
            P(pts: 0, dts: 0, duration: 1, keyframe: true), P(pts: 1, dts: 1, duration: 1, keyframe: false)
        ]
        XCTAssertFalse(try KeyframeIndex(packets: joined, timeBase: Rational(1, 30)).decodeTimesIncrease)
        let withoutDTS = [P(pts: 0, dts: nil, duration: 1, keyframe: true), P(pts: 1, dts: nil, duration: 1, keyframe: false)]
        XCTAssertFalse(try KeyframeIndex(packets: withoutDTS, timeBase: Rational(1, 30)).decodeTimesIncrease)
        // Discarded packets (an edit list's) are not shown and not counted.
        let edited = [P(pts: -5, dts: 5, duration: 1, keyframe: true, discard: true), P(pts: 0, dts: 0, duration: 1, keyframe: true)]
        XCTAssertTrue(try KeyframeIndex(packets: edited, timeBase: Rational(1, 30)).decodeTimesIncrease)
    }

    func testProblems() {
        XCTAssertThrowsError(try KeyframeIndex(packets: [], timeBase: Rational(1, 30))) { XCTAssertEqual($0 as? KeyframeIndex.Problem, .noFrames) }
        XCTAssertThrowsError(
            try KeyframeIndex(
                packets: [P(pts: 0, dts: 0, duration: 1, keyframe: true), P(pts: nil, dts: nil, duration: 1, keyframe: false)],
                timeBase: Rational(1, 30))
        ) { XCTAssertEqual($0 as? KeyframeIndex.Problem, .noTimestamp(packet: 1)) }
        XCTAssertThrowsError(
            try KeyframeIndex(
                packets: [P(pts: 0, dts: 0, duration: 1, keyframe: true), P(pts: 0, dts: 1, duration: 1, keyframe: false)],
                timeBase: Rational(1, 30))
        ) { XCTAssertEqual($0 as? KeyframeIndex.Problem, .repeatedTimestamp(0)) }
    }

    /// Timestamps are the file's words (a Matroska cluster time near 2^64 reads as a pts near
    /// -2^63): two frames further apart than Int64 holds trapped on the step between them, and a
    /// seek target (a time plus half a step) could too. Beyond +-2^61 is now a problem; at the
    /// limit every step and target is computed.
    func testTimestampsBeyondTheLimitAreAProblemNotATrap() throws {
        let far = KeyframeIndex.timestampLimit
        XCTAssertThrowsError(
            try KeyframeIndex(
                packets: [
                    P(pts: .min + 5, dts: .min + 5, duration: 1, keyframe: true),
                    P(pts: .max - 5, dts: .max - 5, duration: 1, keyframe: true)
                ], timeBase: Rational(1, 1000))
        ) {
            XCTAssertEqual($0 as? KeyframeIndex.Problem, .timestampOutOfRange(packet: 0, value: .min + 5))
        }
        XCTAssertThrowsError(try KeyframeIndex(packets: [P(pts: 0, dts: far + 1, duration: 1, keyframe: true)], timeBase: Rational(1, 1000))) {
            XCTAssertEqual($0 as? KeyframeIndex.Problem, .timestampOutOfRange(packet: 0, value: far + 1))
        }
        let edge = try KeyframeIndex(
            packets: [P(pts: -far, dts: -far, duration: 1, keyframe: true), P(pts: far, dts: far, duration: 1, keyframe: true)],
            timeBase: Rational(1, 1000))
        XCTAssertEqual(edge.durations, [2 * far, 1])  // the last: its packet's duration
        XCTAssertEqual(edge.seekTarget(ofSegment: 0, presentationTimes: true), 0)
    }
}
