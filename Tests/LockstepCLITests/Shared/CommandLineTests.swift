import Foundation
import TestSupport
import XCTest

/// The built `lockstep` binary, run as a person would: exit codes, one-line errors naming the
/// file, and nothing left under the output's name after a failure.
final class CommandLineTests: ScratchFolderTestCase {
    static let root = Repository.root
    func fixture(_ name: String) -> String { Repository.fixture(name) }
    static var binary: URL { Repository.binary }

    func lockstep(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) { try Self.lockstep(args) }
    static func lockstep(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) { try Processes.lockstep(args) }

    func assertFails(_ inputs: [String], says expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let out = scratch.appendingPathComponent("out.mp4").path
        let r = try lockstep(["composite", "--blend", "chromakey", "-o", out] + inputs)
        XCTAssertEqual(r.status, 1, file: file, line: line)
        XCTAssertEqual(r.stderr, "Error: \(expected)\n", file: file, line: line)
        XCTAssertEqual(try leftovers(), [], "nothing may be left behind", file: file, line: line)
    }

    func testNotAMovie() throws {
        try assertFails(
            [fixture("notmovie.mp4"), fixture("bg.mp4")],
            says: "\(fixture("notmovie.mp4")): not a movie FFmpeg can read (Invalid data found when processing input)")
    }

    func testNoVideoStream() throws {
        try assertFails([fixture("fg.mp4"), fixture("audioonly.m4a")], says: "\(fixture("audioonly.m4a")): no video stream")
    }

    func testTruncatedFile() throws {
        let out = scratch.appendingPathComponent("out.mp4").path
        let r = try lockstep(["composite", "--blend", "chromakey", "-o", out, fixture("fg.mp4"), fixture("truncated.mp4")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasPrefix("Error: \(fixture("truncated.mp4")): truncated file: its index lists 90 video frames, only "), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one line")
        XCTAssertEqual(try leftovers(), [])
    }

    func testAFailureLeavesTheUsersExistingFileUntouched() throws {
        let out = scratch.appendingPathComponent("out.mp4")
        try Data("precious".utf8).write(to: out)
        let r = try lockstep(["composite", "--blend", "chromakey", "-o", out.path, fixture("fg.mp4"), fixture("truncated.mp4")])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(try String(contentsOf: out, encoding: .utf8), "precious")
        XCTAssertEqual(try leftovers(), ["out.mp4"])
    }

    func testBadOptionsExitWithAUsageError() throws {
        let r = try lockstep(["composite", "--blend", "quad", "-o", scratch.appendingPathComponent("o.mp4").path, fixture("fg.mp4")])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.hasPrefix("Error: --blend quad takes 2 to 4 inputs; got 1.\n"), r.stderr)
        XCTAssertEqual(try leftovers(), [])
    }

    func testSuccessSaysWhatWasWrittenAndLeavesOnlyTheOutput() throws {
        let out = scratch.appendingPathComponent("o.mov").path
        let r = try lockstep(["composite", "--blend", "chromakey", "-o", out, fixture("fg.mp4"), fixture("bg.mp4")])
        XCTAssertEqual(r.status, 0, r.stderr)
        // The keyer's line says what it measured and chose, so that a user can repeat it (issue 44).
        XCTAssertEqual(
            r.stdout,
            "wrote \(out): 60 frames, 320x240 at 30 fps, 2.000 s, audio 2.000 s\n"
                + "keyer: screen measured 00FF01 on the first frame, --green-subjects no (0.00% of the picture green but not the screen's green), --clip-black 0.02 --clip-white 0.95\n")
        XCTAssertEqual(r.stderr, "", "no progress when stderr is not a terminal")
        XCTAssertEqual(try leftovers(), ["o.mov"])
    }

    func testCtrlCRemovesTheTemporaryFileAndExitsNonZero() throws {
        let out = scratch.appendingPathComponent("o.mp4").path
        let p = Process()
        p.executableURL = Self.binary
        // A long job: four inputs upscaled to 1080p.
        p.arguments = [
            "composite", "--blend", "quad", "--size", "1920x1080", "--preset", "medium", "-o", out,
            fixture("q0.mp4"), fixture("q1.mp4"), fixture("q2.mp4"), fixture("q3.mp4")
        ]
        let err = Pipe(); p.standardError = err; p.standardOutput = Pipe()
        try p.run()
        // Wait until the temporary file exists, then interrupt.
        let deadline = Date().addingTimeInterval(20)
        while (try leftovers()).isEmpty && Date() < deadline { usleep(20_000) }
        XCTAssertFalse(try leftovers().isEmpty, "the job should have started writing")
        XCTAssertTrue(Processes.waitUntilCatching(p.processIdentifier, SIGINT), "the job never caught SIGINT")
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 130)
        XCTAssertEqual(stderr, "Error: cancelled\n")
        XCTAssertEqual(try leftovers(), [])
    }
}

/// GPUImage #744, VidClips' frozen writer: an input that stops delivering must end the job with
/// an error naming it, not hang it.
final class StallTests: XCTestCase {
    func testAnInputThatStopsDeliveringEndsTheJobWithAnErrorNamingIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-stall-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("camera.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // Half of a Matroska clip, then the writer keeps the pipe open and says nothing.
        let feeder = try StalledFeed.start(halfOf: CommandLineTests.root.appendingPathComponent("Fixtures/late.mkv").path, into: fifo)
        defer { feeder.terminate() }

        let out = dir.appendingPathComponent("out.mp4").path
        let p = Process()
        p.executableURL = CommandLineTests.binary
        p.arguments = [
            "composite", "--blend", "mix", "--stall-timeout", "2", "-o", out,
            CommandLineTests.root.appendingPathComponent("Fixtures/q0.mp4").path, fifo
        ]
        let err = Pipe(); p.standardError = err; p.standardOutput = Pipe()
        let started = Date()
        try p.run()
        p.waitUntilExit()
        let elapsed = Date().timeIntervalSince(started)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 1)
        XCTAssertEqual(stderr, "Error: input 2 (\(fifo)) made no progress for 2 s while reading and decoding; stopped\n")
        XCTAssertLessThan(elapsed, 15, "stopped by the watchdog, not by the feeder going away")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["camera.fifo"])
    }
}
