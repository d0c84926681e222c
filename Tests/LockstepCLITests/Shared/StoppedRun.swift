import Foundation
import TestSupport
import XCTest

extension XCTestCase {
    /// Starts `lockstep ARGS`, waits until its job has one of the arguments' files open (an
    /// input or a FIFO: validation done, the job started; a signal before that ends the process
    /// without the job's closing line) and then 0.3 s more (a FIFO's open waiting for a writer),
    /// and until it catches `sig`, sends `sig`, and returns the exit status and stderr. A
    /// process still running 10 s after the signal is killed and `failure` reported.
    func runStopped(_ args: [String], with sig: Int32, failure: String) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = Repository.binary
        p.arguments = args
        let err = Pipe(); p.standardError = err; p.standardOutput = Pipe()
        try p.run()
        let inputs = args.filter { FileManager.default.fileExists(atPath: $0) }
        XCTAssertTrue(Processes.waitUntilOpen(p.processIdentifier, anyOf: inputs), "lockstep never opened any of \(inputs)")
        usleep(300_000)
        XCTAssertTrue(Processes.waitUntilCatching(p.processIdentifier, sig), "lockstep never caught signal \(sig)")
        kill(p.processIdentifier, sig)
        let deadline = Date().addingTimeInterval(10)
        while p.isRunning && Date() < deadline { usleep(50_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL); XCTFail(failure) }
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}
