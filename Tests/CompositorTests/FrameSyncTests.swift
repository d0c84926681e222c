import Compositor
import XCTest

/// The sync policy on tables of timestamps, no I/O: which source frame each tick takes, and
/// where the output ends.
final class FrameSyncTests: XCTestCase {
    /// Runs the state machine over inputs given as pts lists (in their own time bases) and
    /// returns, per emitted tick, the source index chosen from each input; plus who ended it.
    func run(
        _ mode: SyncMode, fps: Rational, inputs: [(pts: [Int64], tb: Rational, durations: [Int64]?)],
        maxTicks: Int = 1000
    ) -> (ticks: [[Int]], endedBy: Int?, released: Int) {
        var sync = FrameSync<Int>(mode: mode, inputs: inputs.count, frameRate: fps)
        var next = Array(repeating: 0, count: inputs.count)
        var ticks: [[Int]] = []
        var released = 0
        while ticks.count < maxTicks {
            switch sync.step() {
            case .need(let i):
                let k = next[i]
                if k < inputs[i].pts.count {
                    let d = inputs[i].durations.map { inputs[i].tb * $0[k] }
                    sync.push(SourceFrame(index: k, pts: Timestamp(inputs[i].pts[k], inputs[i].tb), duration: d), payload: k, input: i)
                    next[i] += 1
                } else {
                    sync.finish(input: i)
                }
            case .release: released += 1
            case .emit(let tick):
                XCTAssertEqual(tick, Int64(ticks.count))
                ticks.append((0..<inputs.count).map { sync.chosen($0) })
            case .end(let input, let tick):
                XCTAssertEqual(tick, Int64(ticks.count))
                while sync.drain() != nil { released += 1 }
                return (ticks, input, released)
            }
        }
        return (ticks, nil, released)
    }

    func testIndexSyncTakesTheKthFrameOfEveryInputWhateverTheTimestamps() {
        let r = run(
            .index, fps: Rational(30, 1),
            inputs: [
                (pts: [0, 512, 1024, 1536, 2048], tb: Rational(1, 15360), durations: nil),
                (pts: [9000, 9001, 9500], tb: Rational(1, 90000), durations: nil)  // irregular, starts late
            ])
        XCTAssertEqual(r.ticks, [[0, 0], [1, 1], [2, 2]])
        XCTAssertEqual(r.endedBy, 1, "the shorter input ends the output")
        XCTAssertEqual(r.released, 7, "every frame handed in (4 + 3) is handed back")
    }

    func testTimeSyncOf25fpsUnder30fpsRepeatsTheFrameOnScreenAndEndsAtTheInputsEnd() {
        // 10 frames at 25 fps = 0.4 s; ticks at k/30 for k*(1/30) < 0.4 → 12 ticks.
        let pts = (0..<10).map { Int64($0) * 512 }  // tb 1/12800 → 25 fps
        let r = run(.time, fps: Rational(30, 1), inputs: [(pts: pts, tb: Rational(1, 12800), durations: Array(repeating: 512, count: 10))])
        let expected = (0..<12).map { k in [k * 25 / 30] }
        XCTAssertEqual(r.ticks, expected)
        XCTAssertEqual(r.endedBy, 0)
    }

    func testTimeSyncComparesExactlyWhereFloatingPointWouldNot() {
        // Frame 1 is at exactly 1/30 s in a 1/90000 time base (3000); tick 1 is 1/30 s.
        // The frame is due at that tick ("<= t"), so tick 1 must take frame 1.
        let r = run(.time, fps: Rational(30, 1), inputs: [(pts: [0, 3000, 6000], tb: Rational(1, 90000), durations: [3000, 3000, 3000])])
        XCTAssertEqual(r.ticks, [[0], [1], [2]])
    }

    func testTimeSyncMeasuresEachInputFromItsOwnFirstFrame() {
        // Input 1 starts at 0.5 s: its first frame serves tick 0.
        let a = (pts: (0..<6).map { Int64($0) }, tb: Rational(1, 30), durations: [Int64]?.none)
        let b = (pts: (0..<6).map { Int64($0) * 3000 + 45000 }, tb: Rational(1, 90000), durations: [Int64]?.none)
        let r = run(.time, fps: Rational(30, 1), inputs: [a, b])
        XCTAssertEqual(r.ticks, (0..<6).map { [$0, $0] })
    }

    func testTimeSyncWithoutDurationsUsesTheLastStepForTheLastFrame() {
        let r = run(.time, fps: Rational(60, 1), inputs: [(pts: [0, 1, 2], tb: Rational(1, 30), durations: nil)])
        // 3 frames at 30 fps last 0.1 s: 6 ticks at 60 fps.
        XCTAssertEqual(r.ticks.map { $0[0] }, [0, 0, 1, 1, 2, 2])
    }

    func testNothingIsEmittedBeforeEveryInputHasAFrame() {
        let r = run(
            .index, fps: Rational(30, 1),
            inputs: [
                (pts: [0, 1], tb: Rational(1, 30), durations: nil),
                (pts: [], tb: Rational(1, 30), durations: nil)
            ])
        XCTAssertEqual(r.ticks, [])
        XCTAssertEqual(r.endedBy, 1)
    }

    func testTimeSyncSkipsFramesBetweenTicksOfASlowerOutput() {
        // 60 fps input under 30 fps output: every other frame.
        let r = run(.time, fps: Rational(30, 1), inputs: [(pts: (0..<8).map { Int64($0) }, tb: Rational(1, 60), durations: nil)])
        XCTAssertEqual(r.ticks.map { $0[0] }, [0, 2, 4, 6])
        XCTAssertEqual(r.released, 8)
    }

    func testMillisecondRoundedTimestampsAreDueAtTheirTick() {
        // Matroska stores 30 fps at 1 ms: 0, 33, 67, 100, 133, 167 (67 is 66.67 rounded up).
        let r = run(.time, fps: Rational(30, 1), inputs: [(pts: [500, 533, 567, 600, 633, 667], tb: Rational(1, 1000), durations: nil)])
        XCTAssertEqual(r.ticks.map { $0[0] }, [0, 1, 2, 3, 4, 5])
    }

    func testTheRoundingAllowanceNeverReachesTheNextFrameOfACoarseTimeBase() {
        // 25 fps in a 1/25 time base: frame 1 (40 ms) is not due at tick 1 of 30 fps (33.3 ms).
        let r = run(.time, fps: Rational(30, 1), inputs: [(pts: [0, 1, 2], tb: Rational(1, 25), durations: nil)])
        XCTAssertEqual(r.ticks.map { $0[0] }, [0, 0, 1, 2])
    }
}
