import XCTest

@testable import Engine

/// The watchdog's decision, on hand-made stage states (no threads, no clock).
final class WatchdogTests: XCTestCase {
    let s: UInt64 = 1_000_000_000

    func testABusyStagePastTheTimeoutIsNamed() {
        let states = [
            (name: "input 1 (a.mp4)", state: (activity: "waiting for the compositor", busy: false, since: 0 * s)),
            (name: "input 2 (b.mp4)", state: (activity: "reading and decoding", busy: true, since: 1 * s)),
            (name: "the writer", state: (activity: "waiting for frames", busy: false, since: 1 * s))
        ]
        XCTAssertEqual(
            Watchdog.stall(in: states, timeout: 30, now: 32 * s)?.description,
            "input 2 (b.mp4) made no progress for 30 s while reading and decoding; stopped")
        XCTAssertNil(Watchdog.stall(in: states, timeout: 30, now: 30 * s))
    }

    func testWaitingStagesAreNotBlamedWhileSomethingMoves() {
        let states = [
            (name: "input 1 (a.mp4)", state: (activity: "waiting for a free frame", busy: false, since: UInt64(0))),
            (name: "the writer", state: (activity: "encoding frame 7", busy: true, since: 40 * s))
        ]
        XCTAssertNil(Watchdog.stall(in: states, timeout: 30, now: 45 * s))
    }

    func testNothingMovingAtAllIsAStallOfThePipeline() {
        let states = [
            (name: "the compositor", state: (activity: "waiting for input 1", busy: false, since: UInt64(0))),
            (name: "input 1 (a.mp4)", state: (activity: "waiting for a free frame", busy: false, since: UInt64(0)))
        ]
        XCTAssertEqual(
            Watchdog.stall(in: states, timeout: 2.5, now: 3 * s)?.description,
            "nothing moved for 2.5 s (the compositor waiting for input 1, input 1 (a.mp4) waiting for a free frame); stopped")
    }
}

/// A stage's clock is set by the stage's thread and read by the watchdog's. This test has its
/// teeth under ThreadSanitizer (CI runs WatchdogTests there): a lock TSan cannot see, such as
/// `Synchronization.Mutex` on Linux, is reported as a race here and fails the run.
final class ThreadClockTests: XCTestCase {
    func testAClockSetOnOneThreadIsReadWholeOnAnother() {
        let clock = ThreadClock(name: "input 1")
        let done = DispatchSemaphore(value: 0), readerSawOne = DispatchSemaphore(value: 0)
        let writer = Thread {
            clock.set("frame 0", busy: true)
            // The rest is written only once the reader is reading: the two overlap for sure.
            readerSawOne.wait()
            for i in 1..<5_000 { clock.set("frame \(i)", busy: i % 2 == 0) }
            done.signal()
        }
        writer.start()
        var seen = 0
        while done.wait(timeout: .now()) == .timedOut {
            let state = clock.state
            // Activity and busy are set together: a torn read would pair "frame 3" with busy.
            if let n = Int(state.activity.dropFirst("frame ".count)) {
                XCTAssertEqual(state.busy, n % 2 == 0, state.activity)
                seen += 1
                if seen == 1 { readerSawOne.signal() }
            }
        }
        XCTAssertGreaterThan(seen, 0)
        XCTAssertEqual(clock.state.activity, "frame 4999")
        XCTAssertFalse(clock.state.busy)
    }
}

final class WatchdogHardeningTests: XCTestCase {
    func testHugeTimeoutsAndClocksSetAfterNowDoNotTrap() {
        let states = [(name: "the writer", state: (activity: "encoding", busy: true, since: UInt64(5_000_000_000)))]
        // 1e11 s is past UInt64 nanoseconds; a stage may set its clock after `now` was read.
        XCTAssertNil(Watchdog.stall(in: states, timeout: 1e11, now: 1))
        XCTAssertNil(Watchdog.stall(in: states, timeout: 30, now: 1))
        XCTAssertNil(Watchdog.stall(in: states, timeout: .infinity, now: .max))
    }
}
