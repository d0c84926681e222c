import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

/// `filter --variants` and `--matte` on `filter` and `composite`: the exact sentences for bad
/// options (exit 64), and the built binary losing one variant but writing the others.
final class VariantsMatteCommandTests: ScratchFolderTestCase {
    var bg: String { Repository.fixture("bg.mp4") }
    var fg: String { Repository.fixture("fg.mp4") }

    func message<C: ParsableCommand>(_ type: C.Type, _ args: [String]) -> String {
        do { _ = try type.parse(args); return "accepted" } catch {
            XCTAssertEqual(type.exitCode(for: error).rawValue, 64, "\(args)")
            return type.message(for: error)
        }
    }

    func testBadVariantOptionsSayWhatIsWrong() throws {
        let dir = scratch.path
        XCTAssertEqual(
            message(FilterCommand.self, [bg, "-o", dir, "--variants", "mono;;invert"]),
            "--variants entry 2 is empty; expected CHAIN[;CHAIN...].")
        XCTAssertEqual(
            message(FilterCommand.self, [bg, "-o", dir, "--variants", "mono;blurr"]),
            "--variants entry 2 (\"blurr\"): unknown filter \"blurr\"; valid filters: rosy, mono, sepia, invert, brightness, contrast, saturation, exposure, gamma, hue, posterize, vignette, pixellate, blur, sharpen, edges, lut."
        )
        XCTAssertEqual(
            message(FilterCommand.self, [bg, "-o", dir, "--variants", "mono", "--filter", "invert"]),
            "--variants cannot be combined with --filter or --filter-at; each variant is a whole chain.")
        // A missing folder is made (issue 41); a missing parent is not.
        XCTAssertEqual(message(FilterCommand.self, [bg, "-o", dir + "/nope", "--variants", "mono"]), "accepted")
        XCTAssertEqual(
            message(FilterCommand.self, [bg, "-o", dir + "/nope/deeper", "--variants", "mono"]),
            "-o \(dir)/nope/deeper: --variants writes one file per chain into a folder, and there is no folder \(dir)/nope to make it in.")
        try "x".write(toFile: dir + "/file", atomically: true, encoding: .utf8)
        XCTAssertEqual(
            message(FilterCommand.self, [bg, "-o", dir + "/file", "--variants", "mono"]),
            "-o \(dir)/file: --variants writes one file per chain into a folder, and \(dir)/file is a file.")
        XCTAssertEqual(
            message(FilterCommand.self, [bg, "-o", dir, "--variants", "mono;mono"]),
            "--variants entries 1 and 2 (\"mono\", \"mono\") would both write \(dir)/mono.mp4.")
        XCTAssertEqual(
            message(FilterCommand.self, [bg, "-o", dir, "--variants", "mono", "--matte", fg]),
            "--variants cannot be combined with --matte.")
        XCTAssertEqual(message(FilterCommand.self, [bg, "-o", dir, "--variants", "mono;invert"]), "accepted")
    }

    func testBadMatteOptionsSayWhatIsWrong() {
        let out = scratch.appendingPathComponent("o.mp4").path
        XCTAssertEqual(
            message(FilterCommand.self, [bg, "-o", out, "--filter", "mono", "--mix-factor", "0.5"]),
            "--mix-factor scales the matte: it needs --matte MATTE.")
        XCTAssertEqual(
            message(FilterCommand.self, [bg, "-o", out, "--filter", "mono", "--matte", fg, "--mix-factor", "2"]),
            "--mix-factor must be between 0 and 1; got 2.0.")
        XCTAssertEqual(
            message(FilterCommand.self, [bg, "-o", out, "--filter", "mono", "--matte", "/no/such.mp4"]),
            "--matte /no/such.mp4: no such file.")
        XCTAssertEqual(
            message(CompositeCommand.self, ["--blend", "mix", "-o", out, fg, bg, "--matte", fg]),
            "--matte is the foreground's alpha: it needs --blend chromakey or stack; got mix.")
        XCTAssertEqual(
            message(CompositeCommand.self, ["--blend", "chromakey", "-o", out, fg, bg, "--matte-mode", "multiply"]),
            "--matte-mode needs --matte MATTE.")
        XCTAssertTrue(
            message(CompositeCommand.self, ["--blend", "chromakey", "-o", out, fg, bg, "--matte", fg, "--matte-mode", "add"])
                .hasPrefix("The value 'add' is invalid for '--matte-mode <replace|multiply>'"))
        XCTAssertEqual(message(CompositeCommand.self, ["--blend", "chromakey", "-o", out, fg, bg, "--matte", fg, "--matte-mode", "multiply"]), "accepted")
    }

    func testTheBinaryWritesTheVariantsThatWorkAndNamesTheOneThatFailed() throws {
        let dir = scratch.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        let cube = try file("bad.cube", "LUT_3D_SIZE 2\nDOMAIN_MIN 0 0\n")
        let r = try Processes.lockstep(["filter", bg, "-o", dir + "/", "--variants", "rosy;lut:file=\(cube);invert"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(
            r.stderr,
            "Error: variant \"lut:file=\(cube)\" failed, \(dir)/lut-file-\(cube.replacingOccurrences(of: "/", with: "_")).mp4 not written: "
                + "\(cube):2: DOMAIN_MIN needs three numbers; got \"0 0\"\n")
        XCTAssertEqual(
            r.stdout,
            "wrote \(dir)/rosy.mp4: 90 frames, 320x240 at 30 fps, 3.000 s, audio 3.000 s\n"
                + "wrote \(dir)/invert.mp4: 90 frames, 320x240 at 30 fps, 3.000 s, audio 3.000 s\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["invert.mp4", "rosy.mp4"])
        for name in ["rosy.mp4", "invert.mp4"] {
            let verify = try Processes.lockstep(["verify", dir + "/" + name])
            XCTAssertEqual(verify.status, 0, verify.stdout)
        }
    }
}
