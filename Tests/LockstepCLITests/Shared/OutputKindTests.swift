import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

/// Issue 40, findings 2, 4, 5, 8 and 10: an output replaces only a regular file or nothing, "-"
/// is not a file name, what a command prints on standard output is checked like any other write,
/// and a canvas the encoder cannot take is refused naming the option it came from.
final class OutputKindTests: ScratchFolderTestCase {
    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    func kind(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : 0
    }

    func refusal(_ output: String, _ what: String) -> String {
        "Error: \(output) is \(what); an output replaces only a regular file, so give a file's name."
    }

    /// Commands of every kind of output, each given `output` (a name with the right extension).
    func commands(_ name: (String) -> String) -> [[String]] {
        let fixture = Repository.fixture
        return [
            ["calibrate", fixture("synthetic/pan.mp4"), "--imu", fixture("synthetic/pan-imu.csv"), "--force", "-o", name("json")],
            ["imu", "import", fixture("imu/shake.gcsv"), "-o", name("sqlite")],
            ["imu", "export", fixture("imu/shake.gcsv"), "-o", name("csv")],
            ["composite", "--blend", "mix", fixture("fg.mp4"), fixture("bg.mp4"), "-o", name("mp4")],
            ["thumbnail", fixture("bg.mp4"), "-o", name("png")]
        ]
    }

    /// As root, `-o /dev/null` turned /dev/null into a JSON file: a device node is refused before
    /// any work, and stays what it was.
    func testADeviceNodeIsRefusedAndKept() throws {
        for args in commands({ path("null.\($0)") }) {
            let node = args.last!
            XCTAssertEqual(try Processes.run("mknod", [node, "c", "1", "3"]).status, 0, "mknod \(node): run as root, as CI does")
            let r = try Processes.lockstep(args)
            XCTAssertEqual(r.status, 64, args.joined(separator: " "))
            XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), refusal(node, "a device (character special file)"))
            XCTAssertEqual(kind(node), S_IFCHR, "\(node) is still the device")
        }
        XCTAssertEqual(try leftovers(), ["null.csv", "null.json", "null.mp4", "null.png", "null.sqlite"], "no temporaries")
    }

    /// A FIFO under the name was replaced by a regular file (its reader waited forever); a socket too.
    func testANamedPipeAndASocketAreRefusedAndKept() throws {
        for args in commands({ path("pipe.\($0)") }) {
            let fifo = args.last!
            XCTAssertEqual(mkfifo(fifo, 0o644), 0)
            let r = try Processes.lockstep(args)
            XCTAssertEqual(r.status, 64, args.joined(separator: " "))
            XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), refusal(fifo, "a named pipe (FIFO)"))
            XCTAssertEqual(kind(fifo), S_IFIFO)
        }
        let socket = path("s.json")
        try Processes.check("python3", ["-c", "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", socket])
        let r = try Processes.lockstep(commands({ _ in socket })[0])
        XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), refusal(socket, "a socket"))
        XCTAssertEqual(kind(socket), S_IFSOCK)
    }

    /// A FIFO made under the name while the job runs is not replaced at the end either: the job
    /// fails with the same sentence and removes its temporary.
    func testANodeMadeWhileTheJobRunsIsNotReplaced() throws {
        let out = path("t.mp4")
        let job = try OutputPathCommandTests.Started(["testsrc", "--duration", "4", "--size", "320x240", "-o", out])
        try job.waitForTemporary(in: scratch.path)
        XCTAssertEqual(mkfifo(out, 0o644), 0)
        let r = job.finish()
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr, refusal(out, "a named pipe (FIFO)") + "\n")
        XCTAssertEqual(kind(out), S_IFIFO)
        XCTAssertEqual(try leftovers(), ["t.mp4"])
    }

    /// A symbolic link is written through: the file it names is replaced, the link kept (the
    /// rename used to replace the link itself). `imu export` writes through the same
    /// `OutputPath.writing(to:)` as calibrate's profile (`OutputPath.write`), for a tenth of
    /// calibrate's CPU (0.11 against 0.87 s, DEBUG build): the link is the claim, not the command.
    func testASymbolicLinkIsWrittenThrough() throws {
        let real = try file("real.csv", "old")
        XCTAssertEqual(symlink("real.csv", path("link.csv")), 0)
        let r = try Processes.lockstep(commands({ _ in path("link.csv") })[2])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(kind(path("link.csv")), S_IFLNK)
        XCTAssertTrue(try String(contentsOfFile: real, encoding: .utf8).hasPrefix("t_ns,gx,gy,gz,"))
        XCTAssertEqual(try leftovers(), ["link.csv", "real.csv"])
    }

    /// `imu import -o -` and `calibrate -o -` made a file named "-"; every command refuses it.
    func testDashIsNotAFileName() throws {
        let dash = "Error: -o -: Lockstep does not write its outputs to standard output; give a file name."
        let more: [[String]] = [
            ["imu", "plot", Repository.fixture("imu/shake.gcsv"), "-o", "-"], ["testsrc", "--duration", "1", "-o", "-"],
            ["concat", Repository.fixture("fg.mp4"), "-o", "-"], ["filter", "--filter", "mono", Repository.fixture("fg.mp4"), "-o", "-"]
        ]
        for args in commands({ _ in "-" }) + more {
            let r = try Processes.run("/bin/sh", ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", scratch.path, Repository.binary.path] + args)
            XCTAssertEqual(r.status, 64, args.joined(separator: " "))
            XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), dash, args.joined(separator: " "))
        }
        XCTAssertEqual(try leftovers(), [])
    }

    /// `lockstep probe clip > /dev/full` exited 0; so did every command that prints.
    func testAFullStandardOutputFailsTheCommand() throws {
        let full = "Error: standard output: cannot be written (No space left on device); what the command printed is incomplete.\n"
        let store = path("s.sqlite")
        let cases: [[String]] = [
            ["probe", Repository.fixture("fg.mp4")],
            ["imu", "info", Repository.fixture("imu/shake.gcsv")],
            ["imu", "import", Repository.fixture("imu/pan.csv"), "-o", store],
            ["verify", Repository.fixture("fg.mp4"), "--json"],
            ["--help"]
        ]
        // C's buffered stdout as a shell gives it, and line-buffered under `stdbuf -oL` (a test
        // run's log wrapper), where each line is written when printed: the failed write's errno
        // was gone by the end, and the line said "(a write failed)" instead of the cause.
        let wrappers = ["env -u _STDBUF_O", "env _STDBUF_O=L", "stdbuf -oL"]
        for args in cases {
            for wrapper in wrappers {
                let r = try Processes.run("/bin/sh", ["-c", "exec \(wrapper) \"$@\" > /dev/full", "sh", Repository.binary.path] + args)
                XCTAssertEqual(r.status, 1, "\(wrapper) \(args.joined(separator: " "))")
                XCTAssertTrue(r.stderr.hasSuffix(full), "\(wrapper) \(args.joined(separator: " ")): \(r.stderr)")
            }
            // The same to a pipe succeeds (the check is not a false alarm).
            XCTAssertNotEqual(try Processes.lockstep(args).stdout, "", args.joined(separator: " "))
        }
    }

    /// An HDR canvas libx265 cannot take said "Invalid argument (avcodec_open2(libx265))".
    func testACanvasTheEncoderCannotTakeNamesItsOption() throws {
        let fg = Repository.fixture("fg.mp4"), bg = Repository.fixture("bg.mp4")
        let cases: [([String], String)] = [
            (["--hdr", "hlg", "--size", "2x2"], "Error: --size 2x2: an HDR output is HEVC, and libx265 takes pictures of at least 16x16."),
            (["--hdr", "pq", "--size", "64x14"], "Error: --size 64x14: an HDR output is HEVC, and libx265 takes pictures of at least 16x16."),
            (["--size", "16384x16384"], "Error: --size 16384x16384: FFmpeg's encoders take at most 16128 rows at a width of 16384.")
        ]
        // Refused by OutputArguments.validate(): checked in-process on the parsed command line,
        // with the status and first line LockstepCommand.main prints; the first also for real.
        for (options, line) in cases {
            let args = ["composite", "--blend", "mix"] + options + [fg, bg, "-o", path("o.mp4")]
            guard case .failure(let refusal) = parsed(args) else {
                XCTFail("\(options): accepted")
                continue
            }
            XCTAssertEqual(refusal, Refusal(status: 64, line: line, byParser: true), options.joined(separator: " "))
        }
        let refused = try Processes.lockstep(["composite", "--blend", "mix"] + cases[0].0 + [fg, bg, "-o", path("o.mp4")])
        XCTAssertEqual(refused.status, 64)
        XCTAssertEqual(refused.stderr.split(separator: "\n").first.map(String.init), cases[0].1)
        // A 1x1 input's picture as the canvas: named, with the option that changes it.
        let one = path("one.mkv")
        try Data(repeating: 128, count: 30).write(to: URL(fileURLWithPath: path("one.gray")))
        try Processes.check("ffmpeg", ["-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", "gray", "-s", "1x1", "-r", "10", "-i", path("one.gray"), "-c:v", "ffv1", one])
        let r = try Processes.lockstep(["composite", "--blend", "mix", "--hdr", "hlg", one, one, "-o", path("o.mp4")])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: the canvas 2x2, from \(one)'s picture, cannot be encoded: an HDR output is HEVC, and libx265 takes pictures of at least 16x16; give another with --size.\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("o.mp4")))
    }
}
