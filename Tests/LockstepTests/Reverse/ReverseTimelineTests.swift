import XCTest

@testable import Lockstep

/// The reversed timeline without any file: where each run and each frame lies on the output's
/// clock, worked out by hand here (times in a source time base of 1/1000 s, say).
final class ReverseTimelineTests: XCTestCase {
    /// Frames on [0, 100), [100, 300) (a missed frame), [300, 400), [400, 450), ending at 450.
    let starts: [Int64] = [0, 100, 300, 400]

    func testAReversalShowsEachFrameWhereItLeftTheScreen() {
        let t = ReverseTimeline(starts: starts, end: 450, boomerang: false, loops: 1)
        XCTAssertEqual(t.length, 450)
        XCTAssertEqual(t.pieces.count, 1)
        let p = t.pieces[0]
        // Frame 3 ([400, 450)) first, for 50; frame 2 from 50 for 100; frame 1 from 150 for 200; frame 0 from 350.
        XCTAssertEqual((3...3).map { t.placed($0, in: p).start }, [0])
        XCTAssertEqual(t.placed(2, in: p).start, 50)
        XCTAssertEqual(t.placed(1, in: p).start, 150)
        XCTAssertEqual(t.placed(1, in: p).length, 200)
        XCTAssertEqual(t.placed(0, in: p).start, 350)
        XCTAssertEqual(t.until(3), 450)
        XCTAssertEqual(t.until(1), 300)
    }

    func testLoopsFollowEachOther() {
        let t = ReverseTimeline(starts: starts, end: 450, boomerang: false, loops: 2)
        XCTAssertEqual(t.pieces.map(\.at), [0, 450])
        XCTAssertEqual(t.length, 900)
        XCTAssertEqual(t.placed(0, in: t.pieces[1]).start, 800)
    }

    /// Forward over [0, 450), then back over [0, 400) (the turning frame, 3, shown once), then
    /// forward again from frame 0's end [100, 450), back again.
    func testABoomerangTurnsWithoutShowingATurningFrameTwice() {
        let t = ReverseTimeline(starts: starts, end: 450, boomerang: true, loops: 2)
        XCTAssertEqual(t.pieces.map(\.run), [.forward(0...3), .backward(0...2), .forward(1...3), .backward(0...2)])
        XCTAssertEqual(t.pieces.map(\.start), [0, 0, 100, 0])
        XCTAssertEqual(t.pieces.map(\.end), [450, 400, 450, 400])
        XCTAssertEqual(t.pieces.map(\.at), [0, 450, 850, 1200])
        XCTAssertEqual(t.length, 1600)
        // Back: frame 2 first (from 450), frame 0 last (from 450 + 300).
        XCTAssertEqual(t.placed(2, in: t.pieces[1]).start, 450)
        XCTAssertEqual(t.placed(0, in: t.pieces[1]).start, 750)
        // Forward again: frame 1 at 850.
        XCTAssertEqual(t.placed(1, in: t.pieces[2]).start, 850)
    }

    /// A cut [150, 420): frames 1 (cut to [150, 300)), 2 and 3 (cut to [400, 420)), reversed.
    func testACutReversesOnlyItsSpan() {
        let t = ReverseTimeline(starts: starts, end: 450, boomerang: false, loops: 1, cut: 150..<420)
        XCTAssertEqual(t.span, 150..<420)
        XCTAssertEqual(t.plan.runs, [.backward(1...3)])
        XCTAssertEqual(t.length, 270)
        let p = t.pieces[0]
        XCTAssertEqual(t.placed(3, in: p).start, 0)
        XCTAssertEqual(t.placed(3, in: p).length, 20)
        XCTAssertEqual(t.placed(2, in: p).start, 20)
        XCTAssertEqual(t.placed(1, in: p).start, 120)
        XCTAssertEqual(t.placed(1, in: p).length, 150)
        // A cut ending exactly where a frame starts leaves that frame out.
        XCTAssertEqual(ReverseTimeline(starts: starts, end: 450, boomerang: false, loops: 1, cut: 0..<300).plan.runs, [.backward(0...1)])
        // A cut past the end ends at the end.
        XCTAssertEqual(ReverseTimeline(starts: starts, end: 450, boomerang: false, loops: 1, cut: 420..<900).length, 30)
    }

    /// The sound follows the pieces in 48 kHz samples (time base 1/1000 here): backward pieces
    /// read down from their source end, and consecutive pieces meet exactly.
    func testSoundPiecesMeetExactly() {
        let t = ReverseTimeline(starts: starts, end: 450, boomerang: true, loops: 1)
        let pieces = ReverseSound.pieces(t, timeBase: Rational(1, 1000), keep: false)
        XCTAssertEqual(
            pieces,
            [
                ReverseSound.Piece(at: 0, count: 21_600, source: 0, backward: false),
                ReverseSound.Piece(at: 21_600, count: 19_200, source: 19_200, backward: true)
            ])
        let kept = ReverseSound.pieces(ReverseTimeline(starts: starts, end: 450, boomerang: false, loops: 1, cut: 150..<420), timeBase: Rational(1, 1000), keep: true)
        XCTAssertEqual(kept.first?.source, 7_200)
        XCTAssertEqual(kept.first?.backward, false)
    }
}
