import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

/// A negative number given to a numeric option reaches the option's own check: its range
/// sentence and exit 64, never ArgumentParser's "Missing value for '--smoothness'" (it read
/// "-1" as an option). `--from/--to` were the first (FilterTimelineTests); these are the others.
/// Options whose range takes negative numbers (`--offsets`, `--drift`, `--offset-ms`,
/// `--gyro-gain`, `--shift-gain`, `--loudness`) are given one past it. Nothing is written.
///
/// Cost: every one of these refusals is decided while the command line is parsed (ArgumentParser
/// reading the value, then the command's `validate()`), so each is checked in-process on
/// `LockstepCommand.parseAsRoot`, with the status and first line `LockstepCommand.main` prints
/// for that error (`parsed(_:)`, InProcessParse.swift); a launch costs 0.1-0.2 CPU-s, 67 of them were the class's
/// 15 s. Six of them, each of another command (`wired`), are also run as the real `lockstep` process:
/// the wiring from argv to the printed line and the exit status, and no "Missing value" there either.
final class NegativeOptionValueTests: ScratchFolderTestCase {
    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    func testANegativeValueGetsTheOptionsOwnSentence() throws {
        let out = path("out.mp4"), q = [Repository.fixture("q0.mp4"), Repository.fixture("q1.mp4")]
        let (fg, bg, clip, trace) = (Repository.fixture("fg.mp4"), Repository.fixture("bg.mp4"), Repository.fixture("q0.mp4"), Repository.fixture("imu/shake.gcsv"))
        let key = ["composite", "--blend", "chromakey", "-o", out, fg, bg], lockstepKey = key + ["--keyer", "lockstep"]
        let mix = ["composite", "--blend", "mix", "-o", out] + q
        let cases: [(args: [String], line: String)] = [
            (key + ["--similarity", "-1"], "--similarity must be between 0 and 1; got -1.0."),
            (key + ["--smoothness", "-1"], "--smoothness must be between 0 and 1; got -1.0."),
            (key + ["--fg-scale", "-1"], "--fg-scale must be more than 0 and at most 4; got -1.0."),
            (
                key + ["--fg-position", "-5,0"],
                "--fg-position: X and Y must be between 0 and 1 (0,0: the foreground's top-left corner on the canvas's; 1,1: its bottom-right corner on the canvas's); got -5.0."
            ),
            (lockstepKey + ["--clip-black", "-0.5"], "--clip-black must be between 0 and 1; got -0.5."),
            (lockstepKey + ["--clip-white", "-0.5"], "--clip-white must be between 0 and 1; got -0.5."),
            (lockstepKey + ["--screen-balance", "-0.5"], "--screen-balance must be between 0 and 1; got -0.5."),
            (lockstepKey + ["--spill-cast", "-5"], "--spill-cast must be between 0.0 and 0.5; got -5.0."),
            (lockstepKey + ["--despill", "-0.5"], "--despill must be between 0 and 1; got -0.5."),
            (lockstepKey + ["--despill-balance", "-0.5"], "--despill-balance must be between 0 and 1; got -0.5."),
            (key + ["--matte", fg, "--filter", "mono", "--mix-factor", "-0.5"], "--mix-factor must be between 0 and 1; got -0.5."),
            (mix + ["--weights", "-1,1"], "--weights must be zero or positive, and not all zero."),
            (mix + ["--gain", "-1,1"], "--gain values must be between 0 and 16."),
            (mix + ["--audio-from", "-1"], "--audio-from -1: there are 2 inputs; give 1 to 2."),
            (mix + ["--loudness", "-200"], "--loudness must be r128 (-23 LUFS) or a target between -70 and -5 LUFS; got -200.0."),
            (mix + ["--stall-timeout", "-1"], "--stall-timeout must be a positive number of seconds, at most 86400; got -1.0."),
            (
                mix + ["--sync", "time", "--offsets", "-0.5,0"],
                "--offsets: the first input is the clock the others are placed on, so its offset must be 0; got -0.5."
            ),
            (mix + ["--sync", "time", "--drift", "0,-20000"], "--drift: input 2's drift must be between -10000 and 10000 ppm; got -20000.0."),
            (["composite", "--blend", "quad", "--border", "-1", "-o", out] + q + q, "--border must be between 0 and 64 pixels; got -1."),
            (
                ["composite", "--blend", "pip", "--pip-size", "-0.5", "-o", out] + q,
                "--pip-size must be between 0.05 and 0.9 (a share of the canvas width); got -0.5."
            ),
            (mix + ["--segments", "-2"], "--segments must be at least 1 (got -2)."),
            (mix + ["--segments", "2", "--slurm", "--wait", "--wait-timeout", "-1"], "--wait-timeout must be a positive number of seconds (got -1.0)."),
            (["concat", "--max-duration", "-1", "-o", out] + q, "--max-duration must be a positive number of seconds; got -1."),
            (["concat", "--crossfade-ms", "-5", "-o", out] + q, "--crossfade-ms must be between 1 and 2000; got -5."),
            (["concat", "--stall-timeout", "-1", "-o", out] + q, "--stall-timeout must be a positive number of seconds, at most 86400; got -1.0."),
            (["concat", "--fps", "-30", "-o", out] + q, "--fps -30: the frame rate must be positive."),
            (["concat", "--crf", "-1", "-o", out] + q, "--crf must be between 0 and 51; got -1."),
            (["filter", "--filter", "mono", "--crf", "-1", "-o", out, clip], "--crf must be between 0 and 51; got -1."),
            (["filter", "--filter", "mono", "--fps", "-30", "-o", out, clip], "--fps -30: the frame rate must be positive."),
            (["filter", "--filter", "mono", "--frames", "0:10", "--gop", "-1", "-o", out, clip], "--gop -1: the GOP length must be between 1 and 10000 frames."),
            (["reverse", "--loops", "-1", "-o", out, clip], "--loops must be at least 1 (it is -1)."),
            (["reverse", "--pool-frames", "-1", "-o", out, clip], "--pool-frames must be at least 1 (it is -1)."),
            (["stabilise", "--smoothness", "-1", "-o", out, clip], "--smoothness must be between 0.01 and 10 seconds; got -1.0."),
            (["stabilise", "--horizon-lock", "--horizon-lock-amount", "-5", "-o", out, clip], "--horizon-lock-amount must be a percentage from 0 to 100; got -5.0."),
            (["stabilise", "--rolling-shutter", "-5", "-o", out, clip], "--rolling-shutter must be between 0 and 100 ms; got -5.0."),
            (["stabilise", "--max-zoom", "-2", "-o", out, clip], "--max-zoom must be between 1 and 4; got -2.0."),
            (["stabilise", "--crf", "-1", "-o", out, clip], "--crf must be between 0 and 51; got -1."),
            (["stabilise", "--imu", trace, "--trace", "-1", "-o", out, clip], "--trace must be 1 or more; got -1."),
            (["snake", "--imu", trace, "--trace", "-1", "-o", out, clip], "--trace must be 1 or more; got -1."),
            (["snake", "--imu", trace, "--offset-ms", "-100000000", "-o", out, clip], "--offset-ms must be between -3600000 and 3600000; got -100000000.0."),
            (["snake", "--imu", trace, "--gyro-gain", "-2000", "-o", out, clip], "--gyro-gain must be between -1000 and 1000; got -2000.0."),
            (["snake", "--imu", trace, "--trail-scale", "-1", "-o", out, clip], "--trail-scale must be above 0 and at most 1; got -1.0."),
            (["snake", "--imu", trace, "--front-scale", "-1", "-o", out, clip], "--front-scale must be above 0 and at most 1; got -1.0."),
            (["snake", "--imu", trace, "--damping", "-1", "-o", out, clip], "--damping must be between 0 and 1; got -1.0."),
            (["snake", "--imu", trace, "--shift-gain", "-2", "-o", out, clip], "--shift-gain must be between -1 and 1; got -2.0."),
            (["calibrate", "--imu", trace, "--trace", "-1", "-o", path("p.json"), clip], "--trace must be 1 or more; got -1."),
            (["calibrate", "--imu", trace, "--focal-length", "-100", "-o", path("p.json"), clip], "--focal-length must be a positive number of pixels, at most 1000000."),
            (["calibrate", "--imu", trace, "--search-ms", "-100", "-o", path("p.json"), clip], "--search-ms must be between 0 and 600000."),
            (["imu", "export", trace, "--trace", "-1", "-o", path("t.csv")], "--trace must be 1 or more; got -1."),
            (["imu", "export", trace, "--from", "-1", "-o", path("t.csv")], "--from must be zero or more seconds."),
            (["imu", "export", trace, "--to", "-1", "-o", path("t.csv")], "--to must be a positive number of seconds."),
            (["imu", "import", trace, "--busy-timeout", "-1", "-o", path("s.sqlite")], "--busy-timeout must be between 0 and 3600 seconds; got -1.0."),
            (["imu", "info", trace, "--trace", "-1"], "--trace must be 1 or more; got -1."),
            (["imu", "plot", trace, "--trace", "-1", "-o", path("p.svg")], "--trace must be 1 or more; got -1."),
            (["imu", "serve", trace, "--trace", "-1"], "--trace must be 1 or more; got -1."),
            (["imu", "serve", trace, "--port", "-1"], "--port must be between 0 and 65535; got -1."),
            (["imu", "serve", trace, "--speed", "-1"], "--speed must be 0 (as fast as possible) or a positive factor; got -1.0."),
            (["imu", "serve", trace, "--max-connections", "-1"], "--max-connections must be between 1 and 10000; got -1."),
            (["imu", "serve", trace, "--idle-timeout", "-1"], "--idle-timeout must be between 0.1 and 86400 seconds; got -1.0."),
            (["imu", "record", "--uri", "ip:127.0.0.1", "--rate", "-1", "-o", path("r.sqlite")], "--rate must be a positive number of samples per second."),
            (["imu", "record", "--uri", "ip:127.0.0.1", "--duration", "-1", "-o", path("r.sqlite")], "--duration must be a positive number of seconds."),
            (["testsrc", "--duration", "-1", "-o", out], "--duration must be a positive number of seconds giving at least one frame."),
            (["testsrc", "--fps", "-30", "-o", out], "--fps must be a positive rate of at most 240."),
            (["testsrc", "--audio-rate", "-1", "-o", out], "--audio-rate must be from 8000 to 192000 Hz."),
            (["testsrc", "--channels", "-1", "-o", out], "--channels must be from 1 to 8."),
            (["verify", "--coded", "--input", "-1", clip], "--input must be 0 or more."),
            (["thumbnail", "--at", "-1", "-o", path("t.png"), clip], "--at -1: the time must be zero or more seconds.")
        ]
        for (args, line) in cases {
            guard case .failure(let r) = parsed(args) else {
                XCTFail("\(args): accepted by the parser")
                continue
            }
            XCTAssertEqual(r.status, 64, "\(args): \(r.line)")
            XCTAssertEqual(r.line, "Error: \(line)", "\(args)")
        }
        // The real process for a handful (the first case of each of these commands, an `imu`
        // subcommand among them): the same status and line, and no "Missing value".
        let wired: Set = ["composite", "concat", "snake", "imu serve", "testsrc", "thumbnail"]
        var seen = Set<String>()
        let launched = cases.filter { c in
            let command = c.args[0] == "imu" ? "imu \(c.args[1])" : c.args[0]
            return wired.contains(command) && seen.insert(command).inserted
        }
        XCTAssertEqual(launched.count, wired.count)
        for (args, line) in launched {
            let r = try Processes.lockstep(args, timeout: 60)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), "Error: \(line)", "\(args)")
            XCTAssertFalse(r.stderr.contains("Missing value"), "\(args): \(r.stderr)")
        }
        XCTAssertEqual(try leftovers(), [], "nothing is written")
    }

    /// `--help` (or `-h`) where an option that takes any value (`.unconditional`, for its
    /// negative numbers) was due shows the command's help, exactly as `--help` alone does; it
    /// was read as the value ("The value '--help' is invalid for '--smoothness <SECONDS>'").
    func testHelpWhereAValueWasDueShowsTheHelp() throws {
        let clip = Repository.fixture("q0.mp4")
        let stabilise = try Processes.lockstep(["stabilise", "--help"])
        XCTAssertEqual(stabilise.status, 0)
        XCTAssertEqual(
            stabilise.stdout.split(separator: "\n").first.map(String.init),
            "OVERVIEW: Steady a movie from its gyro: smoothed camera path, rolling shutter")
        let filter = try Processes.lockstep(["filter", "--help"])
        let cases: [(args: [String], help: String)] = [
            (["stabilise", "--smoothness", "--help"], stabilise.stdout),
            (["stabilise", clip, "--smoothness", "-h", "-o", path("o.mp4")], stabilise.stdout),
            (["filter", clip, "--filter", "mono", "--from", "--help", "-o", path("o.mp4")], filter.stdout),
            (["filter", clip, "--to", "-help"], filter.stdout)
        ]
        for (args, help) in cases {
            let r = try Processes.lockstep(args)
            XCTAssertEqual(r.status, 0, args.joined(separator: " "))
            XCTAssertEqual(r.stdout, help, args.joined(separator: " "))
            XCTAssertEqual(r.stderr, "", args.joined(separator: " "))
        }
        // Help only: nothing is written.
        XCTAssertNil(FileManager.default.contents(atPath: path("o.mp4")))
    }
}
