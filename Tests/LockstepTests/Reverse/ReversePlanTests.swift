import XCTest

@testable import Lockstep

/// The plan of `lockstep reverse` without any file: what is shown, and how a backward run is
/// read through a bounded pool.
final class ReversePlanTests: XCTestCase {
    func testReverseAndLoops() {
        XCTAssertEqual(ReversePlan(frames: 4, boomerang: false, loops: 1).sourceFrames, [3, 2, 1, 0])
        XCTAssertEqual(ReversePlan(frames: 3, boomerang: false, loops: 2).sourceFrames, [2, 1, 0, 2, 1, 0])
        XCTAssertEqual(ReversePlan(frames: 1, boomerang: false, loops: 1).sourceFrames, [0])
    }

    func testBoomerangNeverDoublesATurningFrame() {
        XCTAssertEqual(ReversePlan(frames: 4, boomerang: true, loops: 1).sourceFrames, [0, 1, 2, 3, 2, 1, 0])
        XCTAssertEqual(ReversePlan(frames: 3, boomerang: true, loops: 3).sourceFrames, [0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0])
        XCTAssertEqual(ReversePlan(frames: 1, boomerang: true, loops: 2).sourceFrames, [0])
        let p = ReversePlan(frames: 100, boomerang: true, loops: 2)
        XCTAssertEqual(p.count, 1 + 2 * 198)
        XCTAssertEqual(p.count, p.sourceFrames.count)
    }

    /// GOPs at 0, 60 (100 frames), pool 16: each GOP from its end, sub-ranges never cross a
    /// keyframe, every frame in exactly one pass.
    func testBackwardPassesStayInsideTheirGOP() {
        let start: (Int) -> Int = { $0 >= 60 ? 60 : 0 }
        let passes = ReversePlan.backwardPasses(0...99, pool: 16, segmentStart: start)
        XCTAssertEqual(passes, [84..<100, 68..<84, 60..<68, 44..<60, 28..<44, 12..<28, 0..<12])
        XCTAssertEqual(passes.flatMap { Array($0) }.sorted(), Array(0...99))
        // GOP 40: 40 + 24 + 8 from its keyframe; GOP 60: 60 + 44 + 28 + 12.
        XCTAssertEqual(ReversePlan.picturesDecoded(passes, segmentStart: start), 72 + 144)
        // A pool as large as the GOP: one pass per GOP, each picture once.
        let whole = ReversePlan.backwardPasses(0...99, pool: 60, segmentStart: start)
        XCTAssertEqual(whole, [60..<100, 0..<60])
        XCTAssertEqual(ReversePlan.picturesDecoded(whole, segmentStart: start), 100)
        // A run that starts inside a GOP (a boomerang's backward run ends at frame 0, but from 98).
        XCTAssertEqual(ReversePlan.backwardPasses(0...98, pool: 60, segmentStart: start), [60..<99, 0..<60])
    }

    /// The formula the README states: m * G - P * m * (m - 1) / 2 with m = ceil(G / P).
    func testDecodeCostFormula() {
        for (g, p) in [(250, 32), (250, 48), (250, 250), (60, 16), (7, 3)] {
            let passes = ReversePlan.backwardPasses(0...(g - 1), pool: p) { _ in 0 }
            let m = (g + p - 1) / p
            XCTAssertEqual(ReversePlan.picturesDecoded(passes, segmentStart: { _ in 0 }), m * g - p * m * (m - 1) / 2, "G \(g), P \(p)")
        }
    }

    /// A cut's frames are the clip: a boomerang over frames 5...8 turns at 8 and 5.
    func testAPlanOverACutsFrames() {
        XCTAssertEqual(ReversePlan(frames: 5...8, boomerang: false, loops: 1).sourceFrames, [8, 7, 6, 5])
        XCTAssertEqual(ReversePlan(frames: 5...8, boomerang: true, loops: 2).sourceFrames, [5, 6, 7, 8, 7, 6, 5, 6, 7, 8, 7, 6, 5])
    }

    /// Forward runs read in pool-sized passes that end at a keyframe where one lies inside
    /// (GOPs at 0, 60), so the next pass starts there instead of decoding a GOP again.
    func testForwardPassesEndAtKeyframes() {
        XCTAssertEqual(ReversePlan.forwardPasses(0...99, pool: 16, segmentStarts: [0, 60]), [0..<16, 16..<32, 32..<48, 48..<60, 60..<76, 76..<92, 92..<100])
        XCTAssertEqual(ReversePlan.forwardPasses(1...99, pool: 100, segmentStarts: [0, 60]), [1..<100])
        XCTAssertEqual(ReversePlan.forwardPasses(50...70, pool: 16, segmentStarts: [0, 60]), [50..<60, 60..<71])
    }
}
