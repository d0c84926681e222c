import Foundation
import TestSupport
import XCTest

/// `lockstep thumbnail` run as a person would: the exact line for each bad input, the exit
/// status, and nothing under the output's name (a file already there is kept as it was).
final class ThumbnailCommandTests: ScratchFolderTestCase {
    func fixture(_ name: String) -> String { Repository.fixture(name) }

    /// Runs thumbnail into `out` (in the scratch folder, holding "old" beforehand) and checks
    /// the status, the first stderr line, and that "old" is untouched and nothing else is left.
    func assertFails(
        _ args: [String], output name: String = "out.png", status: Int32, says expected: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let out = scratch.appendingPathComponent(name).path
        try "old".write(toFile: out, atomically: true, encoding: .utf8)
        let r = try Processes.lockstep(["thumbnail", "-o", out] + args)
        XCTAssertEqual(r.status, status, r.stderr, file: file, line: line)
        XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), "Error: \(expected)", file: file, line: line)
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "old", "the file already there is kept", file: file, line: line)
        XCTAssertEqual(try leftovers(), [name], "nothing else left behind", file: file, line: line)
    }

    func testNotAMovie() throws {
        try assertFails(
            [fixture("notmovie.mp4")], status: 1,
            says: "\(fixture("notmovie.mp4")): not a movie FFmpeg can read (Invalid data found when processing input)")
    }

    func testNoVideoStream() throws {
        try assertFails([fixture("audioonly.m4a")], status: 1, says: "\(fixture("audioonly.m4a")): no video stream")
    }

    func testAtBeyondTheEnd() throws {
        try assertFails([fixture("bg.mp4"), "--at", "10"], status: 64, says: "--at 10.000 s: \(fixture("bg.mp4")) is only 3.000 s long.")
    }

    func testSheetWithABadClipInTheMiddleWritesNothing() throws {
        try assertFails(
            [fixture("bg.mp4"), fixture("notmovie.mp4"), fixture("fg.mp4"), "--sheet"], status: 1,
            says: "\(fixture("notmovie.mp4")): not a movie FFmpeg can read (Invalid data found when processing input)")
    }

    func testSheetSaysWhatItTook() throws {
        let out = scratch.appendingPathComponent("sheet.png").path
        let r = try Processes.lockstep(["thumbnail", "--sheet", fixture("bg.mp4"), fixture("r25.mp4"), "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "wrote \(out): 664x236, 2 clips")
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[1].hasPrefix("  \(fixture("bg.mp4")): frame at "), lines[1])
        XCTAssertEqual(try leftovers(), ["sheet.png"])
    }

    func testSIGINTEndsAThumbnailBlockedOpeningAFIFO() throws {
        let fifo = scratch.appendingPathComponent("camera.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let p = Process()
        p.executableURL = Repository.binary
        p.arguments = ["thumbnail", fifo, "-o", scratch.appendingPathComponent("o.png").path]
        let err = Pipe(); p.standardError = err; p.standardOutput = Pipe()
        try p.run()
        // Validation done, the job waiting on the FIFO for a writer (it is open while it waits).
        XCTAssertTrue(Processes.waitUntilOpen(p.processIdentifier, anyOf: [fifo]), "thumbnail never opened the FIFO")
        usleep(300_000)
        XCTAssertTrue(Processes.waitUntilCatching(p.processIdentifier, SIGINT), "thumbnail never caught SIGINT")
        kill(p.processIdentifier, SIGINT)
        let deadline = Date().addingTimeInterval(10)
        while p.isRunning && Date() < deadline { usleep(50_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL); XCTFail("SIGINT did not end the thumbnail") }
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 130)
        XCTAssertEqual(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "Error: cancelled\n")
        XCTAssertEqual(try leftovers(), ["camera.fifo"])
    }

    func testUnknownOutputExtension() throws {
        let out = scratch.appendingPathComponent("out.gif").path
        try assertFails([fixture("bg.mp4")], output: "out.gif", status: 64, says: "\(out): the output must end in .png, .jpg or .jpeg.")
    }

    func testOtherBadOptions() throws {
        try assertFails([fixture("bg.mp4"), "--at=-1"], status: 64, says: "--at -1: the time must be zero or more seconds.")
        try assertFails([fixture("bg.mp4"), "--at", "nan"], status: 64, says: "--at nan: the time must be zero or more seconds.")
        try assertFails([fixture("bg.mp4"), "--size", "8x"], status: 64, says: "--size 8x: each side must be 16 to 16384 pixels.")
        try assertFails(
            [fixture("bg.mp4"), fixture("fg.mp4")], status: 64,
            says: "thumbnail takes one input (got 2); use --sheet for a contact sheet of several.")
        try assertFails(["/nonexistent/x.mp4"], status: 64, says: "/nonexistent/x.mp4: no such file.")
    }

    /// Issue 41, item 4, on the real files it was found on: `--at 0` on the iPhone clip with an
    /// edit list wrote its last frame (2.535 s); `--at 1` on the HERO7 gave 2.269 s. Now the frame
    /// on screen at that time (the HERO7's at 1 s started at 0.968 s: 29 / 29.97).
    func testAtGivesTheFrameOnScreenThenOnRealClips() throws {
        let phone = Repository.shared("phones/sample_edit_list.mp4"), hero7 = Repository.shared("gopro-hero7/hero7.mp4")
        for (clip, at, said) in [(phone, "0", "0.000"), (hero7, "1", "0.968"), (hero7, "5", "4.972")] {
            let out = scratch.appendingPathComponent("t.png").path
            let r = try Processes.lockstep(["thumbnail", clip, "--at", at, "-o", out])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stdout.hasSuffix("frame at \(said) s of \(clip)\n"), r.stdout)
        }
    }

    func testWritesAndSays() throws {
        let out = scratch.appendingPathComponent("bg.jpg").path
        let r = try Processes.lockstep(["thumbnail", fixture("bg.mp4"), "-o", out, "--size", "160x"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        XCTAssertEqual(r.stdout, "wrote \(out): 160x120, frame at 1.000 s of \(fixture("bg.mp4"))\n")
        XCTAssertEqual(try leftovers(), ["bg.jpg"])
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: out))
        XCTAssertEqual(Array(jpeg.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG file")
    }

    func testAllBlackWarnsOnStderrAndExitsZero() throws {
        let clip = scratch.appendingPathComponent("black.mp4").path
        try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=64x48:r=10:d=1",
                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", clip
            ])
        let out = scratch.appendingPathComponent("black.png").path
        let r = try Processes.lockstep(["thumbnail", clip, "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        // 1/3 of 1 s: from the frame at 0.4 s to the end, then from the start to 0.4 s again (the
        // window's end frame): 11 frames, all equally empty, so the first one examined is kept.
        XCTAssertEqual(r.stderr, "warning: \(clip): every frame examined (11) is black or flat; wrote the most detailed one, at 0.400 s.\n")
        let png = try Data(contentsOf: URL(fileURLWithPath: out))
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG file")
    }
}
