import ArgumentParser
import Foundation
import TestSupport
import XCTest

@testable import LockstepCLI

/// `lockstep filter`: the exact sentences for bad options, `--list`, and the built binary's exit
/// codes and output.
final class FilterCommandTests: ScratchFolderTestCase {
    var bg: String { Repository.fixture("bg.mp4") }

    func message(_ args: [String]) -> String {
        do { _ = try FilterCommand.parse(args); return "accepted" } catch { return FilterCommand.message(for: error) }
    }

    func testBadOptionsSayWhatIsWrong() {
        XCTAssertEqual(
            message([bg, "-o", "/tmp/f.mp4", "--filter", "sepia,blurr"]),
            "--filter: unknown filter \"blurr\"; valid filters: rosy, mono, sepia, invert, brightness, contrast, saturation, exposure, gamma, hue, posterize, vignette, pixellate, blur, sharpen, edges, lut."
        )
        XCTAssertEqual(
            message([bg, "-o", "/tmp/f.mp4", "--filter", "blur:size=3"]),
            "--filter: filter blur has no parameter \"size\"; valid parameters: radius.")
        XCTAssertEqual(
            message([bg, "-o", "/tmp/f.mp4", "--filter-at", "1=mono;0.5=invert"]),
            "--filter-at entry 2 (\"0.5=invert\"): 0.5 s is not after entry 1's 1 s; times must increase.")
        XCTAssertEqual(
            message([bg, "-o", "/tmp/f.mp4"]),
            "--filter CHAIN or --filter-at T=CHAIN is needed; `lockstep filter --list` prints the presets.")
        XCTAssertEqual(message(["-o", "/tmp/f.mp4", "--filter", "mono"]), "an input movie is needed (or --list).")
        XCTAssertEqual(message([bg, "-o", "/tmp/f.mp4", "--filter", "mono", "--crf", "60"]), "--crf must be between 0 and 51; got 60.")
        XCTAssertEqual(message([bg, "-o", "/tmp/f.mp4", "--filter", "mono"]), "accepted")
        XCTAssertEqual(message(["--list"]), "accepted")
    }

    func testTheBinaryListsFiltersAndFiltersAMovie() throws {
        let list = try Processes.lockstep(["filter", "--list"])
        XCTAssertEqual(list.status, 0)
        XCTAssertTrue(list.stdout.hasPrefix("rosy        the green channel removed (AVCamFilter's Rosy)\n"), list.stdout)
        XCTAssertTrue(list.stdout.contains("\nblur        gaussian blur of standard deviation radius pixels (separable)\n            radius=2 (0.3 to 50)\n"), list.stdout)

        let bad = try Processes.lockstep(["filter", bg, "-o", scratch.appendingPathComponent("x.mp4").path, "--filter", "nope"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.hasPrefix("Error: --filter: unknown filter \"nope\"; valid filters: rosy, "), bad.stderr)

        let out = scratch.appendingPathComponent("f.mp4").path
        let r = try Processes.lockstep(["filter", bg, "-o", out, "--filter", "rosy", "--filter-at", "1.5=invert"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "wrote \(out): 90 frames, 320x240 at 30 fps, 3.000 s, audio 3.000 s\n")
        let verify = try Processes.lockstep(["verify", out])
        XCTAssertEqual(verify.status, 0, verify.stdout)

        let cube = try file("bad.cube", "LUT_3D_SIZE 2\nDOMAIN_MIN 0 0\n")
        let failed = try Processes.lockstep(["filter", bg, "-o", scratch.appendingPathComponent("g.mp4").path, "--filter", "lut:file=\(cube)"])
        XCTAssertEqual(failed.status, 1)
        XCTAssertEqual(failed.stderr, "Error: \(cube):2: DOMAIN_MIN needs three numbers; got \"0 0\"\n")
        XCTAssertEqual(try leftovers(), ["bad.cube", "f.mp4"])
    }
}
