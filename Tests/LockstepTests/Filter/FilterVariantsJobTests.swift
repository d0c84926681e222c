import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// What the variants tests share: the chains, an independent clip, and the one-pass check.
class FilterVariantsTestCase: ScratchTestCase {
    let chains = ["rosy", "mono", "sepia:intensity=0.5,invert", "lut:file=CUBE"]

    /// Every frame's yuv420p bytes, decoded by the ffmpeg CLI.
    func decoded(_ url: URL) throws -> [UInt8] { try decoded([url])[0] }

    /// `decoded` of each movie, from one run of the ffmpeg CLI (an input and an output per movie,
    /// each output with the options of a run of its own, to a temporary file): one launch, not one per movie.
    func decoded(_ urls: [URL]) throws -> [[UInt8]] {
        let raws = urls.map { _ in FileManager.default.temporaryDirectory.appendingPathComponent("variants-\(UUID().uuidString.prefix(8)).yuv") }
        defer { for raw in raws { try? FileManager.default.removeItem(at: raw) } }
        var args = ["-nostdin", "-v", "error"]
        for url in urls { args += ["-i", url.path] }
        for (i, raw) in raws.enumerated() {
            args += ["-map", "\(i):v:0", "-fps_mode", "passthrough", "-pix_fmt", "yuv420p", "-f", "rawvideo", raw.path]
        }
        try Processes.check("ffmpeg", args)
        return try raws.map { [UInt8](try Data(contentsOf: $0)) }
    }

    func cube() throws -> String {
        // A hand-written 2-point LUT that swaps red and blue.
        let path = scratch.appendingPathComponent("swap.cube").path
        var text = "TITLE \"swap\"\nLUT_3D_SIZE 2\n"
        for b in 0...1 { for g in 0...1 { for r in 0...1 { text += "\(b) \(g) \(r)\n" } } }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// An input made by the ffmpeg CLI (another generator than our barcoded fixtures): moving
    /// colour bars with a tone, 24 frames at 24 fps, 160x96 (one pass against separate runs is
    /// byte equality, which neither the size nor the length makes easier to meet).
    func independentClip() throws -> String {
        let path = scratch.appendingPathComponent("bars.mp4").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x96:r=24:d=1",
                "-f", "lavfi", "-i", "sine=f=660:d=1", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                "-c:a", "aac", "-shortest", path
            ])
        return path
    }

    /// The decoded pictures of one separate run per chain (the reference for the one-pass runs):
    /// `inProcess` runs `CompositeJob` here, else `lockstep filter` runs in a process of its own,
    /// as a user runs it.
    ///
    /// Issue 27: an in-process separate run in a test process that had already run other suites
    /// now and then coded one macroblock differently from frame 21-31 on (1-2 levels off, growing
    /// to 20-39 through prediction), with every picture and pts handed to the encoder equal.
    /// Slice threads made it rarer, not gone: x264's MB-tree read buffers it never wrote, so the
    /// heap's leftovers decided (`MovieWriter.x264Options`, which turns MB-tree off). The default
    /// test compares both kinds of separate run with each other and with the one pass, and the
    /// repeat harness does so 50 times in one process.
    func separateRuns(
        input: String, specs: [FilterChainSpec], expectedFrames: Int64, inProcess: Bool = false,
        run: Int = 0
    ) throws -> [[UInt8]] {
        let outputs = try specs.enumerated().map { i, spec in
            let one = scratch.appendingPathComponent("separate-\(inProcess ? "job" : "cli")-\(run)-\(i).mp4")
            if inProcess {
                let single = try CompositeJob(options: .filter(input: input, output: one.path, schedule: FilterSchedule(initial: spec))).run()
                XCTAssertEqual(single.frames, expectedFrames)
            } else {
                let r = try Processes.lockstep(["filter", input, "--filter", spec.text, "-o", one.path])
                XCTAssertEqual(r.status, 0, r.stderr)
                XCTAssertTrue(r.stdout.contains(": \(expectedFrames) frames,"), r.stdout)
            }
            return one
        }
        return try decoded(outputs)
    }

    /// The separate runs made in this process equal those made by the CLI, picture for picture.
    func checkInProcessRuns(
        input: String, specs: [FilterChainSpec], reference: [[UInt8]], expectedFrames: Int64,
        canvas: (width: Int, height: Int), run: Int = 0
    ) throws {
        let here = try separateRuns(input: input, specs: specs, expectedFrames: expectedFrames, inProcess: true, run: run)
        for (i, spec) in specs.enumerated() where here[i] != reference[i] {
            XCTFail("run \(run), \(spec.text): a separate run in this process differs from the CLI's \(difference(here[i], reference[i], canvas: canvas))")
        }
    }

    /// Where two decoded movies first differ and by how much.
    func difference(_ a: [UInt8], _ b: [UInt8], canvas: (width: Int, height: Int)) -> String {
        guard a.count == b.count else { return "in length: \(a.count) and \(b.count) bytes" }
        let frameBytes = canvas.width * canvas.height * 3 / 2
        let first = (0..<a.count).first { a[$0] != b[$0] } ?? a.count
        let offset = first % frameBytes, luma = canvas.width * canvas.height
        let plane = offset < luma ? "Y" : offset < luma * 5 / 4 ? "U" : "V"
        return "from frame \(first / frameBytes), plane \(plane), by up to \(PixelDifference.maxAbsolute(a, b)) levels"
    }

    /// One pass of every chain, whose decoded pictures must equal the separate runs' byte for
    /// byte: the same pictures into the same encoder with the same settings (x264 without
    /// MB-tree is repeatable, on any number of threads), so the bound is 0. A difference names the first frame, plane and the
    /// largest step, and keeps the one-pass files for a look.
    func checkOnePass(
        input: String, specs: [FilterChainSpec], separate: [[UInt8]], expectedFrames: Int64, samples: Int64,
        canvas: (width: Int, height: Int), run: Int = 0
    ) throws {
        let folder = scratch.appendingPathComponent("variants-\(run)-\(UUID().uuidString.prefix(4))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let result = try FilterVariantsJob(options: FilterVariantsOptions(input: input, folder: folder.path, chains: specs)).run()
        XCTAssertEqual(result.failed, [])
        XCTAssertEqual(result.frames, expectedFrames)
        XCTAssertEqual(result.audioSamples, samples)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(names, ["sepia-intensity-0.5+invert.mp4", FilterVariantsOptions.fileName(for: specs[3].text), "mono.mp4", "rosy.mp4"].sorted())
        let onePass = try decoded(result.variants.map { URL(fileURLWithPath: $0.output) })
        for (i, spec) in specs.enumerated() {
            let a = onePass[i], b = separate[i]
            XCTAssertEqual(a.count, b.count, spec.text)
            guard a != b else { continue }
            let kept = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-variants-mismatch-\(UUID().uuidString.prefix(8))")
            try? FileManager.default.copyItem(at: folder, to: kept)
            XCTFail(
                "run \(run), \(spec.text): one pass differs from the separate run \(difference(a, b, canvas: canvas)); "
                    + "the one-pass files are kept in \(kept.path)")
        }
        // The chain is the variant's own, in provenance on every frame.
        let recorded = try VerifyJob.scan(result.variants[2].output).frames.compactMap(\.provenance).map { $0.filter ?? "?" }
        XCTAssertEqual(recorded, Array(repeating: specs[2].text, count: Int(expectedFrames)))
        // The chains differ: the files are not all the same picture (their decodes above).
        XCTAssertNotEqual(onePass[0], onePass[1])
    }

    func specs() throws -> [FilterChainSpec] {
        try chains.map { try FilterChainSpec(parsing: $0.replacingOccurrences(of: "CUBE", with: try cube())) }
    }

    /// `inProcess`: also compare separate runs made in this process with the CLI's (issue 27).
    func checkOnePassEqualsSeparateRuns(
        input: String, expectedFrames: Int64, samples: Int64, canvas: (width: Int, height: Int), inProcess: Bool = true
    ) throws {
        let specs = try specs()
        let separate = try separateRuns(input: input, specs: specs, expectedFrames: expectedFrames)
        if inProcess {
            try checkInProcessRuns(input: input, specs: specs, reference: separate, expectedFrames: expectedFrames, canvas: canvas)
        }
        try checkOnePass(input: input, specs: specs, separate: separate, expectedFrames: expectedFrames, samples: samples, canvas: canvas)
    }

}

/// `filter --variants`: one pass gives the pictures of separate runs, one file per chain, and a
/// variant that fails loses only its own file.
final class FilterVariantsJobTests: FilterVariantsTestCase {
    func testFourVariantsInOnePassMatchFourSeparateRuns() throws {
        try checkOnePassEqualsSeparateRuns(input: Fixtures.url("bg.mp4").path, expectedFrames: 90, samples: 90 * 1600, canvas: (320, 240))
    }

    /// The one pass against the CLI's separate runs; the in-process separate runs (issue 27:
    /// the same code path whatever the input) are compared with the CLI's on bg.mp4 above.
    func testFourVariantsOfAClipMadeByTheFFmpegCLI() throws {
        try checkOnePassEqualsSeparateRuns(input: try independentClip(), expectedFrames: 24, samples: 48_000, canvas: (160, 96), inProcess: false)
    }

    /// A variant whose .cube is malformed fails at setup and loses only its own file; the
    /// others are written in full.
    func testAFailingVariantLosesOnlyItsOwnFile() throws {
        let folder = scratch.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bad = scratch.appendingPathComponent("bad.cube").path
        try "LUT_3D_SIZE 2\n0 0 0\n1 x 0\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let specs = try ["rosy", "lut:file=\(bad)", "invert"].map { try FilterChainSpec(parsing: $0) }
        let result = try FilterVariantsJob(options: FilterVariantsOptions(input: Fixtures.url("bg.mp4").path, folder: folder.path, chains: specs)).run()
        XCTAssertEqual(result.frames, 90)
        XCTAssertEqual(result.failed.map(\.chain), ["lut:file=\(bad)"])
        XCTAssertTrue(result.variants[1].failure?.hasPrefix("\(bad):3:") ?? false, result.variants[1].failure ?? "")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(names, ["invert.mp4", "rosy.mp4"])
        for name in ["rosy.mp4", "invert.mp4"] {
            XCTAssertEqual(try VerifyJob.scan(folder.appendingPathComponent(name).path).frames.count, 90, name)
        }
    }

    /// A folder under one variant's name is refused before any work (it used to fail only at
    /// the end, as "cannot move the finished file into place"); nothing is written, the folder stays.
    func testAFolderUnderAVariantsNameIsRefusedBeforeAnyWork() throws {
        let folder = scratch.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("mono.mp4"), withIntermediateDirectories: true)
        let specs = try ["rosy", "mono"].map { try FilterChainSpec(parsing: $0) }
        XCTAssertThrowsError(try FilterVariantsJob(options: FilterVariantsOptions(input: Fixtures.url("bg.mp4").path, folder: folder.path, chains: specs)).run()) {
            XCTAssertEqual("\($0)", "\(folder.appendingPathComponent("mono.mp4").path) is a folder; give a file name.")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["mono.mp4"])
        var isFolder: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("mono.mp4").path, isDirectory: &isFolder) && isFolder.boolValue)
    }

    func testFileNamesAreSafe() {
        XCTAssertEqual(FilterVariantsOptions.fileName(for: "blur:radius=3,mono"), "blur-radius-3+mono.mp4")
        XCTAssertEqual(FilterVariantsOptions.fileName(for: "lut:file=/a b/x.cube"), "lut-file-_a_b_x.cube.mp4")
        XCTAssertEqual(FilterVariantsOptions.fileName(for: "none"), "none.mp4")
        XCTAssertEqual(FilterVariantsOptions.fileName(for: "lut:file=é"), "lut-file-_.mp4")
    }

    func testVariantsParseAndCheck() throws {
        XCTAssertThrowsError(try FilterVariantsOptions.parse("mono;;invert")) {
            XCTAssertEqual("\($0)", "--variants entry 2 is empty; expected CHAIN[;CHAIN...].")
        }
        XCTAssertThrowsError(try FilterVariantsOptions.parse("mono;blur:size=2")) {
            XCTAssertEqual("\($0)", "--variants entry 2 (\"blur:size=2\"): filter blur has no parameter \"size\"; valid parameters: radius.")
        }
        let same = try FilterVariantsOptions.parse("hue:degrees=30;hue:degrees=30")
        XCTAssertThrowsError(try FilterVariantsOptions(input: "in.mp4", folder: scratch.path, chains: same).check()) {
            XCTAssertEqual("\($0)", "--variants entries 1 and 2 (\"hue:degrees=30\", \"hue:degrees=30\") would both write \(self.scratch.path)/hue-degrees-30.mp4.")
        }
    }
}

/// Issue 27's repeat harness: LOCKSTEP_REPEAT times (default 50) in one process, the separate
/// runs made again in this process and the one-pass variants, each compared byte for byte with
/// the CLI's separate runs made once. scripts/tools/repeat-variants runs it alone and after other job
/// suites in the same process (where x264 with MB-tree differed in one round of 10-30).
final class FilterVariantsRepeatSlowTests: FilterVariantsTestCase {
    func testOnePassAndInProcessRunsMatchTheCLIEveryTime() throws {
        let runs = Int(ProcessInfo.processInfo.environment["LOCKSTEP_REPEAT"] ?? "") ?? 50
        let input = Fixtures.url("bg.mp4").path
        let specs = try specs()
        let reference = try separateRuns(input: input, specs: specs, expectedFrames: 90)
        for run in 1...runs {
            try checkInProcessRuns(input: input, specs: specs, reference: reference, expectedFrames: 90, canvas: (320, 240), run: run)
            try checkOnePass(
                input: input, specs: specs, separate: reference, expectedFrames: 90, samples: 90 * 1600,
                canvas: (320, 240), run: run)
        }
        print("FilterVariantsRepeatSlowTests: \(runs) rounds of four in-process separate runs and a one-pass run, compared with the CLI's")
    }
}
