import Foundation
import TestSupport
import XCTest

@testable import Engine

/// The temporary file beside the output: its name, its length, and the stale ones of dead runs.
final class OutputPathTests: ScratchFolderTestCase {
    func testTheTemporaryNamesItsOwnerAndStaysWithinNameMax() {
        let short = OutputPath.temporary(beside: "/x/out.mp4", pid: 4242)
        XCTAssertTrue(short.hasPrefix("/x/.out.mp4.lockstep-4242-") && short.hasSuffix(".tmp"), short)
        XCTAssertEqual(OutputPath.owner(ofTemporary: (short as NSString).lastPathComponent), 4242)
        // 240 bytes of name (and multi-byte characters): the temporary's name is cut, never over 255.
        for name in [String(repeating: "a", count: 240) + ".mp4", String(repeating: "é", count: 125) + ".mp4"] {
            let t = OutputPath.temporary(beside: "/x/" + name, pid: 2_147_483_647)
            let base = (t as NSString).lastPathComponent
            XCTAssertLessThanOrEqual(base.utf8.count, 255)
            XCTAssertEqual(OutputPath.owner(ofTemporary: base), 2_147_483_647)
        }
    }

    func testOnlyTemporariesOfOursAreRecognised() {
        XCTAssertNil(OutputPath.owner(ofTemporary: "out.mp4"))
        XCTAssertNil(OutputPath.owner(ofTemporary: ".out.mp4.lockstep-abc-1.tmp"))
        XCTAssertNil(OutputPath.owner(ofTemporary: ".out.mp4.lockstep-12.tmp"))
        XCTAssertNil(OutputPath.owner(ofTemporary: ".out.mp4.lockstep-0-1.tmp"))
        XCTAssertNil(OutputPath.owner(ofTemporary: ".out.mp4.lockstep-99999999999-1.tmp"))
        XCTAssertEqual(OutputPath.owner(ofTemporary: ".a.lockstep-1.mp4.lockstep-77-5.tmp"), 77)
    }

    func testStaleTemporariesOfDeadRunsAreRemovedAndLiveOnesKept() throws {
        // A process that has ended: its id names no process any more.
        let p = Process(); p.executableURL = URL(fileURLWithPath: "/bin/true"); try p.run(); p.waitUntilExit()
        let dead = p.processIdentifier
        let live = getppid()
        let names = [
            ".o.mp4.lockstep-\(dead)-1.tmp", ".o.mp4.lockstep-\(live)-2.tmp", ".o.mp4.lockstep-\(getpid())-3.tmp",
            "o.mp4", ".notes.tmp"
        ]
        for n in names { try Data("x".utf8).write(to: scratch.appendingPathComponent(n)) }
        // A folder with a temporary's name is not ours to remove.
        try FileManager.default.createDirectory(at: scratch.appendingPathComponent(".d.mp4.lockstep-\(dead)-4.tmp"), withIntermediateDirectories: false)
        XCTAssertEqual(OutputPath.removeStaleTemporaries(in: scratch.path), [".o.mp4.lockstep-\(dead)-1.tmp"])
        XCTAssertEqual(
            try leftovers(),
            [
                ".d.mp4.lockstep-\(dead)-4.tmp", ".notes.tmp", ".o.mp4.lockstep-\(getpid())-3.tmp",
                ".o.mp4.lockstep-\(live)-2.tmp", "o.mp4"
            ].sorted())
    }

    func testTheOutputCheckNamesTheCause() {
        func says(_ output: String, _ inputs: [String] = []) -> String {
            do { try OutputPath.check(output, inputs: inputs); return "accepted" } catch { return "\(error)" }
        }
        let long = scratch.appendingPathComponent(String(repeating: "n", count: 300) + ".mp4").path
        XCTAssertEqual(says(long), "\(long): the file name is 304 bytes long; the longest a folder takes is 255.")
        XCTAssertEqual(says("/nonexistent/o.mp4"), "/nonexistent/o.mp4: the folder /nonexistent does not exist.")
        XCTAssertEqual(says(scratch.appendingPathComponent("o.avi").path), "\(scratch.appendingPathComponent("o.avi").path): the output must end in .mp4, .m4v, .mov or .mkv.")
        XCTAssertEqual(says(scratch.appendingPathComponent(String(repeating: "n", count: 251) + ".mp4").path), "accepted")
    }
}

/// Option values that used to trap half-way through a job, refused before it starts, also for
/// a Swift caller of the library.
