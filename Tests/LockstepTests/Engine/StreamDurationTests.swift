import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// MovieWriter gives every video packet its frame's duration (x264 in FFmpeg 5.1 sets none), so
/// the video stream's duration, as ffprobe (the outside checker) reads it, is exactly
/// frames/fps; a variable-rate source reversed keeps its timeline at its nominal rate, so it
/// ends where the source does (before issue 43 it was written in the source's time base, and
/// one nominal frame on the last packet ended it 27 ms early).
final class StreamDurationTests: ScratchTestCase {
    func testVariableRateReversalEndsWhereItsLastFrameDoes() throws {
        let out = scratch.appendingPathComponent("vfr-reversed.mp4")
        var options = ReverseOptions(input: Fixtures.url("reverse/vfr.mp4").path, output: out.path)
        options.poolFrames = 8
        options.audio = .none
        _ = try ReverseJob(options: options).run()
        let video = try XCTUnwrap(Probe.streams(out).first { $0.codecType == "video" })
        // 20 frames of 1/60 s, 20 of 1/15 s, 20 of 1/30 s: 7/3 s, kept at the nominal 30 fps (70 frames).
        XCTAssertEqual(video.nbReadFrames, 70)
        XCTAssertEqual(try XCTUnwrap(video.duration), 20.0 / 60 + 20.0 / 15 + 20.0 / 30, accuracy: 0.001)
    }

    func testConstantRateCompositeLastsItsFramesOverTheRate() throws {
        let out = scratch.appendingPathComponent("single.mp4")
        let options = CompositeOptions(inputs: [Fixtures.url("q0.mp4").path], output: out.path, blend: .single)
        let result = try CompositeJob(options: options).run()
        let video = try XCTUnwrap(Probe.streams(out).first { $0.codecType == "video" })
        XCTAssertEqual(video.nbReadFrames, Int(result.frames))
        XCTAssertEqual(try XCTUnwrap(video.duration), (result.frameRate.inverse * result.frames).seconds, accuracy: 0.001)
    }
}
