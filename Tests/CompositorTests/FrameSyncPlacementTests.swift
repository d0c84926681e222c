import Compositor
import XCTest

/// Time sync with inputs placed in time (`SyncPlacement`: offsets, drift, trims, coverage,
/// held last frames) and stills, on tables of timestamps, no I/O. Expected choices are worked
/// out by hand from the frame times: the frame on screen at each tick's instant.
final class FrameSyncPlacementTests: XCTestCase {
    struct Input {
        var pts: [Int64]
        var tb: Rational
        var durations: [Int64]?
        var streamEnd: Int64? = nil
        /// Frames at a constant rate: `count` frames of `step` units in time base `tb`, from `first`.
        static func rate(_ count: Int, step: Int64, tb: Rational, first: Int64 = 0) -> Input {
            Input(pts: (0..<count).map { first + Int64($0) * step }, tb: tb, durations: Array(repeating: step, count: count))
        }
    }
    /// Per emitted tick, per input: the source index shown (nil: absent) and whether it is held.
    struct Tick: Equatable, CustomStringConvertible {
        var frames: [Int?]
        var held: [Bool]
        var description: String { frames.enumerated().map { i, f in f.map { held[i] ? "\($0)h" : "\($0)" } ?? "-" }.joined(separator: " ") }
    }

    func run(
        _ mode: SyncMode = .time, fps: Rational, _ inputs: [Input], placement: SyncPlacement? = nil,
        maxTicks: Int = 10_000
    ) -> (ticks: [Tick], endedBy: Int?, released: Int, sync: FrameSync<Int>) {
        var sync = FrameSync<Int>(mode: mode, inputs: inputs.count, frameRate: fps, placement: placement)
        for (i, input) in inputs.enumerated() { if let e = input.streamEnd { sync.setStreamEnd(Timestamp(e, input.tb), input: i) } }
        var next = Array(repeating: 0, count: inputs.count)
        var ticks: [Tick] = []
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
                ticks.append(
                    Tick(
                        frames: (0..<inputs.count).map { sync.chosenIfPresent($0) },
                        held: (0..<inputs.count).map { sync.presence($0) == .held }))
            case .end(let input, let tick):
                XCTAssertEqual(tick, Int64(ticks.count))
                while sync.drain() != nil { released += 1 }
                return (ticks, input, released, sync)
            }
        }
        return (ticks, nil, released, sync)
    }

    let tb30 = Rational(1, 15360)  // ffmpeg's MP4 time base for 30 fps: a frame is 512

    func testAnOffsetPutsEachInputsTimeZeroOnTheFirstInputsClock() {
        // Input 2 started 0.5 s after input 1: the output covers the time both saw, from input
        // 1's 0.5 s; tick k shows input 1's frame 15 + k and input 2's frame k.
        let a = Input.rate(60, step: 512, tb: tb30), b = Input.rate(60, step: 512, tb: tb30)
        let r = run(fps: Rational(30, 1), [a, b], placement: SyncPlacement(clocks: [.identity, InputClock(offset: Rational(1, 2))]))
        XCTAssertEqual(r.ticks.map(\.frames), (0..<45).map { [15 + $0, $0] }, "input 1 ends the output at its 2 s")
        XCTAssertEqual(r.endedBy, 0)
        XCTAssertEqual(r.sync.start, Rational(1, 2))
    }

    func testANegativeOffsetStartsTheOutputAtTheFirstInputsZero() {
        // Input 2 started 0.2 s before input 1: at input 1's 0 it is at its own 0.2 s (frame 6).
        let a = Input.rate(30, step: 512, tb: tb30), b = Input.rate(60, step: 512, tb: tb30)
        let r = run(fps: Rational(30, 1), [a, b], placement: SyncPlacement(clocks: [.identity, InputClock(offset: Rational(-1, 5))]))
        XCTAssertEqual(r.ticks.map(\.frames), (0..<30).map { [$0, 6 + $0] })
        XCTAssertEqual(r.endedBy, 0)
    }

    func testAnOffsetBetweenFramesTakesTheFrameOnScreen() {
        // 25 fps input placed at +0.01 s under 30 fps: tick k at k/30 shows frame floor((k/30 - 0.01) * 25).
        let a = Input.rate(40, step: 512, tb: tb30)
        let b = Input.rate(30, step: 40, tb: Rational(1, 1000))
        let r = run(fps: Rational(30, 1), [a, b], placement: SyncPlacement(clocks: [.identity, InputClock(offset: Rational(1, 100))]))
        // The output starts at 0.01 s of input 1: tick k is input 1's k/30 + 0.01 and input 2's k/30.
        let expected = (0..<36).map { k -> [Int?] in [Int((Double(k) / 30 + 0.01) * 30), k * 25 / 30] }
        XCTAssertEqual(r.ticks.map(\.frames), Array(expected.prefix(r.ticks.count)))
        XCTAssertEqual(r.ticks.count, 36, "input 2's 1.2 s: ticks k/30 < 1.2")
    }

    func testDriftChoosesFramesOnTheCorrectedClock() {
        // Input 2's clock runs 1000 ppm fast: at reference time t it stamps t * 1.001. Frame n of
        // its 30 fps is at n/30 on its clock: tick k shows floor(k * 1.001) (ticks where k*1.001
        // is a whole number show that frame: it is due at once).
        let a = Input.rate(1200, step: 512, tb: tb30), b = Input.rate(1200, step: 512, tb: tb30)
        let r = run(fps: Rational(30, 1), [a, b], placement: SyncPlacement(clocks: [.identity, InputClock(driftPpm: 1000)]))
        XCTAssertEqual(r.ticks.count, 1199, "input 2's 40 s of its clock last 40 / 1.001 s: ticks k/30 < 39.96")
        for k in [0, 1, 499, 500, 999, 1000, 1198] {
            XCTAssertEqual(r.ticks[k].frames, [k, k * 1001 / 1000], "tick \(k)")
        }
        // And a slow clock: -1000 ppm shows frame floor(k * 0.999); input 1 ends the output.
        let slow = run(fps: Rational(30, 1), [a, b], placement: SyncPlacement(clocks: [.identity, InputClock(driftPpm: -1000)]))
        XCTAssertEqual(slow.ticks.count, 1200)
        for k in [0, 1, 999, 1000, 1001, 1199] { XCTAssertEqual(slow.ticks[k].frames[1], k * 999 / 1000, "tick \(k)") }
    }

    func testATrimTakesAPartOfAnInputAndEndsTheOutputAtItsEnd() {
        // Input 2 trimmed to its 1.0-2.0 s, placed so that its 1.0 s is input 1's 0.
        let a = Input.rate(90, step: 512, tb: tb30), b = Input.rate(90, step: 512, tb: tb30)
        let clock = InputClock(offset: Rational(-1, 1), trim: .init(start: Rational(1, 1), end: Rational(2, 1)))
        let r = run(fps: Rational(30, 1), [a, b], placement: SyncPlacement(clocks: [.identity, clock]))
        XCTAssertEqual(r.ticks.map(\.frames), (0..<30).map { [$0, 30 + $0] })
        XCTAssertEqual(r.endedBy, 1)
        XCTAssertTrue(r.sync.isIdle(1), "input 2 is not read past its trim")
        XCTAssertFalse(r.sync.isIdle(0))
    }

    func testLongestCoversEveryInputsTimeWithAbsentInputsOutsideTheirSpan() {
        // Input 2 (1 s) starts 0.5 s after input 1 (1 s): 1.5 s in all, input 2 absent for the
        // first 15 ticks, input 1 for the last 15.
        let a = Input.rate(30, step: 512, tb: tb30), b = Input.rate(30, step: 512, tb: tb30)
        let r = run(fps: Rational(30, 1), [a, b], placement: SyncPlacement(clocks: [.identity, InputClock(offset: Rational(1, 2))], coverage: .longest))
        let expected: [[Int?]] = (0..<45).map { k in [k < 30 ? k : nil, k >= 15 ? k - 15 : nil] }
        XCTAssertEqual(r.ticks.map(\.frames), expected)
        XCTAssertEqual(r.endedBy, 1, "the last to end")
        XCTAssertEqual(r.sync.start, Rational(0, 1))
    }

    func testHoldLastShowsAnEndedInputsLastFrameUntilTheLastInputEnds() {
        let a = Input.rate(30, step: 512, tb: tb30), b = Input.rate(45, step: 512, tb: tb30)
        for mode in SyncMode.allCases {
            let r = run(mode, fps: Rational(30, 1), [a, b], placement: SyncPlacement(clocks: [.identity, .identity], holdLast: true))
            XCTAssertEqual(r.ticks.map(\.frames), (0..<45).map { [min($0, 29), $0] }, "\(mode)")
            XCTAssertEqual(r.ticks.map { $0.held[0] }, (0..<45).map { $0 >= 30 }, "\(mode)")
            XCTAssertEqual(r.endedBy, 1, "\(mode)")
            XCTAssertEqual(r.released, 75, "\(mode): every frame handed back")
        }
        // Without it the shorter input ends the output, in both modes.
        for mode in SyncMode.allCases {
            let r = run(mode, fps: Rational(30, 1), [a, b])
            XCTAssertEqual(r.ticks.count, 30, "\(mode)"); XCTAssertEqual(r.endedBy, 0, "\(mode)")
        }
    }

    func testAStillIsHeldForTheWholeOutputInBothModes() {
        // A JPEG as FFmpeg reads it: one frame, pts 0 in 1/25, duration 1.
        let still = Input(pts: [0], tb: Rational(1, 25), durations: [1])
        let movie = Input.rate(45, step: 512, tb: tb30)
        for mode in SyncMode.allCases {
            let r = run(mode, fps: Rational(30, 1), [movie, still])
            XCTAssertEqual(r.ticks.map(\.frames), (0..<45).map { [$0, 0] }, "\(mode)")
            XCTAssertEqual(r.ticks.map(\.held), Array(repeating: [false, false], count: 45), "\(mode): a still is shown, not held")
            XCTAssertEqual(r.endedBy, 0, "\(mode)")
            XCTAssertTrue(r.sync.isStill(1)); XCTAssertFalse(r.sync.isStill(0))
            XCTAssertNil(r.sync.until(1), "a still is on screen for good")
        }
    }

    func testOnlyStillsMakeOneFrame() {
        let still = Input(pts: [0], tb: Rational(1, 25), durations: [1])
        for mode in SyncMode.allCases {
            let r = run(mode, fps: Rational(30, 1), [still, still])
            XCTAssertEqual(r.ticks.map(\.frames), [[0, 0]], "\(mode)")
            XCTAssertEqual(r.released, 2)
        }
    }

    func testMixedRatesShowTheFrameOnScreenAtEachTick() {
        // 25, 29.97 (1/30000), 30 and 59.94 (1/60000) under 30 fps, 2 s each: frame floor(t * rate).
        let inputs = [
            Input.rate(50, step: 40, tb: Rational(1, 1000)), Input.rate(60, step: 1001, tb: Rational(1, 30000)),
            Input.rate(60, step: 512, tb: tb30), Input.rate(120, step: 1001, tb: Rational(1, 60000))
        ]
        let r = run(fps: Rational(30, 1), inputs)
        XCTAssertEqual(r.ticks.count, 60)
        XCTAssertEqual(r.endedBy, 0, "25 fps: 2 s; 29.97 and 59.94: 2.002 s")
        for (k, tick) in r.ticks.enumerated() {
            let t = Rational(Int64(k), 30)
            let expected = [(t * Rational(25, 1)), (t * Rational(30000, 1001)), (t * Rational(30, 1)), (t * Rational(60000, 1001))]
                .map { Int($0.num / $0.den) }
            XCTAssertEqual(tick.frames, expected, "tick \(k)")
        }
    }

    func testTheStreamsEndCutsTheLastFrameShort() {
        // The iPhone clip's case: 1/600, steps of 20, the edit list ends the stream 8 units into
        // the last frame. Last frame (10) at 200, stream end 208: 30 fps ticks while k/30 < 208/600.
        var a = Input.rate(11, step: 20, tb: Rational(1, 600))
        a.streamEnd = 208
        let r = run(fps: Rational(30, 1), [a])
        XCTAssertEqual(r.ticks.count, 11, "ticks 0-10 (10/30 = 200/600 < 208/600)")
        var b = Input.rate(11, step: 20, tb: Rational(1, 600))
        b.streamEnd = 200  // at the last frame's own time: not inside it, ignored
        XCTAssertEqual(run(fps: Rational(60, 1), [b]).ticks.count, 22)
        a.streamEnd = 204
        XCTAssertEqual(run(fps: Rational(60, 1), [a]).ticks.count, 21, "60 fps: tick 20 at 200/600 is served, tick 21 at 210/600 is not")
    }

    func testUntilIsTheNextFramesTimeOrTheInputsEnd() {
        let a = Input.rate(3, step: 1, tb: Rational(1, 25))
        var sync = FrameSync<Int>(mode: .time, inputs: 1, frameRate: Rational(50, 1))
        var next = 0, untils: [Int64?] = []
        loop: while true {
            switch sync.step() {
            case .need: if next < 3 { sync.push(SourceFrame(index: next, pts: Timestamp(a.pts[next], a.tb), duration: a.tb), payload: next, input: 0); next += 1 } else { sync.finish(input: 0) }
            case .release: continue
            case .emit: untils.append(sync.until(0)?.value)
            case .end: break loop
            }
        }
        XCTAssertEqual(untils, [1, 1, 2, 2, 3, 3])
    }

    func testTheClockMapsBothWays() {
        let c = InputClock(offset: Rational(5, 2), driftPpm: 250)
        for t in [Rational(0, 1), Rational(1, 30), Rational(600, 1)] {
            let r = c.referenceTime(ofInput: t)
            XCTAssertEqual(c.inputTime(atReference: r).seconds, t.seconds, accuracy: 2e-9)
        }
        XCTAssertEqual(c.inputTime(atReference: Rational(1002, 1)).seconds, 999.5 * 1.00025, accuracy: 1e-9)
        XCTAssertEqual(InputClock(offset: Rational(1, 3)).inputTime(atReference: Rational(1, 1)), Rational(2, 3), "exact without drift")
        XCTAssertEqual(InputClock.text(Rational(-1, 24)), "-0.041667")
        XCTAssertEqual(InputClock.text(Rational(5, 2)), "2.5")
    }
}
