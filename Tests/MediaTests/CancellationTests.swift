import Compositor
import Foundation
import XCTest

@testable import Media

/// A FIFO with no writer blocked `open` in the kernel forever (and composite with it, deaf to
/// SIGINT/SIGTERM). Raising the reader's token from another thread ends it within a second.
final class CancellationTests: MediaTestCase {
    final class Outcome: @unchecked Sendable {  // written by one thread before `done` is signalled
        var error: Error?
        var frames = 0
    }

    /// Opens (and reads) `path` on a thread; returns the outcome box and its end signal.
    func readOnThread(_ path: String, token: CancellationToken) -> (Outcome, DispatchSemaphore) {
        let outcome = Outcome(), done = DispatchSemaphore(value: 0)
        let t = Thread {
            do {
                let reader = try MovieReader(path: path, cancellation: token)
                let frame = Frame()
                loop: while true {
                    switch try reader.next(into: frame, audioSink: { _ in }) {
                    case .video: outcome.frames += 1
                    case .audio: continue
                    case .end: break loop
                    }
                }
            } catch { outcome.error = error }
            done.signal()
        }
        t.start()
        return (outcome, done)
    }

    /// If the reader is still stuck in open(2), a writer coming and going releases it.
    func release(_ fifo: String) {
        let w = open(fifo, O_WRONLY | O_NONBLOCK)
        if w >= 0 { close(w) }
    }

    /// Reads `fifo` on a thread, checks it is still blocked after `seconds` (`why`), raises
    /// the token and checks the read ends soon (within 5 s: milliseconds when quiet, loose
    /// for a loaded machine); returns how it ended.
    func readCancelled(_ fifo: String, waiting seconds: Double, _ why: String, line: UInt = #line) -> Outcome {
        let token = CancellationToken()
        let (outcome, done) = readOnThread(fifo, token: token)
        XCTAssertEqual(done.wait(timeout: .now() + seconds), .timedOut, why, line: line)
        let raised = Date()
        token.cancel()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "still blocked 5 s after the token was raised", line: line)
        XCTAssertLessThan(Date().timeIntervalSince(raised), 5, line: line)
        return outcome
    }

    func testAnOpenBlockedOnAFIFOWithNoWriterIsCancelledWithinASecond() throws {
        let fifo = path("in.fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { release(fifo) }
        let outcome = readCancelled(fifo, waiting: 0.5, "waits for a writer")
        let e = outcome.error as? MediaError
        XCTAssertEqual(e?.kind, .cancelled)
        XCTAssertEqual(e?.description, "\(fifo): cancelled")
    }

    func testAReadStalledOnAFIFOIsCancelledWithinASecond() throws {
        let fifo = path("stall.fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { release(fifo) }
        // A writer that sends the first part of a Matroska movie and then says nothing more.
        let movie = try Data(contentsOf: URL(fileURLWithPath: fixture("late.mkv")))
        let writerDone = DispatchSemaphore(value: 0), stop = DispatchSemaphore(value: 0)
        Thread {
            let w = open(fifo, O_WRONLY)
            if w >= 0 {
                movie.prefix(movie.count / 3).withUnsafeBytes { _ = write(w, $0.baseAddress, $0.count) }
                _ = stop.wait(timeout: .now() + 10)
                close(w)
            }
            writerDone.signal()
        }.start()
        let outcome = readCancelled(fifo, waiting: 1, "waits for the rest")
        XCTAssertEqual((outcome.error as? MediaError)?.kind, .cancelled, "\(String(describing: outcome.error))")
        stop.signal()
        writerDone.wait()
    }

    func testAFIFOWithAWriterIsReadToTheEnd() throws {
        let fifo = path("whole.fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let movie = try Data(contentsOf: URL(fileURLWithPath: fixture("late.mkv")))
        Thread {
            let w = open(fifo, O_WRONLY)
            if w >= 0 { movie.withUnsafeBytes { _ = write(w, $0.baseAddress, $0.count) }; close(w) }
        }.start()
        let (outcome, done) = readOnThread(fifo, token: CancellationToken())
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.frames, 45)
    }

    func testARaisedTokenStopsAnOrdinaryOpen() {
        let token = CancellationToken()
        token.cancel()
        let e = mediaError { _ = try MovieReader(path: fixture("fg.mp4"), cancellation: token) }
        XCTAssertEqual(e?.kind, .cancelled)
    }
}
