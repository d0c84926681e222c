import XCTest

@testable import Lockstep

/// What a failure tells the process: its line and its status (`LockstepCommand.main` prints
/// "Error: " + the line and exits with the status; the CLI's tests check that end to end).
final class CommandFailureTests: XCTestCase {
    func testEachFailureCarriesItsOwnStatusAndLine() {
        let job: any CommandFailure = JobError("the output's folder is gone")
        XCTAssertEqual(job.exitStatus, 1)
        XCTAssertEqual(job.description, "the output's folder is gone")
        let option: any CommandFailure = ThumbnailOptionError(description: "--at 9 s is past the clip's end")
        XCTAssertEqual(option.exitStatus, 64)
        // Another error's own line, with the status the command gives it.
        struct Unreadable: Error, CustomStringConvertible { var description: String { "a.mp4: not a movie" } }
        XCTAssertEqual(Failure(Unreadable(), exitStatus: 2), Failure("a.mp4: not a movie", exitStatus: 2))
        XCTAssertEqual(Failure(JobError.cancelled, exitStatus: 130).description, "cancelled")
    }
}
