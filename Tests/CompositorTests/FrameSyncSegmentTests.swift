import Compositor
import XCTest

/// A segment's sync (`startTick`, origins given, frames pushed from the first one the segment
/// needs) chooses at every tick what the single pass chooses.
final class FrameSyncSegmentTests: XCTestCase {
    /// Ticks [from, to) of a sync over inputs given as pts lists (1/1000), each fed from frame
    /// `first[i]` on, its origin its frame 0's pts; nil `first`: the single pass from tick 0.
    func choices(_ mode: SyncMode, _ inputs: [[Int64]], from: Int64, to: Int64, first: [Int]?) -> [[Int]] {
        let tb = Rational(1, 1000)
        var sync = FrameSync<Int>(mode: mode, inputs: inputs.count, frameRate: Rational(30, 1), startTick: first == nil ? 0 : from)
        if first != nil { for (i, pts) in inputs.enumerated() { sync.setOrigin(Timestamp(pts[0], tb), input: i) } }
        var next = first ?? Array(repeating: 0, count: inputs.count)
        var out: [[Int]] = []
        while true {
            switch sync.step() {
            case .need(let i):
                if next[i] < inputs[i].count {
                    sync.push(SourceFrame(index: next[i], pts: Timestamp(inputs[i][next[i]], tb), duration: tb * 40), payload: next[i], input: i)
                    next[i] += 1
                } else {
                    sync.finish(input: i)
                }
            case .release: continue
            case .emit(let tick):
                if tick >= to { return out }
                if tick >= from { out.append((0..<inputs.count).map { sync.chosen($0) }) }
            case .end: return out
            }
        }
    }

    func testASegmentChoosesWhatTheSinglePassChooses() {
        // 25 fps from 500 ms (a late start) and 30 fps stored in ms, under a 30 fps output.
        let a = (0..<100).map { 500 + Int64($0) * 40 }, b = (0..<120).map { Int64((Double($0) * 1000 / 30).rounded()) }
        for mode in SyncMode.allCases {
            let single = choices(mode, [a, b], from: 40, to: 70, first: nil)
            XCTAssertEqual(single.count, 30)
            // The frames tick 40 takes in the single pass are where the segment's inputs start.
            let segment = choices(mode, [a, b], from: 40, to: 70, first: single[0])
            XCTAssertEqual(segment, single, "\(mode)")
        }
    }
}
