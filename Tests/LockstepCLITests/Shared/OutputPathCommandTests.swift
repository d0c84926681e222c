import Foundation
import TestSupport
import XCTest

/// Every command that writes a file goes through the one output path (issue 26): it refuses its
/// inputs under any spelling, writes a temporary beside the output, renames it at the end, and
/// removes it on every terminating signal and when the folder moves.
final class OutputPathCommandTests: ScratchFolderTestCase {
    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// A copy of the synthetic camera's trace (1,301 lines) in the scratch folder.
    func trace(_ name: String = "p.csv") throws -> String {
        let p = path(name)
        try FileManager.default.copyItem(atPath: Repository.fixture("synthetic/pan-imu.csv"), toPath: p)
        return p
    }

    /// Runs lockstep in the scratch folder (relative spellings are relative to it).
    func lockstep(_ args: [String], environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        p.executableURL = Repository.binary
        p.arguments = args
        p.currentDirectoryURL = scratch
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err; p.standardInput = FileHandle.nullDevice
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile(), o = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    // MARK: finding 1: imu export onto its own input

    func testIMUExportRefusesItsInputUnderEverySpelling() throws {
        let p = try trace()
        let original = try Data(contentsOf: URL(fileURLWithPath: p))
        let sub = path("d")
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path("link"), withDestinationPath: scratch.path)
        XCTAssertEqual(link(p, path("hard.csv")), 0)
        let spellings = ["p.csv", "./p.csv", "d/../p.csv", "../\(scratch.lastPathComponent)/./p.csv", "/" + p, "link/p.csv", "hard.csv"]
        for spelling in spellings {
            let r = try lockstep(["imu", "export", "p.csv", "--from", "0", "--to", "0.05", "-o", spelling])
            XCTAssertEqual(r.status, 64, spelling)
            XCTAssertEqual(
                r.stderr.split(separator: "\n").first.map(String.init),
                "Error: \(spelling) is also an input; write the output somewhere else.", spelling)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: p)), original, "\(spelling): the trace is untouched")
        }
        // The library refuses it too (a caller that skipped the CLI's validation).
        let r = try lockstep(["imu", "plot", "p.csv", "-o", "p.csv"])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(try leftovers(), ["d", "hard.csv", "link", "p.csv"])
    }

    // MARK: finding 8: the output's folder moved mid-job

    /// A long render into a folder that is renamed while it runs: the job fails with a sentence,
    /// and the temporary is gone from the moved folder too (it held the full-size file).
    func testAFolderRenamedMidJobKeepsNoTemporary() throws {
        let folder = path("out"), moved = path("moved")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let job = try Started(["testsrc", "--duration", "3", "--size", "320x240", "-o", folder + "/t.mp4"])
        try job.waitForTemporary(in: folder)
        XCTAssertEqual(rename(folder, moved), 0)
        let r = job.finish()
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(
            r.stderr, "Error: \(folder)/t.mp4: cannot move the finished file into place: the folder \(folder) was moved or removed while writing (No such file or directory); nothing was written\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: moved), [], "no temporary in the moved folder")
    }

    /// The same with real footage, and the folder replaced by a new one: the output lands where
    /// it was asked for, nothing is left in the old folder. Its first 4 s (120 of 362 frames):
    /// the folder is replaced as soon as the temporary appears, so the job only has to outlast
    /// that; the whole clip only made the job longer.
    func testAFolderReplacedMidJobGetsTheOutputAndTheOldOneNothing() throws {
        let folder = path("out"), moved = path("moved")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let job = try Started(["filter", "--filter", "mono", "--quiet", "--to", "4", Repository.shared("karma.mp4"), "-o", folder + "/k.mp4"])
        try job.waitForTemporary(in: folder)
        XCTAssertEqual(rename(folder, moved), 0)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let r = job.finish()
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: moved), [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["k.mp4"])
    }

    // MARK: finding 9: signals

    /// A store of 400,000 samples: an export of it takes over a second (1.6M took 6 CPU-seconds),
    /// and each job is signalled as soon as its temporary appears, milliseconds in. Lockstep
    /// writes 100,000 and the sqlite3 CLI copies them twice, later each time (19 s when Lockstep
    /// wrote 1.6M: GRDB is built unoptimised in the test build; the two more copies that made
    /// 1.6M cost 2.4 CPU-seconds and checked nothing more).
    func bigStore() throws -> String {
        let store = path("big.sqlite")
        let r = try lockstep(["imu", "bench-store", "--samples", "100000", "-o", store])
        XCTAssertEqual(r.status, 0, r.stderr)
        let double = "INSERT INTO sample SELECT trace_id, t_ns + (SELECT max(t_ns) - min(t_ns) + 5000000 FROM sample), gx, gy, gz, ax, ay, az FROM sample;"
        let count = try Processes.check("sqlite3", [store, String(repeating: double, count: 2) + "SELECT count(*) FROM sample;"])
        XCTAssertEqual(String(decoding: count, as: UTF8.self), "400000\n")
        return store
    }

    func testIMUExportStoppedBySignalsLeavesNoTemporaryAndExits128PlusTheSignal() throws {
        let store = try bigStore()
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGUSR1] {
            let job = try Started(["imu", "export", store, "-o", path("out.csv")])
            try job.waitForTemporary(in: scratch.path)
            kill(job.pid, sig)
            let r = job.finish()
            XCTAssertEqual(r.status, 128 + sig, "signal \(sig): \(r.stderr)")
            XCTAssertEqual(r.stderr, "Error: cancelled\n", "signal \(sig)")
            XCTAssertEqual(try leftovers(), ["big.sqlite"], "signal \(sig): no temporary, no output")
        }
    }

    /// A SIGKILLed export's temporary is removed by the next export into that folder.
    func testALaterExportRemovesADeadRunsTemporary() throws {
        _ = try trace()
        // No process has pid 2^22 + 1 (above pid_max).
        try Data("half".utf8).write(to: URL(fileURLWithPath: path(".out.csv.lockstep-4194305-7.tmp")))
        let r = try lockstep(["imu", "export", "p.csv", "-o", "out.csv"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try leftovers(), ["out.csv", "p.csv"])
    }

    /// Terminating signals other than INT, TERM and HUP (SIGUSR1 left the temporary of any
    /// job): each stops the job with 128 + the signal, and nothing is left. SIGPROF six times: heard
    /// through a Dispatch source it was lost in about one run of six (the job ran on, a core
    /// spinning), as libdispatch never blocks it (StopSignals.install says why); it now has a
    /// thread of its own (before: 2 of 12 by hand; after: 12 of 12 stopped).
    func testEveryTerminatingSignalStopsAJobCleanly() throws {
        for sig in [SIGUSR1, SIGUSR2, SIGALRM, SIGQUIT, SIGVTALRM, SIGXCPU, SIGPWR, SIGIO, SIGSTKFLT, 40] + Array(repeating: SIGPROF, count: 6) as [Int32] {
            let job = try Started(["testsrc", "--duration", "600", "--size", "640x360", "-o", path("t.mp4")])
            try job.waitForTemporary(in: scratch.path)
            kill(job.pid, sig)
            let r = job.finish()
            XCTAssertEqual(r.status, 128 + sig, "signal \(sig): \(r.stderr)")
            XCTAssertFalse(job.diedOfSignal, "signal \(sig): the process was killed by it")
            XCTAssertEqual(try leftovers(), [], "signal \(sig)")
        }
    }

    // MARK: finding 10: a signal after the work is done

    /// The output is in place, the process has not exited yet (held by the test hook): a SIGINT
    /// then changes nothing. It was reported "killed" with the complete output in place.
    func testASignalAfterTheOutputIsInPlaceChangesNothing() throws {
        let out = path("t.mp4")
        let job = try Started(["testsrc", "--duration", "0.5", "--size", "160x90", "-o", out], environment: ["LOCKSTEP_TEST_HOLD_AFTER_JOB": "3"])
        let deadline = Date() + 60
        while !FileManager.default.fileExists(atPath: out) && Date() < deadline { usleep(10_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: out))
        kill(job.pid, SIGINT)
        usleep(100_000)
        kill(job.pid, SIGTERM)
        let r = job.finish()
        XCTAssertFalse(job.diedOfSignal)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        XCTAssertEqual(r.stdout, "wrote \(out): 15 frames, 160x90 at 30 fps, 0.500 s, audio 24000 samples at 48000 Hz\n")
        XCTAssertEqual(try leftovers(), ["t.mp4"])
    }

    /// SIGTERM then SIGINT: the first names the status, the second never kills the process,
    /// also when it comes after the job has unwound (held there by the test hook).
    func testSIGTERMThenSIGINTExitsAsSIGTERM() throws {
        for gap in [0.05, 1.0] {
            let job = try Started(
                ["testsrc", "--duration", "600", "--size", "640x360", "-o", path("t.mp4")],
                environment: ["LOCKSTEP_TEST_HOLD_AFTER_JOB": "2"])
            try job.waitForTemporary(in: scratch.path)
            kill(job.pid, SIGTERM)
            Thread.sleep(forTimeInterval: gap)
            kill(job.pid, SIGINT)
            let r = job.finish()
            XCTAssertFalse(job.diedOfSignal, "gap \(gap)")
            XCTAssertEqual(r.status, 143, "gap \(gap): \(r.stderr)")
            XCTAssertEqual(r.stderr, "Error: cancelled\n")
            XCTAssertEqual(try leftovers(), [])
        }
    }

    // MARK: finding 17: messages that name the output

    func testATrailingSlashIsRefusedBeforeTheWork() throws {
        let r = try lockstep(["testsrc", "--duration", "1", "--size", "160x90", "-o", "out.mp4/"])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), "Error: out.mp4/: ends in /, a folder's name; give a file name.")
        let f = try lockstep(["filter", "--filter", "mono", Repository.fixture("q0.mp4"), "-o", "out.mp4/"])
        XCTAssertEqual(f.stderr.split(separator: "\n").first.map(String.init), "Error: out.mp4/: ends in /, a folder's name; give a file name.")
        XCTAssertEqual(try leftovers(), [])
    }

    func testVerifyReportsThatCannotBeWrittenNameTheFile() throws {
        let movie = path("c.mp4")
        XCTAssertEqual(try lockstep(["testsrc", "--duration", "1", "--size", "160x90", "-o", movie]).status, 0)
        for (option, file) in [("--junit", "/proc/x.xml"), ("--report", "/proc/x.html")] {
            let r = try lockstep(["verify", "--coded", movie, option, file])
            XCTAssertEqual(r.status, 1)
            XCTAssertEqual(r.stderr, "Error: \(file): cannot be written (No such file or directory)\n")
        }
    }

    /// A small tmpfs that fills up: the write error names the output (not its hidden
    /// temporary), and reverse says the disk is full (it said "No such file or directory").
    func testAFullDiskIsNamedByTheOutput() throws {
        let disk = path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let m = try Processes.run("mount", ["-t", "tmpfs", "-o", "size=300k", "tmpfs", disk])
        guard m.status == 0 else { throw XCTSkip("cannot mount a small tmpfs here: \(m.stderr)") }
        defer { _ = try? Processes.run("umount", [disk]) }
        let filtered = disk + "/f.mp4"
        let f = try lockstep(["filter", "--filter", "mono", "--quiet", Repository.shared("karma.mp4"), "-o", filtered])
        XCTAssertEqual(f.status, 1)
        XCTAssertEqual(f.stderr, "Error: \(filtered): No space left on device (av_interleaved_write_frame)\n")
        let reversed = disk + "/r.mp4"
        let r = try lockstep(["reverse", Repository.shared("karma.mp4"), "-o", reversed])
        XCTAssertEqual(r.status, 1)
        // The error alone: karma.mp4's telemetry note is about an output that was not written.
        let lines = r.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 1, r.stderr)
        XCTAssertTrue(lines.last?.hasPrefix("Error: \(reversed): ") == true, r.stderr)
        XCTAssertTrue(lines.last?.contains("No space left on device") == true, r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: disk), [])
    }

    // MARK: a started command

    final class Started {
        let process = Process()
        let out = Pipe(), err = Pipe()
        var pid: Int32 { process.processIdentifier }
        var diedOfSignal: Bool { process.terminationReason == .uncaughtSignal }

        init(_ args: [String], environment: [String: String] = [:]) throws {
            process.executableURL = Repository.binary
            process.arguments = args
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardOutput = out; process.standardError = err; process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        /// Returns once a hidden temporary of ours is in `folder` (the job is writing).
        func waitForTemporary(in folder: String) throws {
            let deadline = Date() + 60
            while Date() < deadline && process.isRunning {
                if let names = try? FileManager.default.contentsOfDirectory(atPath: folder), names.contains(where: { $0.hasPrefix(".") && $0.contains(".lockstep-") }) { return }
                usleep(5_000)
            }
            XCTFail("no temporary appeared in \(folder)")
        }

        func finish() -> (status: Int32, stdout: String, stderr: String) {
            let e = err.fileHandleForReading.readDataToEndOfFile(), o = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
        }

        deinit { if process.isRunning { kill(pid, SIGKILL) } }
    }
}
