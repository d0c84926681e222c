import Compositor
import Foundation
import Media
import TestSupport
import XCTest

@testable import Lockstep

/// `--copy`: the video packets are the clips' own bytes, in order, retimed; the audio is encoded
/// once and its joins are where the video's are.
final class ConcatCopyTests: ScratchTestCase {
    func path(_ name: String) -> String { Fixtures.url("concat/" + name).path }

    /// Per-packet MD5 of the first video stream, as ffmpeg's framemd5 muxer lists them (copied,
    /// not decoded), with every SEI NAL unit taken out by ffmpeg's filter_units: the copy puts
    /// Lockstep's provenance SEI into each packet, and everything else must be the clip's bytes.
    func packetHashes(_ url: String) throws -> [String] {
        let text = String(
            decoding: try Shell.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-i", url, "-map", "0:v:0", "-c", "copy",
                    "-bsf:v", "filter_units=remove_types=6", "-f", "framemd5", "-"
                ]), as: UTF8.self)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    func testCopyJoinsThePacketsAsStoredAndTheAudioSampleExact() throws {
        let out = scratch.appendingPathComponent("copy.mp4")
        var options = ConcatOptions(clips: [path("x0.mp4"), path("x1.mp4")], output: out.path)
        options.copy = true
        let result = try ConcatJob(options: options).run()
        XCTAssertEqual(result.clipFrames, [30, 24])
        XCTAssertEqual(try packetHashes(out.path), try packetHashes(path("x0.mp4")) + packetHashes(path("x1.mp4")))
        let streams = try Probe.streams(out)
        let v = try XCTUnwrap(streams.first { $0.codecType == "video" }), a = try XCTUnwrap(streams.first { $0.codecType == "audio" })
        XCTAssertEqual(v.nbReadFrames, 54)
        XCTAssertEqual(try XCTUnwrap(v.duration), 1.8, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(a.duration), 1.8, accuracy: 1e-6)
        XCTAssertEqual(result.audioSamples, 86_400)
        // Every frame decodes to its own identity: x0 is source 0, x1 source 1, both 320x240.
        let video = try LumaVideo.decode(out)
        let seen = video.frames.enumerated().map { k, f in Barcode.read(f, width: video.width, region: .band(k < 30 ? 0 : 1)) }
        for k in 0..<54 {
            let want = k < 30 ? (0, k) : (1, k - 30)
            XCTAssertTrue(seen[k].map { $0 == want } ?? false, "frame \(k): \(String(describing: seen[k]))")
        }
        // Frame times are k/30 from 0: the second clip starts where the first ends.
        let pts = try VideoTimestamps.pts(out)
        XCTAssertEqual(pts.count, 54)
        for (k, t) in pts.enumerated() { XCTAssertEqual(t, Double(k) / 30, accuracy: 1e-4, "frame \(k)") }
        // The 660 Hz of x1 starts at 1.0 s, not before; x0's 440 Hz ends there.
        let s = try AudioAnalysis.decodeMono(out)
        XCTAssertGreaterThan(AudioAnalysis.goertzelPower(s[48_480..<86_000], frequency: 660, rate: 48000), 1e-3)
        XCTAssertLessThan(AudioAnalysis.goertzelPower(s[48_480..<86_000], frequency: 440, rate: 48000), 1e-6)
        XCTAssertGreaterThan(AudioAnalysis.goertzelPower(s[0..<47_500], frequency: 440, rate: 48000), 1e-3)
    }

    func testCopyRefusesClipsWithOtherCodecParameters() throws {
        let out = scratch.appendingPathComponent("copy.mp4")
        var options = ConcatOptions(clips: [path("x0.mp4"), path("x2.mp4")], output: out.path)
        options.copy = true
        XCTAssertThrowsError(try ConcatJob(options: options).run()) { error in
            XCTAssertEqual("\(error)", "\(path("x2.mp4")): cannot be joined by copy to \(path("x0.mp4")): its profile is Constrained Baseline, the first clip's High")
        }
        XCTAssertEqual(try leftovers(), [])
        var sizes = ConcatOptions(clips: [path("x0.mp4"), path("c1.mp4")], output: out.path)
        sizes.copy = true
        XCTAssertThrowsError(try ConcatJob(options: sizes).run()) { error in
            XCTAssertEqual("\(error)", "\(path("c1.mp4")): cannot be joined by copy to \(path("x0.mp4")): its picture size is 256x144, the first clip's 320x240")
        }
    }

    func testCopyRefusesAClipThatDoesNotStartWithAKeyframe() throws {
        // The first second of x0 cut off by copy at a non-key packet: its first packet is not a keyframe.
        let cut = scratch.appendingPathComponent("cut.mp4").path
        try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-i", path("x0.mp4"), "-map", "0:v", "-c", "copy",
                "-bsf:v", "noise=drop='lt(n,5)'", cut
            ])
        let out = scratch.appendingPathComponent("copy.mp4")
        var options = ConcatOptions(clips: [path("x0.mp4"), cut], output: out.path)
        options.copy = true
        XCTAssertThrowsError(try ConcatJob(options: options).run()) { error in
            XCTAssertEqual("\(error)", "\(cut): cannot be joined by copy: it does not start with a keyframe")
        }
        XCTAssertEqual(try leftovers(), ["cut.mp4"])
    }

    /// A truncated clip in the middle (same encoder settings, so the copy check lets it through):
    /// found when its packets run out before its index does; nothing is left.
    func testCopyStopsAtATruncatedClipInTheMiddle() throws {
        let out = scratch.appendingPathComponent("copy.mp4")
        let truncated = Fixtures.url("truncated.mp4").path
        var options = ConcatOptions(clips: [path("x0.mp4"), truncated, path("x1.mp4")], output: out.path)
        options.copy = true
        XCTAssertThrowsError(try ConcatJob(options: options).run()) { error in
            XCTAssertEqual("\(error)", "\(truncated): truncated file: its index lists 90 video frames, only 55 could be read")
        }
        XCTAssertEqual(try leftovers(), [])
    }

    /// A clip without audio between two with: silence exactly as long as its video.
    func testCopyFillsAClipWithoutAudioWithSilence() throws {
        let silent = scratch.appendingPathComponent("silent.mp4").path
        try Shell.check("ffmpeg", ["-nostdin", "-v", "error", "-i", path("x1.mp4"), "-an", "-c", "copy", silent])
        let out = scratch.appendingPathComponent("copy.mp4")
        var options = ConcatOptions(clips: [path("x0.mp4"), silent, path("x0.mp4")], output: out.path)
        options.copy = true
        let result = try ConcatJob(options: options).run()
        XCTAssertEqual(result.clipFrames, [30, 24, 30])
        XCTAssertEqual(result.audioSamples, 134_400)
        let s = try AudioAnalysis.decodeMono(out)
        XCTAssertLessThan(AudioAnalysis.goertzelPower(s[48_480..<86_000], frequency: 440, rate: 48000), 1e-7)
        XCTAssertGreaterThan(AudioAnalysis.goertzelPower(s[86_880..<134_000], frequency: 440, rate: 48000), 1e-3)
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [])
    }

    /// Each copied packet carries Lockstep's provenance (an SEI put in, as x264 puts it in for
    /// the encoding path): which clip and source frame, so verify's concat checks run on it.
    func testCopiedPacketsCarryProvenanceAndVerifyChecksTheJoins() throws {
        let out = scratch.appendingPathComponent("copy.mp4")
        var options = ConcatOptions(clips: [path("x0.mp4"), path("x1.mp4"), path("x0.mp4")], output: out.path)
        options.copy = true
        _ = try ConcatJob(options: options).run()
        let report = try VerifyJob(options: VerifyOptions(movie: out.path)).run()
        XCTAssertEqual(report.violations.map(\.message), [])
        let frames = try VerifyJob.scan(out.path).frames
        XCTAssertEqual(frames.count, 84)
        XCTAssertEqual(frames.first?.provenance?.sync, "concat")
        XCTAssertEqual(frames.first?.provenance?.inputs?.map(\.frames), [30, 24, 30])
        for (k, f) in frames.enumerated() {
            let want: (Int, Int64) = k < 30 ? (0, Int64(k)) : k < 54 ? (1, Int64(k - 30)) : (2, Int64(k - 54))
            XCTAssertEqual(f.provenance?.k, Int64(k))
            XCTAssertEqual(f.provenance?.clip, want.0, "frame \(k)")
            XCTAssertEqual(f.provenance?.src.first?.first, want.1, "frame \(k)")
        }
        // Joined again (its own provenance replaced, not doubled): still clean, frames renumbered.
        let again = scratch.appendingPathComponent("again.mp4")
        var twice = ConcatOptions(clips: [out.path, path("x1.mp4")], output: again.path)
        twice.copy = true
        _ = try ConcatJob(options: twice).run()
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: again.path)).run().violations.map(\.message), [])
        let rejoined = try VerifyJob.scan(again.path).frames
        XCTAssertEqual(rejoined.map { $0.provenance?.clip }, Array(repeating: 0, count: 84) + Array(repeating: 1, count: 24))
    }
}
