import Foundation
import TestSupport
import XCTest

extension XCTestCase {
    /// Starts `lockstep ARGS`, waits 1.5 s (validation done, the open of a FIFO blocked) and
    /// until it catches `sig` (on a loaded machine its start can take longer than that), sends
    /// `sig`, and returns the exit status and stderr. A process still running 10 s after the
    /// signal is killed and `failure` reported.
    func runStopped(_ args: [String], with sig: Int32, failure: String) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = Repository.binary
        p.arguments = args
        let err = Pipe(); p.standardError = err; p.standardOutput = Pipe()
        try p.run()
        usleep(1_500_000)
        XCTAssertTrue(Processes.waitUntilCatching(p.processIdentifier, sig), "lockstep never caught signal \(sig)")
        kill(p.processIdentifier, sig)
        let deadline = Date().addingTimeInterval(10)
        while p.isRunning && Date() < deadline { usleep(50_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL); XCTFail(failure) }
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}
