import Compositor
import Foundation
import Media
import TestSupport
import XCTest

@testable import Lockstep

/// Segments of MP4 inputs whose frame order comes from the sample table: one without B-frames
/// cut with `-ss ... -c copy` (an edit list starting mid-GOP, 13 samples decoded but never
/// shown) and one with x264's B-frames (`ctts`) and AAC, under `--sync index`, so frame k of each input must be the k-th picture
/// decoding from the start shows. The segments' picks equal the single pass's.
final class SegmentSampleTableTests: ScratchTestCase {
    func testSegmentsOfTableIndexedInputsEqualTheSinglePass() throws {
        let src = scratch.appendingPathComponent("src.mp4").path, cut = scratch.appendingPathComponent("cut.mp4").path
        let b = scratch.appendingPathComponent("b.mp4").path
        try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=6",
                "-c:v", "libx264", "-bf", "0", "-g", "20", "-sc_threshold", "0", src
            ])
        try Shell.check("ffmpeg", ["-nostdin", "-v", "error", "-ss", "0.52", "-i", src, "-c", "copy", cut])
        try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=s=160x120:r=25:d=5",
                "-f", "lavfi", "-i", "sine=f=440:r=48000:d=5",
                "-c:v", "libx264", "-g", "30", "-c:a", "aac", "-ac", "2", b
            ])
        // What a scale-out plans from: the frames shown, not the samples the cut's index lists.
        XCTAssertEqual(CompositeJob.expectedFrames([try MovieReader(path: cut, audio: false)], sync: .index, frameRate: Rational(25, 1)), 137)
        for path in [cut, b] {
            let reader = try MovieReader(path: path, audio: false)
            _ = try reader.keyframeIndex()
            XCTAssertEqual(reader.keyframeIndexSource, .sampleTable, path)
        }
        func render(_ name: String, _ frames: FrameRange?) throws -> (URL, CompositeResult) {
            try self.render(.mix, [cut, b], name, frames: frames) { $0.sync = .index }
        }
        let (single, full) = try render("single.mkv", nil)
        XCTAssertEqual(full.frames, 125)  // b's 125 frames; the cut keeps 150 - 13 = 137
        // Past the first segment, at most its frames, a GOP of b's (30) and the decoder's delay.
        let (_, records) = try renderSegments(cuts: [0, 50, 100, full.frames], extraDecoded: 30 + 10) { try render($0, $1) }
        let reference = try SegmentRenderTests.provenance(single)
        XCTAssertEqual(records.count, 125)
        XCTAssertEqual(SegmentRenderTests.picks(records), SegmentRenderTests.picks(reference))
    }
}
