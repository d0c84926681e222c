import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

/// `--wait-timeout`'s sentences, parsed without running anything.
final class ScaleOutWaitTimeoutValidationTests: XCTestCase {
    let fixtures = Repository.fixtures

    func message(_ extra: [String]) -> String {
        do {
            _ = try CompositeCommand.parse(
                [
                    "--blend", "mix", "-o", "/tmp/o.mp4", fixtures.appendingPathComponent("fg.mp4").path,
                    fixtures.appendingPathComponent("bg.mp4").path
                ] + extra)
            return "accepted"
        } catch {
            return CompositeCommand.message(for: error)
        }
    }

    func testWaitTimeoutSentences() {
        XCTAssertEqual(message(["--segments", "2", "--slurm", "--wait", "--wait-timeout", "90"]), "accepted")
        XCTAssertEqual(message(["--segments", "2", "--slurm", "--wait", "--wait-timeout", "0.5"]), "accepted")
        XCTAssertEqual(message(["--segments", "2", "--slurm", "--wait-timeout", "90"]), "--wait-timeout needs --wait.")
        XCTAssertEqual(
            message(["--segments", "2", "--slurm", "--wait", "--wait-timeout", "0"]),
            "--wait-timeout must be a positive number of seconds (got 0.0).")
        XCTAssertEqual(
            message(["--segments", "2", "--slurm", "--wait", "--wait-timeout", "inf"]),
            "--wait-timeout must be a positive number of seconds (got inf).")
        XCTAssertEqual(message(["--wait-timeout", "90"]), "--wait-timeout needs --segments N with --slurm.")
        XCTAssertEqual(message(["--segments", "2", "--emit", "k8s", "--wait-timeout", "90"]), "--wait-timeout goes with --slurm, not --emit k8s.")
    }
}
