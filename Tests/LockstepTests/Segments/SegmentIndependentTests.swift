import Compositor
import Foundation
import Media
import TestSupport
import XCTest

@testable import Lockstep

/// Segments of inputs made by the ffmpeg CLI with conventions of their own (not make-fixtures'):
/// 25 fps, x264's medium preset (B-frames, pyramid), GOPs of 50 and 37 frames, a Matroska input
/// with AAC and a MOV input with PCM audio, under `--sync time`. The segments start past the
/// inputs' first GOPs, so every input is opened by a real seek.
final class SegmentIndependentTests: ScratchTestCase {
    func makeInputs() throws -> [String] {
        let a = scratch.appendingPathComponent("a.mkv").path, b = scratch.appendingPathComponent("b.mov").path
        try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=s=160x120:r=25:d=6",
                "-f", "lavfi", "-i", "sine=f=440:r=48000:d=6",
                "-c:v", "libx264", "-preset", "medium", "-g", "50", "-c:a", "aac", "-ac", "2", a
            ])
        try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=5.6",
                "-f", "lavfi", "-i", "sine=f=660:r=48000:d=5.6",
                "-c:v", "libx264", "-preset", "medium", "-bf", "2", "-g", "37", "-c:a", "pcm_s16le", b
            ])
        return [a, b]
    }

    func testSegmentsOfCLIMadeInputsEqualTheSinglePass() throws {
        let inputs = try makeInputs()
        func render(_ name: String, _ frames: FrameRange?) throws -> (URL, CompositeResult) {
            try self.render(.mix, inputs, name, frames: frames) { $0.sync = .time }
        }
        let (single, full) = try render("single.mkv", nil)
        XCTAssertEqual(full.frames, 140)  // b ends at 5.6 s
        // Decoding starts at a keyframe before the first frame, never at the start: at most the
        // segment, a GOP of a's (50) and the decoder's delay.
        let (segments, records) = try renderSegments(cuts: [0, 60, 110, full.frames], extraDecoded: 50 + 10) { try render($0, $1) }
        let samples = try segments.flatMap { try SegmentRenderTests.samples($0) }
        let singleRecords = try SegmentRenderTests.provenance(single)
        XCTAssertEqual(SegmentRenderTests.picks(records), SegmentRenderTests.picks(singleRecords))
        // Not bit-exact: FFmpeg's AAC encoder uses perceptual noise substitution, and the
        // decoder's noise generator runs on from the file's start; after a seek its state
        // differs (measured: at most 6.3e-6 of full scale, -104 dBFS). PCM and the tone
        // fixtures' AAC compare exactly (SegmentRenderTests).
        let reference = try SegmentRenderTests.samples(single)
        XCTAssertEqual(samples.count, reference.count)
        let worst = zip(samples, reference).map { abs(Double($0) - Double($1)) / Double(Int32.max) }.max() ?? 1
        XCTAssertLessThan(worst, 1e-4, "largest difference from the single pass")

        // The pictures: each joined frame is the single pass's frame k (closer to it than to
        // its neighbours; the two encodes differ only by x264's rounding).
        let joined = scratch.appendingPathComponent("joined.mp4")
        _ = try ConcatCopy.join(segments.map(\.path), into: joined.path, container: "mp4", provenance: .kept)
        let mine = try LumaVideo.decode(joined), theirs = try LumaVideo.decode(single)
        XCTAssertEqual(mine.frames.count, theirs.frames.count)
        // The mean absolute difference, in TestSupport's optimised loop (here, at -Onone, the
        // 420 comparisons of 19,200 samples each were most of the test's time).
        func distance(_ x: [UInt8], _ y: [UInt8]) -> Double { PixelDifference.meanAbsolute(x, y) }
        for k in 0..<min(mine.frames.count, theirs.frames.count) {
            let d = distance(mine.frames[k], theirs.frames[k])
            XCTAssertLessThan(d, 2, "frame \(k)")
            for n in [k - 1, k + 1] where theirs.frames.indices.contains(n) {
                XCTAssertLessThan(d, distance(mine.frames[k], theirs.frames[n]), "frame \(k) is closer to the single pass's \(n)")
            }
        }
        let (v, a) = try SegmentRenderTests.durations(joined)
        XCTAssertEqual(v, 5.6, accuracy: 0.001)
        XCTAssertEqual(a, 5.6, accuracy: 0.001)
    }
}
