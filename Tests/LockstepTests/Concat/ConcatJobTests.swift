import Compositor
import Foundation
import Media
import TestSupport
import Verify
import XCTest

@testable import Lockstep

/// `lockstep concat` on barcoded clips (scripts/fixtures/make-concat-fixtures): every output frame read
/// back by the ffmpeg CLI names its clip and source frame; ffprobe measures the durations.
final class ConcatJobTests: ScratchTestCase {
    /// c0: 320x240 30 fps 30 frames, stereo 48k. c1: 256x144 25 fps 25 frames, yuvj420p, mono 44.1k.
    /// c2: shown 240x320 (stored turned, display matrix), 30 fps 40 frames, no audio. c3: 320x240
    /// 30 fps 45 frames, 5.1 32k.
    static let clips = ["c0.mp4", "c1.mp4", "c2.mp4", "c3.mp4"]
    static let counts = [30, 25, 40, 45]
    /// Where each clip's strip lands on the 320x240 canvas (Layout's fit, aspect kept, centred).
    static let regions = [
        BarcodeRegion.band(0, c: 16),
        BarcodeRegion.band(1, c: 12).scaled(by: 1.25, offsetX: 0, offsetY: 30),
        BarcodeRegion.band(2, c: 12).scaled(by: 0.75, offsetX: 70, offsetY: 0),
        BarcodeRegion.band(3, c: 16)
    ]

    func concat(_ names: [String], _ configure: (inout ConcatOptions) -> Void = { _ in }) throws -> (URL, ConcatResult) {
        let out = scratch.appendingPathComponent("concat-\(UUID().uuidString.prefix(6)).mp4")
        var options = ConcatOptions(clips: names.map { Fixtures.url("concat/" + $0).path }, output: out.path)
        configure(&options)
        return (out, try ConcatJob(options: options).run())
    }

    /// Output frame k as (clip, source frame), read from the picture itself.
    func identities(_ url: URL, clipAt: (Int) -> Int) throws -> [(Int, Int)?] {
        let video = try LumaVideo.decode(url)
        return video.frames.enumerated().map { k, frame in
            Barcode.read(frame, width: video.width, region: Self.regions[clipAt(k)]).map { ($0.source, $0.index) }
        }
    }

    func expected(_ counts: [Int], total: Int) -> [(Int, Int)] {
        Array(counts.enumerated().flatMap { c, n in (0..<n).map { (c, $0) } }.prefix(total))
    }

    func clip(at k: Int, _ counts: [Int]) -> Int {
        var k = k
        for (c, n) in counts.enumerated() { if k < n { return c }; k -= n }
        return counts.count - 1
    }

    // The three tests below are of `--keep-frames` (every frame once), the join's old default:
    // since issue 21 a concat keeps each clip's duration by time (c1, at 25 fps, then shows 30
    // output frames), tested in `testByTimeEachClipKeepsItsDuration...` below.
    func testEveryFrameOfMixedClipsOnceInOrder() throws {
        let (out, result) = try concat(Self.clips) { $0.keepFrames = true }
        XCTAssertEqual(result.clipFrames, [30, 25, 40, 45])
        XCTAssertEqual(result.frames, 140)
        XCTAssertEqual(result.canvas, Size(width: 320, height: 240))
        let seen = try identities(out) { self.clip(at: $0, Self.counts) }
        let want = expected(Self.counts, total: 140)
        XCTAssertEqual(seen.count, 140)
        for k in want.indices {
            XCTAssertTrue(seen[k].map { $0 == want[k] } ?? false, "output frame \(k): read \(String(describing: seen[k])), expected \(want[k])")
        }
        // ffprobe, the outside checker: 140 frames, video and audio both 140/30 s.
        let streams = try Probe.streams(out)
        let v = try XCTUnwrap(streams.first { $0.codecType == "video" }), a = try XCTUnwrap(streams.first { $0.codecType == "audio" })
        XCTAssertEqual(v.nbReadFrames, 140)
        XCTAssertEqual(try XCTUnwrap(v.duration), 140.0 / 30, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(a.duration), 140.0 / 30, accuracy: 1e-6)
        XCTAssertEqual(result.audioSamples, 224_000)
        let report = try VerifyJob(options: VerifyOptions(movie: out.path)).run()
        XCTAssertEqual(report.violations, [])
        XCTAssertEqual(report.sync, "concat")
    }

    func testCapFallsInsideTheThirdClip() throws {
        // 3.1 s at 30 fps: 93 whole frames (30 + 25 + 38 of clip 3's 40); audio cut at 3.1 s.
        let (out, result) = try concat(Self.clips) {
            $0.maxDuration = Rational(31, 10); $0.keepFrames = true
        }
        XCTAssertEqual(result.clipFrames, [30, 25, 38])
        let seen = try identities(out) { self.clip(at: $0, Self.counts) }
        let want = expected(Self.counts, total: 93)
        XCTAssertEqual(seen.count, 93)
        for k in want.indices { XCTAssertTrue(seen[k].map { $0 == want[k] } ?? false, "output frame \(k)") }
        let streams = try Probe.streams(out)
        XCTAssertEqual(try XCTUnwrap(streams.first { $0.codecType == "video" }?.duration), 3.1, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(streams.first { $0.codecType == "audio" }?.duration), 3.1, accuracy: 1e-6)
        XCTAssertEqual(result.audioSamples, 148_800)
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [])
    }

    func testCapBetweenFramesStopsAtTheLastWholeFrame() throws {
        // 1.99 s: frame 59 would end at 2.0 s, after the cap, so 59 frames (30 + 25 + 4).
        let (out, result) = try concat(Self.clips) {
            $0.maxDuration = Rational(199, 100); $0.keepFrames = true
        }
        XCTAssertEqual(result.frames, 59)
        XCTAssertEqual(result.clipFrames, [30, 25, 4])
        XCTAssertEqual(try XCTUnwrap(try Probe.streams(out).first { $0.codecType == "audio" }?.duration), 59.0 / 30, accuracy: 1e-6)
    }

    /// The cap in whole frames, exact in 128 bits: 2^63-1 seconds at 30000/1001 fps once trapped
    /// in Rational's 64-bit product (`concat --max-duration=9223372036854775807`).
    func testCapFramesOfExtremeDurationsNeitherTrapNorRound() {
        let ntsc = Rational(30000, 1001)
        XCTAssertEqual(ConcatOptions.frames(within: Rational(Int64.max, 1), frameRate: ntsc), .max)
        XCTAssertEqual(ConcatOptions.frames(within: Rational(1001, 30000), frameRate: ntsc), 1)
        XCTAssertEqual(ConcatOptions.frames(within: Rational(1000, 30000), frameRate: ntsc), 0)
        XCTAssertEqual(ConcatOptions.frames(within: Rational(1, Int64.max), frameRate: Rational(Int64.max, 1)), 1)
        XCTAssertEqual(ConcatOptions.frames(within: Rational(199, 100), frameRate: Rational(30, 1)), 59)
    }

    /// By time (the default): c1 (25 fps, 1 s) lasts 1 s at 30 fps, 30 output frames, each the
    /// frame on screen at its instant (floor(j * 25 / 30)); the others at 30 fps, every frame
    /// once. ffprobe: 145 frames, video and audio 145/30 s.
    func testByTimeEachClipKeepsItsDurationAndShowsTheFrameOnScreen() throws {
        let (out, result) = try concat(Self.clips)
        XCTAssertEqual(result.clipFrames, [30, 30, 40, 45])
        let seen = try identities(out) { self.clip(at: $0, [30, 30, 40, 45]) }
        let want = (0..<30).map { (0, $0) } + (0..<30).map { (1, $0 * 25 / 30) } + (0..<40).map { (2, $0) } + (0..<45).map { (3, $0) }
        XCTAssertEqual(seen.count, 145)
        for k in want.indices {
            XCTAssertTrue(seen[k].map { $0 == want[k] } ?? false, "output frame \(k): read \(String(describing: seen[k])), expected \(want[k])")
        }
        let streams = try Probe.streams(out)
        XCTAssertEqual(try XCTUnwrap(streams.first { $0.codecType == "video" }?.duration), 145.0 / 30, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(streams.first { $0.codecType == "audio" }?.duration), 145.0 / 30, accuracy: 1e-6)
        XCTAssertEqual(result.notices, [], "no clip changes speed")
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [])
    }

    /// A cap by time: 1.99 s at 30 fps is 59 whole frames, 30 of c0 and 29 of c1's 1 s.
    func testByTimeACapStopsAtTheLastWholeFrame() throws {
        let (out, result) = try concat(Self.clips) { $0.maxDuration = Rational(199, 100) }
        XCTAssertEqual(result.clipFrames, [30, 29])
        XCTAssertEqual(try XCTUnwrap(try Probe.streams(out).first { $0.codecType == "audio" }?.duration), 59.0 / 30, accuracy: 1e-6)
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [])
    }

    func testClipsWithoutAudioAloneMakeNoAudioTrack() throws {
        let (out, result) = try concat(["c2.mp4", "x2.mp4"])
        XCTAssertNil(result.audioSamples)
        XCTAssertEqual(try Probe.streams(out).filter { $0.codecType == "audio" }.count, 0)
        XCTAssertEqual(result.canvas, Size(width: 240, height: 320))
    }

    /// The silence a clip without audio leaves is exactly its video's length, and the clips'
    /// tones sit in their own spans: c0's 440 Hz in [0, 1 s), c2 silent over [1, 2.333 s),
    /// c3's 880 Hz from there.
    func testSilenceForAClipWithoutAudioSpansItsVideo() throws {
        let (out, _) = try concat(["c0.mp4", "c2.mp4", "c3.mp4"])
        let s = try AudioAnalysis.decodeMono(out)
        func level(_ f: Double, _ a: Double, _ b: Double) -> Double {
            AudioAnalysis.goertzelPower(s[Int(a * 48000)..<Int(b * 48000)], frequency: f, rate: 48000)
        }
        XCTAssertGreaterThan(level(440, 0.05, 0.95), 1e-3)
        XCTAssertLessThan(level(440, 1.05, 2.28), 1e-7)
        XCTAssertLessThan(level(880, 1.05, 2.28), 1e-7)
        XCTAssertGreaterThan(level(880, 2.39, 3.75), 1e-3)
    }
}
