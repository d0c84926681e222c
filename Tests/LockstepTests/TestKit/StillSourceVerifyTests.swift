import Compositor
import Foundation
import Media
import TestSupport
import Verify
import XCTest

@testable import Lockstep

/// `verify` on renders of still footage: the pictures barely change, and that is what was
/// rendered (provenance "change"), so no frozen frame. A picture lost after rendering is still one.
final class StillSourceVerifyTests: ScratchTestCase {

    /// Two still inputs made by the ffmpeg CLI (not by us): a flat gray (lavfi color) and one
    /// testsrc2 picture looped by the image demuxer, each 2 s at 30 fps, libx264.
    func stillInputs() throws -> [String] {
        let gray = scratch.appendingPathComponent("gray.mp4").path
        _ = try Shell.check(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=gray:s=320x240:r=30", "-t", "2",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", gray
            ])
        let png = scratch.appendingPathComponent("still.png").path
        _ = try Shell.check("/usr/bin/ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240", "-frames:v", "1", png])
        let still = scratch.appendingPathComponent("still.mp4").path
        _ = try Shell.check(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-y", "-loop", "1", "-framerate", "30", "-i", png, "-t", "2",
                "-c:v", "libx264", "-tune", "stillimage", "-pix_fmt", "yuv420p", still
            ])
        return [gray, still]
    }

    func testACompositeOfStillInputsVerifiesClean() throws {
        let (out, result) = try compose(.mix, try stillInputs())
        XCTAssertEqual(result.frames, 60)
        let scan = try VerifyJob.scan(out.path)
        let changes = scan.frames.map { $0.provenance?.change }
        XCTAssertNil(changes[0], "frame 0 has nothing rendered before it")
        XCTAssertEqual(changes.dropFirst().compactMap { $0 }.count, 59, "\(changes)")
        XCTAssertTrue(changes.dropFirst().allSatisfy { ($0 ?? 99) < Checks.renderedChange }, "\(changes)")
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [])
        // The same file read as an older one (no "change"): today's rule flags it, so the clean
        // result above is the field's doing.
        var old = scan
        for k in old.frames.indices { old.frames[k].provenance?.change = nil }
        XCTAssertEqual(Checks.run(old).violations.first?.kind, .frozenFrame, "\(Checks.run(old).violations)")
    }

    func testAJoinOfStillSegmentsWithKeptProvenanceVerifiesClean() throws {
        // Two segment-like pieces (frames 0-29 and 30-59) joined by concat --copy keeping each
        // frame's record as written: "change" is kept, and absent on the second piece's first
        // frame (nothing rendered before it in its render), where its neighbours' measures
        // stand in: the Slurm join's case.
        let inputs = try stillInputs()
        var pieces: [String] = []
        for range in [FrameRange(start: 0, end: 30), FrameRange(start: 30, end: 60)] {
            let (out, _) = try compose(.mix, inputs) { $0.frames = range }
            pieces.append(out.path)
        }
        let joined = scratch.appendingPathComponent("joined.mp4").path
        _ = try ConcatCopy.join(pieces, into: joined, container: "mp4", provenance: .kept)
        let changes = try VerifyJob.scan(joined).frames.map { $0.provenance?.change }
        XCTAssertEqual(changes.indices.filter { changes[$0] == nil }, [0, 30], "\(changes)")
        let v = try VerifyJob(options: VerifyOptions(movie: joined)).run().violations
        XCTAssertEqual(v, [], "\(v)")
    }

    func testARenderedChangeTheFileLostIsStillFrozen() throws {
        // Written like Lockstep writes, provenance with "change": the renderer's pictures changed
        // by 20 levels a frame, but from frame 5 on the file repeats frame 4's picture.
        let path = scratch.appendingPathComponent("lost.mp4").path
        try VerifyCatchesBrokenMoviesTests.writeFrozenFromFrame5(path, change: 20)
        XCTAssertEqual(try VerifyJob.scan(path).frames.map { $0.provenance?.change }, [nil] + Array(repeating: 20, count: 7))
        XCTAssertEqual(
            try VerifyJob(options: VerifyOptions(movie: path)).run().violations,
            [
                Violation(
                    .frozenFrame, frame: 5, time: 5.0 / 30,
                    "output frames 5-7 are the same picture as frame 4 (to the end) although input 1 advanced from source frame 4 to 7")
            ])
    }

    /// Every picture after the first carries "change", below what verify counts as a rendered
    /// change except at `cuts` (where one still gives way to another), and verify finds nothing.
    func checkStillRender(_ path: String, frames: Int, cuts: Set<Int> = [], file: StaticString = #filePath, line: UInt = #line) throws -> Scan {
        let scan = try VerifyJob.scan(path)
        let changes = scan.frames.map { $0.provenance?.change }
        XCTAssertEqual(changes.count, frames, file: file, line: line)
        XCTAssertNil(changes.first ?? nil, "frame 0 has nothing rendered before it", file: file, line: line)
        XCTAssertEqual(changes.dropFirst().compactMap { $0 }.count, frames - 1, "\(changes)", file: file, line: line)
        for (k, change) in changes.enumerated().dropFirst() {
            XCTAssertEqual(change ?? .infinity >= Checks.renderedChange, cuts.contains(k), "frame \(k): change \(change ?? .nan)", file: file, line: line)
        }
        let v = try VerifyJob(options: VerifyOptions(movie: path)).run().violations
        XCTAssertEqual(v, [], "\(v)", file: file, line: line)
        return scan
    }

    func testConcatReverseAndVariantsOfStillFootageVerifyClean() throws {
        let inputs = try stillInputs()
        let joined = scratch.appendingPathComponent("concat.mp4").path
        _ = try ConcatJob(options: ConcatOptions(clips: inputs, output: joined)).run()
        // The second still starts at frame 60: the one rendered change.
        let scan = try checkStillRender(joined, frames: 120, cuts: [60])
        // Read as a file without "change", the stills are frozen frames: the field matters here too.
        var old = scan
        for k in old.frames.indices { old.frames[k].provenance?.change = nil }
        XCTAssertEqual(Checks.run(old).violations.first?.kind, .frozenFrame, "\(Checks.run(old).violations)")

        let reversed = scratch.appendingPathComponent("reverse.mp4").path
        var reverse = ReverseOptions(input: inputs[1], output: reversed)
        reverse.boomerang = true
        _ = try ReverseJob(options: reverse).run()
        // A boomerang of 60 frames: forward, then back with the turning frame shown once.
        _ = try checkStillRender(reversed, frames: 60 + 59)

        let folder = scratch.appendingPathComponent("variants")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let specs = try ["mono", "invert"].map { try FilterChainSpec(parsing: $0) }
        let result = try FilterVariantsJob(options: FilterVariantsOptions(input: inputs[1], folder: folder.path, chains: specs)).run()
        XCTAssertEqual(result.failed, [])
        for variant in result.variants { _ = try checkStillRender(variant.output, frames: 60) }
    }
}
