import Compositor
import Foundation
import Media
import TestSupport
import XCTest

@testable import Lockstep

/// `--frames A:B`: segments rendered apart and joined by copy are the single pass, frame for
/// frame and sample for sample; each input is opened by seeking, not by decoding from the start.
final class SegmentRenderTests: ScratchTestCase {
    /// Every frame's provenance record, in presentation order, read with our own reader.
    static func provenance(_ url: URL) throws -> [Provenance] {
        let reader = try MovieReader(path: url.path, audio: false)
        reader.userDataUUID = Provenance.uuid
        let frame = Frame()
        var records: [Provenance] = []
        while case .video(let picture) = try reader.next(into: frame, audioSink: { _ in }) {
            records.append(try XCTUnwrap(picture.userData.flatMap { Provenance.parse($0) }, "frame \(records.count) has no provenance"))
        }
        return records
    }

    /// (k, src) of each record: what the single pass and the segments must agree on.
    static func picks(_ records: [Provenance]) -> [String] { records.map { "\($0.k) \($0.src)" } }

    /// The first audio stream as ffmpeg decodes it, 32-bit integers, interleaved stereo.
    static func samples(_ url: URL) throws -> [Int32] {
        let data = try Shell.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:a:0", "-f", "s32le", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
    }

    static func durations(_ url: URL) throws -> (video: Double, audio: Double) {
        let streams = try Probe.streams(url)
        let v = try XCTUnwrap(streams.first { $0.codecType == "video" }?.duration, "no video duration")
        let a = try XCTUnwrap(streams.first { $0.codecType == "audio" }?.duration, "no audio duration")
        return (v, a)
    }

    /// Frames where ffprobe sees a keyframe.
    static func keyframes(_ url: URL) throws -> [Int] {
        let data = try Shell.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame", "-of", "csv=p=0", url.path])
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).enumerated().compactMap { $1.hasPrefix("1") ? $0 : nil }
    }

    /// Renders segments at `cuts`, checks each against the single pass, joins them by copy and
    /// checks the join; returns the single pass and the joined file.
    func checkSegmentsJoin(
        _ blend: BlendMode, _ inputs: [String], cuts: [Int64], exactAudio: Bool,
        configure: (inout CompositeOptions) -> Void = { _ in }
    ) throws -> (single: URL, joined: URL, frames: Int64) {
        let (single, full) = try render(blend, inputs, "single.mkv", configure: configure)
        let bounds = [0] + cuts + [full.frames]
        var segments: [URL] = []
        var segmentRecords: [Provenance] = []
        var segmentSamples: [Int32] = []
        for j in 0..<bounds.count - 1 {
            let range = FrameRange(start: bounds[j], end: bounds[j + 1])
            let (url, result) = try render(blend, inputs, "seg-\(j).mkv", frames: range, configure: configure)
            XCTAssertEqual(result.frames, range.count, "segment \(range)")
            XCTAssertEqual(result.audioSamples, range.samples(frameRate: full.frameRate, sampleRate: 48_000).map { Int64($0.count) }, "segment \(range)")
            XCTAssertEqual(try Self.keyframes(url).first, 0, "segment \(range) starts with a keyframe")
            segments.append(url)
            segmentRecords += try Self.provenance(url)
            segmentSamples += try Self.samples(url)
        }
        let singleRecords = try Self.provenance(single)
        XCTAssertEqual(singleRecords.count, Int(full.frames))
        XCTAssertEqual(Self.picks(segmentRecords), Self.picks(singleRecords))
        let singleSamples = try Self.samples(single)
        XCTAssertEqual(segmentSamples.count, singleSamples.count)
        if exactAudio {
            XCTAssertTrue(segmentSamples == singleSamples, "the segments' FLAC samples differ from the single pass's")
        } else {
            let worst = zip(segmentSamples, singleSamples).map { abs(Double($0) - Double($1)) / Double(Int32.max) }.max() ?? 0
            XCTAssertLessThan(worst, 0.02, "largest difference from the single pass")
        }
        // The single pass's keyframes are every 10 frames: the segments' boundaries fall on them.
        XCTAssertEqual(try Self.keyframes(single), Array(stride(from: 0, to: Int(full.frames), by: 10)))

        let joined = scratch.appendingPathComponent("joined.mp4")
        let result = try ConcatCopy.join(segments.map(\.path), into: joined.path, container: "mp4", provenance: .kept)
        XCTAssertEqual(result.frames, full.frames)
        XCTAssertEqual(Self.picks(try Self.provenance(joined)), Self.picks(singleRecords))
        let (v, a) = try Self.durations(joined)
        XCTAssertEqual(v, a, accuracy: 0.001, "joined: video and audio durations")
        XCTAssertEqual(v, (full.frameRate.inverse * full.frames).seconds, accuracy: 0.001)
        XCTAssertEqual(result.audioSamples, full.audioSamples)
        return (single, joined, full.frames)
    }

    /// Frames read by their barcodes: band 0 of source 0, band 1 of source 1, frame k showing
    /// source frame k under index sync.
    func checkBarcodes(_ url: URL, frames: Int64, bands: [Int]) throws {
        let video = try LumaVideo.decode(url)
        XCTAssertEqual(video.frames.count, Int(frames))
        for (k, f) in video.frames.enumerated() {
            for s in bands {
                let seen = Barcode.read(f, width: video.width, region: .band(s))
                XCTAssertTrue(seen.map { $0 == (s, k) } ?? false, "frame \(k) band \(s): \(String(describing: seen))")
            }
        }
    }

    /// The joined AAC against the single pass's samples (decoded FLAC, encoded once by the join):
    /// at every join the tone goes on without a gap, an overlap or a jump in phase.
    func checkToneAcrossJoins(single: URL, joined: URL, joins: [Int64], frameRate: Rational) throws {
        let reference = try AudioAnalysis.decodeMono(single), heard = try AudioAnalysis.decodeMono(joined)
        // ffmpeg keeps the AAC encoder's padding after the last frame (the edit list ends the
        // track at the right sample: ffprobe's durations are checked apart); none missing.
        XCTAssertGreaterThanOrEqual(heard.count, reference.count)
        XCTAssertLessThan(heard.count, reference.count + 1024)
        for j in joins {
            let s = Int(AudioTimeline.samples(coveringFrames: j, frameRate: frameRate, sampleRate: 48_000))
            let window = max(0, s - 2048)..<min(reference.count, s + 2048)
            let worst = window.map { abs(heard[$0] - reference[$0]) }.max() ?? 1
            XCTAssertLessThan(worst, 0.01, "around the join at frame \(j) (sample \(s))")
            // The tone is there on both sides (not silence that would also match silence).
            XCTAssertGreaterThan(AudioAnalysis.goertzelPower(heard[window], frequency: 440, rate: 48_000), 1e-3)
        }
    }

    func testChromakeySegmentsJoinedEqualTheSinglePass() throws {
        // l1: keyed, source 1, 60 frames, no audio; bg: source 0, 90 frames, 440 Hz at 48 kHz.
        let (single, joined, frames) = try checkSegmentsJoin(.chromakey, ["l1.mp4", "bg.mp4"], cuts: [10, 20], exactAudio: true)
        XCTAssertEqual(frames, 60)
        try checkBarcodes(joined, frames: frames, bands: [0, 1])
        try checkToneAcrossJoins(single: single, joined: joined, joins: [10, 20], frameRate: Rational(30, 1))
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: joined.path)).run().violations, [])
    }

    func testQuadSegmentsJoinedEqualTheSinglePass() throws {
        // bg (48 kHz) and q1 (44.1 kHz, resampled: a fresh resampler after a seek is not
        // bit-identical to one that ran from the start, so its audio is compared within 2%).
        let (single, joined, frames) = try checkSegmentsJoin(.quad, ["bg.mp4", "q1.mp4"], cuts: [20, 40], exactAudio: false)
        XCTAssertEqual(frames, 66)
        let video = try LumaVideo.decode(joined)
        for (k, f) in video.frames.enumerated() {
            // Quad: each input at half size in its cell (q1 in the top right).
            let a = Barcode.read(f, width: video.width, region: BarcodeRegion.band(0).scaled(by: 0.5, offsetX: 0, offsetY: 0))
            let b = Barcode.read(f, width: video.width, region: BarcodeRegion.band(1).scaled(by: 0.5, offsetX: Double(video.width) / 2, offsetY: 0))
            XCTAssertTrue(a.map { $0 == (0, k) } ?? false, "frame \(k) input 1: \(String(describing: a))")
            XCTAssertTrue(b.map { $0 == (1, k) } ?? false, "frame \(k) input 2: \(String(describing: b))")
        }
        try checkToneAcrossJoins(single: single, joined: joined, joins: [20, 40], frameRate: Rational(30, 1))
    }

    /// An input with 250-frame GOPs: a segment from frame 400 decodes from the keyframe at 250,
    /// never from 0.
    func testAMiddleSegmentDecodesAtMostOneGOPBeforeItsFirstFrame() throws {
        let input = scratch.appendingPathComponent("long.mp4").path
        try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=30:d=20",
                "-f", "lavfi", "-i", "sine=f=440:r=48000:d=20",
                "-c:v", "libx264", "-preset", "ultrafast", "-g", "250", "-keyint_min", "250", "-sc_threshold", "0",
                "-c:a", "aac", input
            ])
        let range = FrameRange(start: 400, end: 420)
        let out = scratch.appendingPathComponent("seg.mkv")
        var options = CompositeOptions.filter(input: input, output: out.path, schedule: FilterSchedule(initial: .none))
        options.encode.audioCodec = .flac
        options.frames = range
        let result = try CompositeJob(options: options).run()
        XCTAssertEqual(result.frames, 20)
        let decoded = try XCTUnwrap(result.picturesDecoded.first)
        // From the keyframe at 250 to 419: 170; a few more decoded ahead before the reader stops.
        XCTAssertGreaterThanOrEqual(decoded, 170)
        XCTAssertLessThanOrEqual(decoded, 20 + 250 + 8, "decoded \(decoded) pictures for 20 frames")
        // Time sync (filter's default since issue 43): each frame with the time it stays on screen until.
        let expected: [[[Int64]]] = (Int64(400)..<420).map { k in [[k, k * 512, (k + 1) * 512]] }
        XCTAssertEqual(try Self.provenance(out).map(\.src), expected)
    }

    func testFramesPastTheEndOfTheShortestInputIsAnError() throws {
        XCTAssertThrowsError(try render(.chromakey, ["l1.mp4", "bg.mp4"], "past.mkv", frames: FrameRange(start: 50, end: 70))) { error in
            XCTAssertEqual("\(error)", "--frames 50:70: input 1 (\(Fixtures.url("l1.mp4").path)) ends the output after 60 frames; the range must lie within 0:60.")
        }
        XCTAssertThrowsError(try render(.chromakey, ["l1.mp4", "bg.mp4"], "past.mkv", frames: FrameRange(start: 60, end: 61))) { error in
            XCTAssertEqual("\(error)", "--frames 60:61: input 1 (\(Fixtures.url("l1.mp4").path)) ends the output after 60 frames; the range must lie within 0:60.")
        }
        XCTAssertEqual(try leftovers(), [])
    }

    func testFLACNeedsMatroska() throws {
        XCTAssertThrowsError(try render(.chromakey, ["l1.mp4", "bg.mp4"], "flac.mp4")) { error in
            XCTAssertEqual(
                "\(error)",
                "--audio-codec flac needs a .mkv output (FFmpeg 5.1 writes FLAC into Matroska; into MP4 only as an experimental feature); got \(scratch.appendingPathComponent("flac.mp4").path).")
        }
    }

    func testFrameRangeParsing() throws {
        XCTAssertEqual(try FrameRange(parsing: "250:500"), FrameRange(start: 250, end: 500))
        func says(_ text: String) -> String {
            do { _ = try FrameRange(parsing: text); return "accepted" } catch { return "\(error)" }
        }
        XCTAssertEqual(says("5:3"), "--frames 5:3: B must be greater than A.")
        XCTAssertEqual(says("5:5"), "--frames 5:5: B must be greater than A.")
        XCTAssertEqual(says("-1:3"), "--frames -1:3: A must be 0 or more.")
        XCTAssertEqual(says("ten:20"), "--frames ten:20: expected A:B, two whole numbers of output frames (A included, B excluded).")
        XCTAssertEqual(says("10"), "--frames 10: expected A:B, two whole numbers of output frames (A included, B excluded).")
    }

    /// The frame each tick takes, from the frame times alone, by the sync's rules.
    func testSegmentPlanPicksTheSyncsFrames() {
        // 25 fps input (1/1000 time base, as Matroska stores it) under a 30 fps output.
        let f = SegmentPlan.Frames(pts: (0..<50).map { Int64($0) * 40 }, durations: Array(repeating: 40, count: 50), timeBase: Rational(1, 1000))
        XCTAssertEqual(SegmentPlan.ticks(f, sync: .index, frameRate: Rational(30, 1)), 50)
        // 2 s of video: ticks 0..59 (tick 60 at 2.000 s is past its end).
        XCTAssertEqual(SegmentPlan.ticks(f, sync: .time, frameRate: Rational(30, 1)), 60)
        // Tick 31 at 1.0333 s: the frame at 1.000 s (25).
        XCTAssertEqual(SegmentPlan.frame(atTick: 31, f, sync: .time, frameRate: Rational(30, 1)), 25)
        XCTAssertEqual(SegmentPlan.frame(atTick: 31, f, sync: .index, frameRate: Rational(30, 1)), 31)
        XCTAssertNil(SegmentPlan.frame(atTick: 60, f, sync: .time, frameRate: Rational(30, 1)))
        // With audio, decoding starts 100 ms before the segment's first sample: at 0.9333 s.
        XCTAssertEqual(
            SegmentPlan.start(tick: 31, f, sync: .time, frameRate: Rational(30, 1), audioLead: Rational(1, 10)),
            SegmentPlan.Start(first: 25, seekFrom: 23))
        XCTAssertEqual(
            SegmentPlan.start(tick: 1, f, sync: .index, frameRate: Rational(30, 1), audioLead: Rational(1, 10)),
            SegmentPlan.Start(first: 1, seekFrom: 0))
    }
}
