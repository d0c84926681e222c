import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// `--wait-timeout`: the wait gives up after the limit with one sentence naming the jobs, which
/// are left running (no scancel). Slurm's tools are stand-ins here, shell scripts on a PATH of
/// their own: an squeue that always answers PENDING (a real cluster cannot be held pending on
/// demand), an scancel that leaves a mark if it is ever called.
final class ScaleOutWaitTests: ScratchFolderTestCase {
    private func tools(squeue: String) throws -> SlurmSubmitter {
        let bin = scratch.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let scripts = ["sbatch": "echo 41", "squeue": squeue, "scancel": "touch '\(scratch.path)/scancel-called'"]
        for (name, body) in scripts {
            let path = bin.appendingPathComponent(name).path
            XCTAssertTrue(
                FileManager.default.createFile(
                    atPath: path, contents: Data("#!/bin/sh\n\(body)\n".utf8),
                    attributes: [.posixPermissions: 0o755]))
        }
        return try SlurmSubmitter(path: bin.path)
    }

    private func plan() throws -> ScaleOutPlan {
        try ScaleOutPlan(
            lockstep: "/opt/lockstep", arguments: ["a.mp4"], output: scratch.appendingPathComponent("out put.mp4").path,
            workingDirectory: scratch.path, totalFrames: 40, gop: 10, segments: 2)
    }

    func testTimeoutNamesTheJobsAndLeavesThemRunning() throws {
        let submitter = try tools(squeue: "printf '41_[0-1] PENDING\\n42 PENDING\\n'")
        let p = try plan()
        let start = Date()
        var said: [String] = []
        XCTAssertThrowsError(try ScaleOutJob.waitAndReport(p, jobs: ["41", "42"], submitter: submitter, timeout: 1.5, poll: 0.2) { said.append($0) }) {
            XCTAssertEqual("\($0)", "\(p.output): not finished after --wait-timeout 1.5 s; jobs 41 and 42 left running (squeue -j 41,42); run the same command with --resume --wait to wait again.")
        }
        let waited = Date().timeIntervalSince(start)
        XCTAssertGreaterThanOrEqual(waited, 1.5)
        XCTAssertLessThan(waited, 10, "the wait ends near its limit")
        XCTAssertEqual(said, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("scancel-called").path), "the jobs are left running")
    }

    /// Jobs that end before the limit: the usual report (here: the segments failed, no output).
    func testJobsEndingBeforeTheLimitAreReported() throws {
        let submitter = try tools(squeue: "exit 0")  // nothing pending or running
        let p = try plan()
        var said: [String] = []
        XCTAssertThrowsError(try ScaleOutJob.waitAndReport(p, jobs: ["41", "42"], submitter: submitter, timeout: 30) { said.append($0) }) {
            XCTAssertEqual(
                "\($0)", "\(p.output): 2 of 2 segments failed and the join was cancelled; nothing was written under that name. Run the same command with --resume to render only those again.")
        }
        XCTAssertEqual(said, ["segment 0 (frames 0:20) failed: no log", "segment 1 (frames 20:40) failed: no log"])
    }

    /// One job: "job N".
    func testOneJobIsNamedInTheSingular() throws {
        XCTAssertEqual(
            "\(ScaleOutError.timedOut(output: try plan().output, jobs: ["42"], after: 60))",
            "\(try plan().output): not finished after --wait-timeout 60 s; job 42 left running (squeue -j 42); run the same command with --resume --wait to wait again.")
    }
}
