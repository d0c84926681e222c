import ArgumentParser
import Foundation
import Lockstep
import TestSupport
import XCTest

@testable import LockstepCLI

/// Numbers from options and files are range-checked before use, never trapping (issue 26).
final class NumberRangeCommandTests: ScratchFolderTestCase {
    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    func firstLine(_ s: String) -> String { s.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? "" }

    // MARK: finding 5

    /// A rate whose numerator or denominator does not fit in 32 bits (about 1 fps): refused with
    /// exit 64 by composite, concat and testsrc. It trapped (SIGILL) and left a 0-byte temporary.
    /// The refusal is `validate()`'s (OutputArguments, TestSourceCommand), so each command's is
    /// checked in-process on the parsed command line, the reducible rate's 30/1 too; testsrc runs
    /// for real (a refusal with nothing written, the reducible rate rendered: it trapped while
    /// rendering). Three renders and six launches fewer than one real run of each.
    func testFrameRatesBeyond32BitFractionsAreRefused() throws {
        let q = [Repository.fixture("q0.mp4"), Repository.fixture("q1.mp4")]
        for fps in ["4294967296/4294967295", "2147483647/2147483648", "3000000000/100000000"] {
            let canon = fps == "3000000000/100000000" ? "30" : fps  // reduced first: 30/1 fits
            for args in [
                ["composite", "--blend", "mix", "--fps", fps, "-o", path("c.mp4")] + q,
                ["concat", "--fps", fps, "-o", path("c.mp4")] + q,
                ["testsrc", "--duration", "1", "--size", "160x90", "--fps", fps, "-o", path("c.mp4")]
            ] {
                switch parsed(args) {
                case .success(let command):
                    XCTAssertEqual(canon, "30", "\(args): accepted")
                    let rate = (command as? CompositeCommand)?.out.fps ?? (command as? ConcatCommand)?.encoding.out.fps ?? (command as? TestSourceCommand)?.fps
                    XCTAssertEqual(rate, Rational(30, 1), "\(args)")
                case .failure(let refusal):
                    XCTAssertNotEqual(canon, "30", "\(args): \(refusal.line)")
                    XCTAssertEqual(
                        refusal,
                        Refusal(
                            status: 64,
                            line: "Error: --fps \(fps): the numerator and denominator must be at most 2147483647 (FFmpeg keeps a frame rate as a fraction of 32-bit numbers).",
                            byParser: true),
                        "\(args)")
                }
            }
        }
        let refused = try Processes.lockstep(["testsrc", "--duration", "1", "--size", "160x90", "--fps", "4294967296/4294967295", "-o", path("c.mp4")], timeout: 120)
        XCTAssertEqual(refused.status, 64, refused.stderr)
        XCTAssertEqual(
            firstLine(refused.stderr),
            "Error: --fps 4294967296/4294967295: the numerator and denominator must be at most 2147483647 (FFmpeg keeps a frame rate as a fraction of 32-bit numbers).")
        XCTAssertEqual(try leftovers(), [])
        let reduced = try Processes.lockstep(["testsrc", "--duration", "1", "--size", "160x90", "--fps", "3000000000/100000000", "-o", path("c.mp4")], timeout: 120)
        XCTAssertEqual(reduced.status, 0, reduced.stderr)
        XCTAssertTrue(reduced.stdout.contains("160x90 at 30 fps"), reduced.stdout)
        XCTAssertEqual(try leftovers(), ["c.mp4"])
    }

    // MARK: finding 6

    /// A valid 16384x16384 PNG, which FFmpeg reports as 0x0 (past its image size limit): one
    /// line naming the file. Composite, concat and filter trapped ("Double value cannot be
    /// converted... infinite or NaN").
    func testAPictureFFmpegReadsAsZeroByZeroIsRefused() throws {
        let png = path("big.png")
        let script = """
            import zlib, struct, sys
            w = h = 16384
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
            c = zlib.compressobj(9); row = b'\\0' + b'\\x80' * w
            idat = b''.join(c.compress(row) for _ in range(h)) + c.flush()
            open(sys.argv[1], 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0)) + chunk(b'IDAT', idat) + chunk(b'IEND', b''))
            """
        XCTAssertEqual(try Processes.run("python3", ["-c", script, png]).status, 0)
        let message = "Error: \(png): the video stream has no picture size (FFmpeg reads it as 0x0: a picture larger than FFmpeg handles, or a damaged header)\n"
        for args in [
            ["composite", "--blend", "mix", png, Repository.fixture("q0.mp4")], ["concat", png], ["filter", "--filter", "mono", png],
            ["reverse", png]
        ] {
            let r = try Processes.lockstep(args + ["-o", path("o.mp4")])
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertEqual(r.stderr, message, "\(args)")
        }
        XCTAssertEqual(try leftovers(), ["big.png"])
    }

    // MARK: finding 7

    /// A CSV time of Int64.min: one line naming the file and line, for every command that reads
    /// a trace. abs(Int64.min) trapped in import, info, plot, export, serve and snake --imu.
    func testATimestampOfInt64MinIsAnErrorForEveryReader() throws {
        let csv = try file("min.csv", "t_ns,gx,gy,gz\n-9223372036854775808,0,0,0\n0,1,1,1\n")
        let message = "Error: \(csv):2: timestamp -9223372036854775808 is out of range (beyond 2.3e9 s from 0)\n"
        let runs: [[String]] = [
            ["imu", "import", csv, "-o", path("s.sqlite")], ["imu", "info", csv], ["imu", "plot", csv, "-o", path("p.svg")],
            ["imu", "export", csv, "-o", path("e.csv")], ["imu", "serve", csv, "--port", "0"],
            ["snake", Repository.fixture("q0.mp4"), "--imu", csv, "-o", path("s.mp4")]
        ]
        for args in runs {
            let r = try Processes.lockstep(args, timeout: 60)
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertEqual(r.stderr, message, "\(args)")
        }
        XCTAssertEqual(try leftovers(), ["min.csv"])
    }

    /// The measuring tools take range-checked options too (--frames -1 trapped).
    func testTheHiddenMeasuringToolsCheckTheirOptions() throws {
        for (args, message) in [
            (["kernels", "--frames=-1"], "Error: --frames must be between 1 and 100000; got -1."),
            (["filter-kernels", "--size", "0x0"], "Error: --size 0x0: width and height must be even numbers from 2 to 16384."),
            (["imu", "bench-store", "--samples", "0", "-o", path("b.sqlite")], "Error: --samples must be between 1 and 100000000; got 0.")
        ] {
            let r = try Processes.lockstep(args)
            XCTAssertEqual(r.status, 64, "\(args)")
            XCTAssertEqual(firstLine(r.stderr), message)
        }
    }
}
