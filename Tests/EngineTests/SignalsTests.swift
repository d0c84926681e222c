import Dispatch
import Glibc
import XCTest

@testable import Engine

/// `withSignals`, the signal handling of `imu record` and `imu serve`: a signal sent as soon as
/// the body runs reaches the handler, on every call in a process, and the default comes back.
final class SignalsTests: XCTestCase {
    func testASignalSentAsTheBodyStartsReachesTheHandlerOnEveryCall() {
        for round in 1...3 {
            let heard = DispatchSemaphore(value: 0)
            let caught = withSignals([SIGHUP], { sig in if sig == SIGHUP { heard.signal() } }) { () -> Bool in
                let caught = DispatchSignalHandlers.isCaught(SIGHUP)
                kill(getpid(), SIGHUP)
                XCTAssertEqual(heard.wait(timeout: .now() + 5), .success, "round \(round): the signal was lost")
                return caught
            }
            XCTAssertTrue(caught, "round \(round): SIGHUP was not caught while the body ran")
            XCTAssertFalse(DispatchSignalHandlers.isCaught(SIGHUP), "round \(round): the default action is back")
        }
    }
}
