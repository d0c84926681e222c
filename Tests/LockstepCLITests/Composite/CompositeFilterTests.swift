import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

/// `--filter` and `--filter-at` on `composite`, `snake` and `concat`: the same sentences as `lockstep filter`
/// (one parser, `FilterArguments`), and the chain applied to the blended picture.
final class CompositeFilterTests: ScratchFolderTestCase {
    var bg: String { Repository.fixture("bg.mp4") }
    var fg: String { Repository.fixture("fg.mp4") }
    var pan: String { Repository.fixture("synthetic/pan.mp4") }
    var trace: String { Repository.fixture("synthetic/pan-imu.csv") }

    func message<C: ParsableCommand>(_ type: C.Type, _ args: [String]) -> String {
        do { _ = try type.parse(args); return "accepted" } catch { return type.message(for: error) }
    }

    func testBadFilterValuesGiveTheFilterCommandsSentences() {
        let cases: [(args: [String], sentence: String)] = [
            (
                ["--filter", "sepia,blurr"],
                "--filter: unknown filter \"blurr\"; valid filters: rosy, mono, sepia, invert, brightness, contrast, saturation, exposure, gamma, hue, posterize, vignette, pixellate, blur, sharpen, edges, lut."
            ),
            (["--filter", "blur:size=3"], "--filter: filter blur has no parameter \"size\"; valid parameters: radius."),
            (["--filter-at", "1=mono;0.5=invert"], "--filter-at entry 2 (\"0.5=invert\"): 0.5 s is not after entry 1's 1 s; times must increase.")
        ]
        for c in cases {
            let filter = message(FilterCommand.self, [bg, "-o", "/tmp/f.mp4"] + c.args)
            XCTAssertEqual(filter, c.sentence)
            XCTAssertEqual(message(CompositeCommand.self, ["--blend", "mix", "-o", "/tmp/o.mp4", fg, bg] + c.args), filter)
            XCTAssertEqual(message(SnakeCommand.self, [pan, "--imu", trace, "-o", "/tmp/s.mp4"] + c.args), filter)
        }
        XCTAssertEqual(message(CompositeCommand.self, ["--blend", "mix", "-o", "/tmp/o.mp4", fg, bg, "--filter", "mono", "--filter-at", "1=none"]), "accepted")
        XCTAssertEqual(message(SnakeCommand.self, [pan, "--imu", trace, "-o", "/tmp/s.mp4", "--filter", "invert"]), "accepted")
    }

    func testTheBinaryRefusesABadChainWithExit64AndWritesNothing() throws {
        let out = scratch.appendingPathComponent("o.mp4").path
        let composite = try Processes.lockstep(["composite", "--blend", "mix", "-o", out, fg, bg, "--filter", "invert:amount=2"])
        XCTAssertEqual(composite.status, 64)
        XCTAssertEqual(
            composite.stderr.split(separator: "\n").first.map(String.init),
            "Error: --filter: filter invert takes no parameters; got \"amount\".")
        let snake = try Processes.lockstep(["snake", pan, "--imu", trace, "-o", out, "--filter-at", "x=mono"])
        XCTAssertEqual(snake.status, 64)
        XCTAssertEqual(
            snake.stderr.split(separator: "\n").first.map(String.init),
            "Error: --filter-at entry 1 (\"x=mono\"): \"x\" is not a time in seconds (0 or more).")
        XCTAssertEqual(try leftovers(), [])
    }

    /// A composite of a clip from a second generator (ffmpeg's testsrc2, 25 fps, in Matroska) and
    /// the barcoded fixture, losslessly encoded with and without `--filter invert`: a decoded frame
    /// of the filtered one is the ffmpeg CLI's `negate` of the same frame of the plain one.
    func testACompositeWithInvertIsTheNegateOfThePlainComposite() throws {
        let gen = scratch.appendingPathComponent("gen.mkv").path
        try Processes.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2",
                "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", gen
            ])
        let plain = scratch.appendingPathComponent("plain.mp4").path, inverted = scratch.appendingPathComponent("inv.mp4").path
        for (out, extra) in [(plain, [String]()), (inverted, ["--filter", "invert"])] {
            let r = try Processes.lockstep(["composite", "--blend", "mix", "--crf", "0", "--audio", "none", "--quiet", "-o", out, gen, bg] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stdout, "wrote \(out): 50 frames, 320x240 at 25 fps, 2.000 s, no audio\n")
        }
        let reference = try frame(plain, 31, then: ",negate")
        let ours = try frame(inverted, 31)
        let original = try frame(plain, 31)
        XCTAssertEqual(ours.count, 320 * 240 * 3 / 2)
        XCTAssertEqual(reference.count, ours.count)
        XCTAssertLessThan(meanAbsoluteDifference(ours, reference), 0.05, "inverted like ffmpeg's negate")
        XCTAssertGreaterThan(meanAbsoluteDifference(ours, original), 30, "and far from the plain picture")
    }

    /// `concat --filter invert` of a testsrc2 clip (320x240, Matroska, no audio) and a barcoded
    /// fixture (256x144, fitted with margins, with audio): every frame is the ffmpeg CLI's
    /// `negate` of the same frame of the plain concat, and verify finds the chain from frame 0.
    func testAConcatWithInvertIsTheNegateOfThePlainConcat() throws {
        let gen = scratch.appendingPathComponent("gen.mkv").path
        try Processes.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2",
                "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", gen
            ])
        let clip = Repository.fixture("concat/c1.mp4")
        let plain = scratch.appendingPathComponent("plain.mp4").path, inverted = scratch.appendingPathComponent("inv.mp4").path
        for (out, extra) in [(plain, [String]()), (inverted, ["--filter", "invert"])] {
            let r = try Processes.lockstep(["concat", "--crf", "0", "--quiet", "-o", out, gen, clip] + extra, timeout: 120)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stdout.hasPrefix("wrote \(out): 75 frames (50 + 25), 320x240 at 25 fps, 3.000000 s"), r.stdout)
        }
        // Every frame, both clips: a lane's pool picture reused must not be filtered twice.
        let size = 320 * 240 * 3 / 2
        let reference = try allFrames(plain, then: ",negate"), ours = try allFrames(inverted), original = try allFrames(plain)
        XCTAssertEqual(ours.count, 75 * size)
        XCTAssertEqual(reference.count, ours.count)
        for n in 0..<min(75, ours.count / size) {
            let r = n * size..<(n + 1) * size
            XCTAssertLessThan(meanAbsoluteDifference(Array(ours[r]), Array(reference[r])), 0.05, "frame \(n) inverted like ffmpeg's negate")
            XCTAssertGreaterThan(meanAbsoluteDifference(Array(ours[r]), Array(original[r])), 30, "frame \(n) far from the plain picture")
        }
        let v = try Processes.lockstep(["verify", inverted])
        XCTAssertEqual(v.status, 0, v.stdout)
        XCTAssertTrue(v.stdout.contains("filters: invert from frame 0 (0.000 s)"), v.stdout)
    }

    func testConcatCopyRefusesAFilterWithASentenceAndExit64() throws {
        let out = scratch.appendingPathComponent("o.mp4").path
        let c0 = Repository.fixture("concat/c0.mp4"), c1 = Repository.fixture("concat/c1.mp4")
        let sentence = "--copy cannot be combined with --filter or --filter-at: copied video is not decoded, so it cannot be filtered."
        XCTAssertEqual(message(ConcatCommand.self, ["--copy", "--filter", "mono", "-o", out, c0, c1]), sentence)
        XCTAssertEqual(message(ConcatCommand.self, ["--copy", "--filter-at", "1=mono", "-o", out, c0, c1]), sentence)
        XCTAssertEqual(
            message(ConcatCommand.self, ["--filter", "sepia,blurr", "-o", out, c0, c1]),
            message(FilterCommand.self, [c0, "-o", out, "--filter", "sepia,blurr"]))
        XCTAssertEqual(message(ConcatCommand.self, ["--filter", "mono", "--filter-at", "1=none", "-o", out, c0, c1]), "accepted")
        let r = try Processes.lockstep(["concat", "--copy", "--filter", "mono", "-o", out, c0, c1])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), "Error: \(sentence)")
        XCTAssertEqual(try leftovers(), [])
    }

    /// Frame `n` of a movie, yuv420p, decoded by the ffmpeg CLI (with `then` appended to the filters).
    func frame(_ movie: String, _ n: Int, then: String = "") throws -> [UInt8] {
        [UInt8](
            try Processes.check(
                "ffmpeg",
                [
                    "-v", "error", "-i", movie, "-vf", "select=eq(n\\,\(n))\(then)", "-frames:v", "1",
                    "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"
                ]))
    }

    /// Every frame of a movie, yuv420p, one after another, decoded by the ffmpeg CLI.
    func allFrames(_ movie: String, then: String = "") throws -> [UInt8] {
        [UInt8](try Processes.check("ffmpeg", ["-v", "error", "-i", movie, "-vf", "null\(then)", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]))
    }

    func meanAbsoluteDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        PixelDifference.meanAbsolute(a, b)
    }
}
