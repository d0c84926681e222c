import Foundation
import TestSupport
import XCTest

/// `filter` keeps the input's timeline as `composite` does (issue 43): on a 30 fps clip whose
/// camera missed 18 frames (timestamps kept, a gap), made here by the ffmpeg CLI, not by
/// Lockstep, the output lasts the clip's 6 s, not 162 frames' 5.4 s; `--keep-frames` gives the
/// old behaviour with the note every command says; `--from/--to` cut frame-exact, the sound with
/// the picture.
final class FilterTimelineTests: ScratchFolderTestCase {
    /// testsrc2 at 30 fps for 6 s with a 1 kHz tone; frames 40-57 removed, the others' times kept.
    /// Made once for the class (the same ffmpeg command gave each test the same clip) and
    /// hard-linked into each test's scratch folder as drops.mp4, where the tests expect it.
    func droppedFramesClip() throws -> String {
        let made = try Self.madeClip.get()
        let path = scratch.appendingPathComponent("drops.mp4").path
        guard link(made, path) == 0 else { throw Processes.Failure(description: "cannot link \(made) to \(path): errno \(errno)") }
        return path
    }

    nonisolated(unsafe) static var made: Result<String, Error>?
    static var madeClip: Result<String, Error> {
        if let made { return made }
        let result = Result { () throws -> String in
            let path = try Scratch.makeFolder("lockstep-drops-clip").appendingPathComponent("drops.mp4").path
            _ = try Processes.check(
                "ffmpeg",
                [
                    "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=6", "-f", "lavfi", "-i",
                    "sine=frequency=1000:duration=6", "-vf", "select='not(between(n,40,57))'", "-fps_mode", "passthrough",
                    "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", path
                ])
            return path
        }
        made = result
        return result
    }
    override class func tearDown() {
        if case .success(let path)? = made { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        made = nil
        super.tearDown()
    }

    /// (frames, video seconds, audio seconds) as ffprobe reads them.
    func probe(_ path: String) throws -> (frames: Int, video: Double, audio: Double) {
        let text = String(
            decoding: try Processes.check("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,nb_frames,duration", "-of", "csv=p=0", path]), as: UTF8.self)
        var result = (frames: 0, video: 0.0, audio: 0.0)
        for line in text.split(separator: "\n") {
            let f = line.split(separator: ",")
            if f[0] == "video" { result.video = Double(f[1])!; result.frames = Int(f[2])! }
            if f[0] == "audio" { result.audio = Double(f[1])! }
        }
        return result
    }

    func testTheTimelineIsKeptByDefault() throws {
        let clip = try droppedFramesClip()
        let out = scratch.appendingPathComponent("out.mp4").path
        let r = try Processes.lockstep(["filter", clip, "--filter", "mono", "-o", out], timeout: 300)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        let p = try probe(out)
        XCTAssertEqual(p.frames, 180)
        XCTAssertEqual(p.video, 6, accuracy: 0.001)
        XCTAssertEqual(p.audio, 6, accuracy: 0.001)
        let v = try Processes.lockstep(["verify", out], timeout: 120)
        XCTAssertEqual(v.status, 0, v.stdout)
        XCTAssertTrue(v.stdout.contains("provenance: time sync of drops.mp4"), v.stdout)
    }

    func testKeepFramesShowsEveryFrameOnceAndSaysWhatThatCosts() throws {
        let clip = try droppedFramesClip()
        let out = scratch.appendingPathComponent("kept.mp4").path
        let r = try Processes.lockstep(["filter", clip, "--filter", "none", "--keep-frames", "-o", out], timeout: 300)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            r.stderr,
            "note: --keep-frames shows every frame once at 30 fps: input 1 (\(clip): 162 frames over 6.000 s) lasting 5.400 s; "
                + "the sound keeps its own time, so the picture drifts from it (without --keep-frames every input keeps its timeline and its sync)\n")
        XCTAssertEqual(try probe(out).frames, 162)
    }

    func testFromAndToCutFrameExactWithTheSound() throws {
        let clip = try droppedFramesClip()
        let out = scratch.appendingPathComponent("cut.mp4").path
        // 1.51 s lies in frame 45, 4.01 s in frame 120: frames 45 to 120, 76 of them.
        let r = try Processes.lockstep(["filter", clip, "--filter", "none", "--from", "1.51", "--to", "00:00:04.010", "-o", out], timeout: 300)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("wrote \(out): 76 frames, 160x120 at 30 fps, 2.533 s, audio 2.533 s\n"), r.stdout)
        let p = try probe(out)
        XCTAssertEqual(p.frames, 76)
        XCTAssertEqual(p.audio, 76.0 / 30, accuracy: 0.0005)
        // The same frames as the whole output's 45-120, picture for picture.
        let whole = scratch.appendingPathComponent("whole.mp4").path
        XCTAssertEqual(try Processes.lockstep(["filter", clip, "--filter", "none", "-o", whole], timeout: 300).status, 0)
        // Picture for picture the whole output's frames 45-120: each matches closely, and
        // the neighbour's frames (testsrc2 moves every frame) do not.
        XCTAssertGreaterThan(try psnr(out, whole, from: 45), 40)
        XCTAssertLessThan(try psnr(out, whole, from: 46), 30)
    }

    /// The mean PSNR between `cut` and `whole`'s frames from `from` on, as ffmpeg's psnr filter measures it.
    func psnr(_ cut: String, _ whole: String, from: Int) throws -> Double {
        let graph = "[1:v]select='gte(n,\(from))',setpts=N/30/TB[w];[0:v]setpts=N/30/TB[c];[c][w]psnr=shortest=1"
        let r = try Processes.run("ffmpeg", ["-hide_banner", "-i", cut, "-i", whole, "-lavfi", graph, "-f", "null", "-"], timeout: 120)
        guard let line = r.stderr.split(separator: "\n").last(where: { $0.contains("PSNR") }),
            let range = line.range(of: "average:"), let value = Double(line[range.upperBound...].prefix { $0 != " " })
        else {
            XCTFail("no PSNR line from ffmpeg: \(r.stderr.suffix(300))")
            return .nan
        }
        return value
    }

    func testACutPastTheEndIsOneLineAndLeavesNothing() throws {
        let clip = try droppedFramesClip()
        let out = scratch.appendingPathComponent("late.mp4").path
        let r = try Processes.lockstep(["filter", clip, "--filter", "none", "--from", "7", "-o", out], timeout: 300)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: --from 7: input 1 (\(clip)) ends the output at 6.000 s (180 frames); the cut must lie within 0-6.000 s.\n")
        XCTAssertEqual(try leftovers(), ["drops.mp4"])
        let both = try Processes.lockstep(["filter", clip, "--filter", "none", "--from", "1", "--frames", "0:10", "-o", out], timeout: 60)
        XCTAssertEqual(both.status, 64)
        XCTAssertTrue(both.stderr.hasPrefix("Error: --frames and --from/--to both choose the output's frames; give one.\n"), both.stderr)
        // A negative time reaches the time parser (not ArgumentParser's "Missing value").
        let negative = try Processes.lockstep(["filter", clip, "--filter", "none", "--from", "-3", "-o", out], timeout: 60)
        XCTAssertEqual(negative.status, 64)
        XCTAssertTrue(
            negative.stderr.hasPrefix("Error: --from -3: expected a time in seconds (12.5) or HH:MM:SS.mmm (00:01:02.500), 0 or more.\n"), negative.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    /// Every command that makes frames cuts with one meaning and refuses a cut past the end with
    /// one sentence (issue 43): reverse cuts the source, concat the joined timeline, --variants
    /// every variant; nothing is left behind.
    func testEveryCommandRefusesACutPastTheEndWithTheSameLine() throws {
        let clip = try droppedFramesClip()
        let line = "Error: --from 7: input 1 (\(clip)) ends the output at 6.000 s (180 frames); the cut must lie within 0-6.000 s.\n"
        let out = scratch.appendingPathComponent("late.mp4").path
        for args in [["reverse", clip, "--from", "7"], ["reverse", "--boomerang", clip, "--from", "7"], ["concat", clip, "--from", "7"]] {
            let r = try Processes.lockstep(args + ["-o", out], timeout: 300)
            XCTAssertEqual(r.status, 1, args.joined(separator: " "))
            XCTAssertEqual(r.stderr, line, args.joined(separator: " "))
        }
        let folder = scratch.appendingPathComponent("looks").path
        let v = try Processes.lockstep(["filter", clip, "--variants", "none;mono", "--from", "7", "-o", folder], timeout: 300)
        XCTAssertEqual(v.status, 1)
        XCTAssertEqual(v.stderr, line)
        XCTAssertEqual(try leftovers(), ["drops.mp4"])
    }

    /// A cut inside the clip, on reverse, concat and --variants: as long as asked (to a frame),
    /// the sound as long as the picture, and `verify` accepts each.
    func testCutsOnReverseConcatAndVariantsVerify() throws {
        let clip = try droppedFramesClip()
        let outputs = ["r.mp4", "b.mp4", "c.mp4"].map { scratch.appendingPathComponent($0).path }
        let runs = [
            ["reverse", clip, "--from", "1", "--to", "3", "-o", outputs[0]], ["reverse", "--boomerang", clip, "--from", "1", "--to", "3", "-o", outputs[1]],
            ["concat", clip, clip, "--from", "4.5", "--to", "7.5", "-o", outputs[2]]
        ]
        for args in runs {
            let r = try Processes.lockstep(args, timeout: 300)
            XCTAssertEqual(r.status, 0, "\(args.joined(separator: " ")): \(r.stderr)")
        }
        let folder = scratch.appendingPathComponent("looks").path
        let v = try Processes.lockstep(["filter", clip, "--variants", "none;mono", "--from", "1", "--to", "3", "-o", folder], timeout: 300)
        XCTAssertEqual(v.status, 0, v.stderr)
        // Reverse: 2 s; boomerang: 2 s forward, then back to where the cut's last frame starts; concat: 3 s; each variant: 2 s.
        let expected = [(outputs[0], 2.0), (outputs[1], 2.0 + 2.0 - 1.0 / 30), (outputs[2], 3.0), (folder + "/none.mp4", 2.0), (folder + "/mono.mp4", 2.0)]
        for (path, seconds) in expected {
            let p = try probe(path)
            XCTAssertEqual(p.video, seconds, accuracy: 1.0 / 30 + 0.001, path)
            XCTAssertEqual(p.audio, p.video, accuracy: 0.002, path)
            let verify = try Processes.lockstep(["verify", path], timeout: 300)
            XCTAssertEqual(verify.status, 0, "\(path): \(verify.stdout)")
        }
    }

    /// `--to 0` alone is a cut of no frames: every frame-producing command refuses it before any
    /// work, exit 64 and one sentence, nothing written (each trapped on the empty range, SIGILL).
    func testACutEndingAtZeroIsRefusedByEveryCommand() throws {
        let clip = Repository.fixture("q0.mp4")
        let out = scratch.appendingPathComponent("out.mp4").path
        for args in [
            ["filter", clip, "--filter", "mono"], ["composite", "--blend", "mix", clip, clip], ["concat", clip], ["reverse", clip],
            ["stabilise", clip, "--imu", Repository.fixture("synthetic/pan-imu.csv")], ["snake", clip, "--imu", Repository.fixture("synthetic/pan-imu.csv")]
        ] {
            let r = try Processes.lockstep(args + ["--to", "0", "-o", out], timeout: 120)
            XCTAssertEqual(r.status, 64, "\(args[0]): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), "Error: --to 0: the cut must end after 0 (the output's start).", args[0])
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), args[0])
        }
    }
}
