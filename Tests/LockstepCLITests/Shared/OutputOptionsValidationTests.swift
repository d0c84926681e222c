import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

/// The output options (`OutputArguments`: --size, --fps, --hdr, --tonemap, --deinterlace, --crf,
/// --preset, --codec) with one meaning in every frame-producing command: an impossible
/// combination is one sentence naming both options, and a command that cannot honour an option
/// says so by name. The exact text each user sees.
final class OutputOptionsValidationTests: XCTestCase {
    var short: String { Repository.fixture("short.mp4") }
    var c0: String { Repository.fixture("concat/c0.mp4") }

    func message<C: ParsableCommand>(_ command: C.Type, _ args: [String]) -> String {
        do {
            _ = try command.parse(args)
            return "accepted"
        } catch {
            return command.message(for: error)
        }
    }

    /// The same combination gets the same sentence from every command.
    func testImpossibleCombinationsNameBothOptionsInEveryCommand() {
        let h264HDR = "--codec h264 cannot be combined with --hdr pq: H.264 HDR is not offered; use --codec hevc, prores or dnxhr."
        let crf = "--crf cannot be combined with --codec prores: ProRes has no constant rate factor (a fixed-quality intra profile)."
        let preset = "--preset cannot be combined with --codec dnxhr: DNxHR has no encoder presets."
        let commands: [(ParsableCommand.Type, [String])] = [
            (CompositeCommand.self, ["--blend", "mix", short, short]),
            (ConcatCommand.self, [c0]),
            (FilterCommand.self, ["--filter", "mono", short]),
            (ReverseCommand.self, [short]),
            (SnakeCommand.self, [short])
        ]
        for (command, args) in commands {
            let name = command._commandName
            XCTAssertEqual(message(command, args + ["--codec", "h264", "--hdr", "pq", "-o", "/tmp/o.mp4"]), h264HDR, name)
            XCTAssertEqual(message(command, args + ["--codec", "prores", "--crf", "20", "-o", "/tmp/o.mov"]), crf, name)
            XCTAssertEqual(message(command, args + ["--codec", "dnxhr", "--preset", "slow", "-o", "/tmp/o.mov"]), preset, name)
            XCTAssertEqual(
                message(command, args + ["--codec", "prores", "-o", "/tmp/x.mp4"]),
                "--codec prores needs a .mov output, not -o /tmp/x.mp4: ProRes goes into MOV.", name)
            XCTAssertEqual(
                message(command, args + ["--codec", "dnxhr", "--size", "200x100", "-o", "/tmp/o.mov"]),
                "--size 200x100: --codec dnxhr: FFmpeg's DNxHR encoder takes pictures of at least 256x120.", name)
            XCTAssertEqual(
                message(command, args + ["--codec", "hevc", "--size", "8x8", "-o", "/tmp/o.mp4"]),
                "--size 8x8: --codec hevc: libx265 takes pictures of at least 16x16.", name)
            XCTAssertEqual(message(command, args + ["--codec", "mpeg2", "-o", "/tmp/o.mp4"]).hasPrefix("The value 'mpeg2' is invalid for '--codec <h264|hevc|prores|dnxhr>'"), true, name)
        }
    }

    func testEveryCommandTakesTheSameOptionsWithTheSameHelp() {
        let commands: [ParsableCommand.Type] = [CompositeCommand.self, ConcatCommand.self, FilterCommand.self, ReverseCommand.self, SnakeCommand.self]
        let lines = [
            "--size <WxH>", "--fps <N[/D]>", "--hdr <hlg|pq>", "--tonemap <hable|mobius|reinhard|clip>", "--deinterlace <off|frame|field>",
            "--codec <h264|hevc|prores|dnxhr>", "--crf <N>", "--preset <ultrafast...placebo>"
        ]
        let help = commands.map { $0.helpMessage(columns: 400) }
        for line in lines {
            // The option's help line, as the first command prints it, is in every command's help.
            let first = help[0].split(separator: "\n").first { $0.contains(line) }.map(String.init)
            XCTAssertNotNil(first, line)
            for (i, h) in help.enumerated() { XCTAssertTrue(h.contains(first ?? "?"), "\(commands[i]._commandName): \(line)") }
        }
    }

    func testCommandsThatCannotHonourAnOptionSaySo() {
        // On the frame loop a reversal keeps its timeline at any rate (issue 43): --fps is taken.
        XCTAssertEqual(message(ReverseCommand.self, [short, "--fps", "25", "-o", "/tmp/o.mp4"]), "accepted")
        XCTAssertEqual(
            message(ReverseCommand.self, [short, "--deinterlace", "field", "-o", "/tmp/o.mp4"]),
            "reverse cannot honour --deinterlace field: it deinterlaces one picture per frame (--deinterlace frame, the default); make one picture per field with composite or concat first.")
        XCTAssertEqual(message(ReverseCommand.self, [short, "--deinterlace", "off", "--size", "640x480", "--hdr", "hlg", "-o", "/tmp/o.mp4"]), "accepted")
        XCTAssertEqual(
            message(FilterCommand.self, [short, "--variants", "mono;none", "--fps", "25", "-o", "/tmp/looks"]),
            "--variants cannot honour --fps: each variant keeps the input's timeline at its own rate.")
        XCTAssertEqual(
            message(FilterCommand.self, [short, "--variants", "mono;none", "--hdr", "hlg", "-o", "/tmp/looks"]),
            "--variants cannot honour --hdr hlg: filters work on the SDR working signal (8-bit BT.709).")
        XCTAssertEqual(
            message(SnakeCommand.self, [short, "--hdr", "hlg", "-o", "/tmp/o.mp4"]),
            "snake cannot honour --hdr hlg: the snake draws on the SDR working signal (8-bit BT.709).")
        XCTAssertEqual(
            message(ConcatCommand.self, [c0, "--copy", "--crf", "20", "-o", "/tmp/o.mp4"]),
            "--copy cannot be combined with --crf: copied video is not decoded or re-encoded.")
        XCTAssertEqual(
            message(ConcatCommand.self, [c0, "--copy", "--hdr", "hlg", "-o", "/tmp/o.mp4"]),
            "--copy cannot be combined with --hdr: copied video is not re-encoded, so its codec and signal are the clips'.")
        XCTAssertEqual(
            message(ConcatCommand.self, [c0, "--hdr", "hlg", "--filter", "mono", "-o", "/tmp/o.mp4"]),
            "--hdr hlg cannot be combined with filters: they work on the SDR working signal (8-bit BT.709); filter in SDR, or join without them.")
        XCTAssertEqual(
            message(CompositeCommand.self, ["--blend", "mix", short, short, "--codec", "hevc", "--frames", "0:6", "-o", "/tmp/o.mp4"]),
            "--codec hevc cannot be combined with --frames or --segments: segment renders are H.264 only.")
        XCTAssertEqual(
            message(FilterCommand.self, [short, "--filter", "mono", "--codec", "prores", "--segments", "2", "--slurm", "-o", "/tmp/o.mov"]),
            "--codec prores cannot be combined with --frames or --segments: segment renders are H.264 only.")
    }

    /// `concat --hdr hlg` was taken as a clip named "hlg" ("Error: hlg: no such file").
    func testConcatTakesTheHDROptions() {
        XCTAssertEqual(message(ConcatCommand.self, [c0, c0, "--hdr", "hlg", "--tonemap", "mobius", "-o", "/tmp/o.mp4"]), "accepted")
        XCTAssertEqual(message(ConcatCommand.self, [c0, c0, "--hdr", "pq", "--codec", "prores", "-o", "/tmp/o.mov"]), "accepted")
        XCTAssertEqual(message(ConcatCommand.self, [c0, "--deinterlace", "field", "-o", "/tmp/o.mp4"]), "accepted")
    }
}
