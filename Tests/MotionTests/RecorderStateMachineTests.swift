import Motion
import XCTest

final class RecorderStateMachineTests: XCTestCase {
    func testHappyPathToDuration() {
        var m = RecorderStateMachine(duration: 1_000)
        XCTAssertEqual(m.start(), .openDevice); XCTAssertEqual(m.state, .starting)
        XCTAssertEqual(m.start(), .none, "a second start is ignored")
        XCTAssertEqual(m.deviceOpened(), .none); XCTAssertEqual(m.state, .recording)
        XCTAssertEqual(m.received(timestamps: [5000, 5400, 5800]), .commit(keep: 3, thenClose: false))
        // 6000 is exactly one duration after the first sample: it is not kept.
        XCTAssertEqual(m.received(timestamps: [6000 - 1, 6000, 6001]), .commit(keep: 1, thenClose: true))
        XCTAssertEqual(m.state, .stopping(.durationReached))
        XCTAssertEqual(m.received(timestamps: [7000]), .none, "nothing past the duration")
        XCTAssertEqual(m.deviceClosed(), .finish(.durationReached, samples: 4))
        XCTAssertEqual(m.state, .idle)
    }

    func testSampleLimit() {
        var m = RecorderStateMachine(sampleLimit: 5)
        _ = m.start(); _ = m.deviceOpened()
        XCTAssertEqual(m.received(timestamps: [1, 2, 3]), .commit(keep: 3, thenClose: false))
        XCTAssertEqual(m.received(timestamps: [4, 5, 6]), .commit(keep: 2, thenClose: true))
        XCTAssertEqual(m.deviceClosed(), .finish(.sampleLimitReached, samples: 5))
    }

    func testCtrlCKeepsWhatArrivesWhileStopping() {
        var m = RecorderStateMachine()
        _ = m.start(); _ = m.deviceOpened()
        XCTAssertEqual(m.received(timestamps: [1, 2]), .commit(keep: 2, thenClose: false))
        XCTAssertEqual(m.stop(.interrupted), .closeDevice)
        XCTAssertEqual(m.stop(.failed("later")), .none, "the first reason wins")
        XCTAssertEqual(m.received(timestamps: [3]), .commit(keep: 1, thenClose: false))
        XCTAssertEqual(m.deviceClosed(), .finish(.interrupted, samples: 3))
    }

    func testFailureWhileStartingAndExitStatuses() {
        var m = RecorderStateMachine()
        _ = m.start()
        XCTAssertEqual(m.stop(.failed("no device")), .closeDevice)
        XCTAssertEqual(m.deviceOpened(), .none, "too late to open")
        XCTAssertEqual(m.deviceClosed(), .finish(.failed("no device"), samples: 0))
        // Which ends were asked for (the CLI's `ExitStatus` gives them 0, the others not).
        XCTAssertTrue(RecorderStateMachine.Stop.interrupted.wasAskedFor)
        XCTAssertTrue(RecorderStateMachine.Stop.durationReached.wasAskedFor)
        XCTAssertTrue(RecorderStateMachine.Stop.sampleLimitReached.wasAskedFor)
        XCTAssertFalse(RecorderStateMachine.Stop.terminated.wasAskedFor)
        XCTAssertFalse(RecorderStateMachine.Stop.hungUp.wasAskedFor)
        XCTAssertEqual(RecorderStateMachine.Stop.hungUp.sentence, "stopped by SIGHUP")
        XCTAssertFalse(RecorderStateMachine.Stop.failed("x").wasAskedFor)
        XCTAssertEqual(m.stop(.interrupted), .none, "idle: nothing to stop")
    }

    func testEventsBeforeStartAreIgnored() {
        var m = RecorderStateMachine()
        XCTAssertEqual(m.received(timestamps: [1]), .none)
        XCTAssertEqual(m.deviceClosed(), .none)
        XCTAssertEqual(m.committed, 0)
    }
}
