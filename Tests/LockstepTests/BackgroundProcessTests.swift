import Foundation
import TestSupport
import XCTest

/// The test harness's own promise: `BackgroundProcess` gives up on a first line after its
/// deadline. Before poll(2) bounded each read, a program that printed nothing held the test until
/// it ended (here 30 s; a hung server, forever).
final class BackgroundProcessTests: XCTestCase {
    func testASilentProgramIsGivenUpOnAtTheDeadline() throws {
        let started = Date()
        let p = try BackgroundProcess("sleep", ["30"], firstLineWithin: 1)
        let waited = Date().timeIntervalSince(started)
        defer { p.end() }
        XCTAssertEqual(p.firstLine, "")
        XCTAssertGreaterThanOrEqual(waited, 0.9)
        XCTAssertLessThan(waited, 20, "waited for the program, not the deadline")
        XCTAssertTrue(p.process.isRunning)
    }

    func testAFirstLineIsReadAsSoonAsItComes() throws {
        let p = try BackgroundProcess("sh", ["-c", "echo ready >&2; exec sleep 30"], firstLineWithin: 20)
        defer { p.end() }
        XCTAssertEqual(p.firstLine, "ready\n")
    }
}
