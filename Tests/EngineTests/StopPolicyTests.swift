import Engine
import Glibc
import XCTest

/// What a stop signal means at each point of a command's life (`StopPolicy`, pure; the signals
/// themselves are sent to real processes in the command-line tests, e.g. CalibrateSignalTests).
final class StopPolicyTests: XCTestCase {
    func testBeforeAJobTheProcessEndsWithTheFirstSignal() {
        var p = StopPolicy()
        XCTAssertEqual(p.heard(SIGTERM), .exit(signal: SIGTERM))
        // A second signal before anything started still names the first.
        XCTAssertEqual(p.heard(SIGINT), .exit(signal: SIGTERM))
        XCTAssertEqual(p.first, SIGTERM)
    }

    func testWhileAJobRunsTheFirstSignalCancelsItAndLaterOnesChangeNothing() {
        var p = StopPolicy()
        XCTAssertEqual(p.start(), .ignore)
        XCTAssertEqual(p.phase, .running)
        XCTAssertEqual(p.heard(SIGHUP), .cancel(SIGHUP))
        XCTAssertEqual(p.heard(SIGINT), .ignore)
        XCTAssertEqual(p.first, SIGHUP)
    }

    func testASignalHeardBeforeTheJobStartedCancelsItAtOnce() {
        var p = StopPolicy()
        _ = p.heard(SIGINT)
        XCTAssertEqual(p.start(), .cancel(SIGINT))
    }

    func testOnceTheJobHasReturnedASignalChangesNothing() {
        var p = StopPolicy()
        _ = p.start()
        p.finish()
        XCTAssertEqual(p.heard(SIGINT), .ignore)
        XCTAssertNil(p.first)
    }
}
