import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

/// `stabilise` takes the output, timeline and cut options of every frame-producing command
/// (`EncodeArguments`, `TimelineArguments`): the same help as `filter`'s, the same meaning.
/// The pan fixture (a known gyro, offset 87 ms, focal 300 px) for the runs; ffprobe checks them.
final class StabiliseSharedOptionsTests: ScratchFolderTestCase {
    let pan = Repository.fixture("synthetic/pan.mp4")
    let panTrace = Repository.fixture("synthetic/pan-imu.csv")

    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    func profile() throws -> String {
        try file("profile.json", #"{"name": "pan", "axisMapping": "XYZ", "gyroBias": [0.012, -0.008, 0.004], "timeOffsetMs": 87, "focalLengthPx": 300}"#)
    }

    /// Each shared option's help line is filter's, word for word.
    func testHelpIsFiltersHelp() {
        let mine = StabiliseCommand.helpMessage(columns: 10_000).split(separator: "\n")
        let filter = FilterCommand.helpMessage(columns: 10_000).split(separator: "\n")
        for name in ["-o, --output", "--size", "--fps", "--hdr", "--tonemap", "--deinterlace", "--codec", "--crf", "--preset", "--keep-frames", "--from", "--to"] {
            let line = { (lines: [Substring]) in lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name + " ") } }
            XCTAssertNotNil(line(mine), name)
            XCTAssertEqual(line(mine), line(filter), name)
        }
    }

    func testTheOptionsReachThePipeline() throws {
        let o = try StabiliseCommand.parse([
            pan, "-o", path("o.mov"), "--size", "160x120", "--fps", "25", "--codec", "prores", "--deinterlace", "off", "--tonemap", "clip", "--keep-frames", "--from", "1",
            "--to", "2.5"
        ]).options
        XCTAssertEqual(o.size?.width, 160)
        XCTAssertEqual(o.size?.height, 120)
        XCTAssertEqual(o.frameRate?.num, 25)
        XCTAssertEqual(o.frameRate?.den, 1)
        XCTAssertEqual(o.encode.codec?.rawValue, "prores")
        XCTAssertEqual(o.deinterlace.rawValue, "off")
        XCTAssertEqual(o.toneCurve.rawValue, "clip")
        XCTAssertEqual("\(o.sync)", "index")
        XCTAssertNotNil(o.cut)
        XCTAssertNotNil(o.stabilise)
        let plain = try StabiliseCommand.parse([pan, "-o", path("o.mp4")]).options
        XCTAssertEqual("\(plain.sync)", "time")
        XCTAssertNil(plain.cut)
        XCTAssertEqual(plain.encode.crf, 18)
        XCTAssertEqual(plain.encode.preset, "veryfast")
    }

    /// A bad cut or codec is refused with filter's sentence.
    func testBadCombinationsAreTheSharedSentences() {
        func message(_ args: [String]) -> String {
            do { _ = try StabiliseCommand.parse(args); return "accepted" } catch { return StabiliseCommand.message(for: error) }
        }
        func filterMessage(_ args: [String]) -> String {
            do { _ = try FilterCommand.parse(args); return "accepted" } catch { return FilterCommand.message(for: error) }
        }
        let out = path("o.mp4")
        for bad in [
            ["--from", "3", "--to", "2"], ["--codec", "prores"], ["--codec", "h264", "--hdr", "hlg"], ["--frames", "10:20", "--from", "1"],
            ["--frames", "9:3"], ["--frames", "ten"]
        ] {
            let mine = message([pan, "-o", out] + bad)
            XCTAssertNotEqual(mine, "accepted", "\(bad)")
            XCTAssertEqual(mine, filterMessage([pan, "--filter", "mono", "-o", out] + bad), "\(bad)")
        }
        XCTAssertEqual(message([pan, "-o", out, "--frames", "10:20"]), "accepted")
        // A stabilised render is not split into tasks (`composite --stabilise --segments`): one sentence.
        let segments: String
        do {
            _ = try CompositeCommand.parse([pan, pan, "--blend", "mix", "--stabilise", "all", "--segments", "2", "--emit", "k8s", "-o", out])
            segments = "accepted"
        } catch { segments = CompositeCommand.message(for: error) }
        XCTAssertEqual(
            segments, "--stabilise cannot be combined with --segments: a stabilised render is not split into tasks yet; --frames A:B or --from/--to render a part of it")
    }

    /// A cut warps each frame with the motion of its own source time, on the path smoothed over
    /// the whole clip: the export of `--from 1 --to 2` is the uncut export's rows for frames
    /// 30..59 (30 fps), character for character, starting at 1.000000 s (not 0); so is that of
    /// `--frames 30:60`.
    func testACutKeepsTheSourceTimesAndTheSmoothedPath() throws {
        let p = try profile()
        let whole = path("whole.csv"), cut = path("cut.csv")
        var r = try Processes.lockstep(["stabilise", pan, "-o", path("whole.mp4"), "--imu", panTrace, "--calibration", p, "--export-path", whole, "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        r = try Processes.lockstep(["stabilise", pan, "-o", path("cut.mp4"), "--imu", panTrace, "--calibration", p, "--export-path", cut, "--from", "1", "--to", "2", "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("wrote \(path("cut.mp4")): 30 frames"), r.stdout)
        let all = try String(contentsOfFile: whole, encoding: .utf8).split(separator: "\n")
        let part = try String(contentsOfFile: cut, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(part.count, 31)
        guard all.count == 181, part.count == 31 else { return XCTFail("\(all.count) and \(part.count) rows") }
        XCTAssertTrue(part[1].hasPrefix("30,1.000000,"), String(part[1]))
        XCTAssertEqual(Array(part[1...]), Array(all[31...60]))
        let verified = try Processes.lockstep(["verify", path("cut.mp4")])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
        // `--frames 30:60`: the same frames by number, the same rows.
        let numbered = path("frames.csv")
        r = try Processes.lockstep(["stabilise", pan, "-o", path("frames.mp4"), "--imu", panTrace, "--calibration", p, "--export-path", numbered, "--frames", "30:60", "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("wrote \(path("frames.mp4")): 30 frames"), r.stdout)
        XCTAssertEqual(try String(contentsOfFile: numbered, encoding: .utf8).split(separator: "\n"), part)
    }

    /// --size, --fps and --codec in the written movie, by ffprobe; --keep-frames with them.
    func testSizeRateAndCodecAreWritten() throws {
        let p = try profile(), out = path("o.mp4")
        let r = try Processes.lockstep([
            "stabilise", pan, "-o", out, "--imu", panTrace, "--calibration", p, "--size", "160x120", "--fps", "25", "--codec", "hevc", "--to", "2", "--quiet"
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let probe = try Processes.check(
            "ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=codec_name,width,height,r_frame_rate,nb_read_frames", "-of", "default=nw=1", out])
        XCTAssertEqual(
            String(decoding: probe, as: UTF8.self).split(separator: "\n").sorted(),
            ["codec_name=hevc", "height=120", "nb_read_frames=50", "r_frame_rate=25/1", "width=160"])
        let kept = path("kept.mp4")
        let k = try Processes.lockstep(["stabilise", pan, "-o", kept, "--imu", panTrace, "--calibration", p, "--keep-frames", "--fps", "60", "--quiet"])
        XCTAssertEqual(k.status, 0, k.stderr)
        // Every frame once at the output's rate: 180 frames at 60 fps, 3 s.
        XCTAssertTrue(k.stdout.contains("wrote \(kept): 180 frames"), k.stdout)
    }
}
