import Compositor
import Foundation
import Media
import TestSupport
import XCTest

@testable import Lockstep

/// Camera telemetry (GoPro GPMF) carried into outputs that keep the input's timeline: `filter`
/// of the real HERO5 file (karma.mp4), a `--frames` cut, `concat` of two chapters split from it
/// by the ffmpeg CLI (its segment muxer, an outside cutter). Each output is read by outside
/// readers (ffprobe for the track and its packets, telemetry-parser for the gyro) and by
/// Lockstep's own (`EmbeddedTelemetry`, `imu info`), against the source over the kept range.
final class TelemetryKeptTests: ScratchTestCase {
    static var karma: String { Repository.shared("karma.mp4") }
    /// karma.mp4's 13 payloads begin every 1.001 s from 0.
    static let payload = 1.001

    /// Notices told while a job runs (from its threads).
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
    }

    func filterNone(_ output: String, frames: FrameRange? = nil) throws -> CompositeResult {
        var options = CompositeOptions.filter(input: Self.karma, output: output, schedule: try FilterSchedule.parse(filter: "none", filterAt: nil))
        options.size = Size(width: 214, height: 120)  // small: the test is about the track
        options.frames = frames
        return try CompositeJob(options: options).run()
    }

    func testFilterNoneKeepsTheGPMFTrack() throws {
        let out = scratch.appendingPathComponent("copy.mp4").path
        _ = try filterNone(out)
        let source = try XCTUnwrap(try sourceReading(Self.karma).track), track = try XCTUnwrap(try probeTrack(out), "no gpmd stream in the output")
        XCTAssertEqual(track.handler, "GoPro MET")
        XCTAssertEqual(track.packets.count, 13)
        for (o, s) in zip(track.packets, source.packets) { XCTAssertEqual(o.pts, s.pts, accuracy: 1e-6) }
        try assertGyro(out, keeps: 0..<13, start: 0)
    }

    /// Frames [100, 200) at 29.97 fps: 3.337 s to 6.673 s of the source. Payload 3 (3.003 s to
    /// 4.004 s) straddles the start: its samples from the cut on are kept, in a packet from 0 to
    /// 0.667 s; payloads 4, 5 and 6 (from 6.006 s) are kept whole; 7 (from 7.007 s) begins after
    /// the end. Kept whole from before the output's 0, FFmpeg read payload 3 at -1.001 s (677 ms
    /// early) and telemetry-parser at 0 (334 ms late).
    func testAFramesCutKeepsThePacketsItOverlaps() throws {
        let out = scratch.appendingPathComponent("cut.mp4").path
        _ = try filterNone(out, frames: FrameRange(start: 100, end: 200))
        try assertGyro(out, keeps: 3..<7, start: 100.0 * 1001 / 30000)
    }

    /// `--from 2 --to 5`: frames [59, 150) (floor(2 * 29.97), ceil(5 * 29.97)), 1.969 s to
    /// 5.005 s: payload 1 trimmed, 2, 3 and 4 whole; 5 begins at the end (5.005 s), left out.
    func testAFromToCutKeepsThePacketsItOverlaps() throws {
        let out = scratch.appendingPathComponent("from-to.mp4").path
        var options = CompositeOptions.filter(input: Self.karma, output: out, schedule: try FilterSchedule.parse(filter: "none", filterAt: nil))
        options.size = Size(width: 214, height: 120)
        options.cut = try TimeCut(from: "2", to: "5")
        let result = try CompositeJob(options: options).run()
        XCTAssertEqual(result.frames, 91)
        try assertGyro(out, keeps: 1..<5, start: 59.0 * 1001 / 30000)
    }

    /// karma.mp4 split by the ffmpeg CLI's segment muxer at the keyframe at 5.606 s into two
    /// chapters named as a GoPro names them (GH010001.mp4, GH020001.mp4... here GH00/GH01), each
    /// chapter's picture, sound and GPMF track from its own 0.
    /// Made once for the class (two tests join them); their folder is removed in the class tearDown.
    func twoChapters() throws -> [String] {
        if let made = Self.chapters { return made }
        let folder = try Scratch.makeFolder("lockstep-TelemetryKeptTests-chapters")
        Self.chaptersFolder = folder
        let pattern = folder.appendingPathComponent("GH0%d0001.mp4").path
        try Shell.check(
            "ffmpeg",
            [
                "-v", "error", "-i", Self.karma, "-map", "0:v", "-map", "0:a", "-map", "0:3", "-c", "copy", "-tag:d", "gpmd",
                "-f", "segment", "-segment_times", "5.5", "-reset_timestamps", "1",
                "-segment_format_options", "movflags=use_metadata_tags", pattern
            ])
        let made = [0, 1].map { folder.appendingPathComponent("GH0\($0)0001.mp4").path }
        Self.chapters = made
        return made
    }
    nonisolated(unsafe) static var chapters: [String]?
    nonisolated(unsafe) static var chaptersFolder: URL?
    override class func tearDown() {
        if let folder = chaptersFolder { try? FileManager.default.removeItem(at: folder) }
        chaptersFolder = nil
        chapters = nil
        super.tearDown()
    }

    /// Two chapters (the ffmpeg CLI's segment muxer splits karma.mp4 at the keyframe at 5.606 s,
    /// each chapter's track from its own 0, the second's first payload 0.4 s in), joined back.
    func testConcatOfTwoChaptersGivesOneContinuousTrack() throws {
        let chapters = try twoChapters()
        XCTAssertEqual(try XCTUnwrap(try probeTrack(chapters[1])).packets.count, 7)
        for copy in [true, false] {
            let out = scratch.appendingPathComponent(copy ? "joined-copy.mp4" : "joined.mp4").path
            var options = ConcatOptions(clips: chapters, output: out)
            options.copy = copy
            if !copy { options.size = Size(width: 214, height: 120) }
            let result = try ConcatJob(options: options).run()
            XCTAssertEqual(result.notices, [])
            // The second chapter's payloads follow the first's on one time: to 1 ms (its track's
            // timescale, which put its first payload at 0.400 s for 0.4004 s).
            try assertGyro(out, keeps: 0..<13, start: 0)
        }
    }

    func testConcatWithAClipWithoutTelemetryKeepsNoneAndSaysWhy() throws {
        let plain = scratch.appendingPathComponent("plain.mp4").path
        try Shell.check("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=854x480:rate=30000/1001:duration=0.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", plain])
        let out = scratch.appendingPathComponent("mixed.mp4").path
        var options = ConcatOptions(clips: [plain, Self.karma], output: out)
        options.size = Size(width: 214, height: 120)
        options.maxDuration = Rational(1, 1)
        let result = try ConcatJob(options: options).run()
        XCTAssertEqual(
            result.notices,
            ["camera telemetry is not kept in the output: clip 1 (\(plain)) has no GPMF or CAMM track, clip 2 (\(Self.karma)) has one"])
        XCTAssertNil(try probeTrack(out))
    }

    /// `filter --variants` with `--from 2 --to 5`: every variant keeps the track, cut as a
    /// single `filter` cuts it (frames [59, 150), payload 1 trimmed, 2 to 4 whole).
    func testEveryVariantOfACutKeepsTheGPMFTrack() throws {
        let folder = scratch.appendingPathComponent("looks").path
        var options = FilterVariantsOptions(input: Self.karma, folder: folder, chains: try ["none", "mono"].map { try FilterChainSpec(parsing: $0) })
        options.size = Size(width: 214, height: 120)
        options.cut = try TimeCut(from: "2", to: "5")
        let result = try FilterVariantsJob(options: options).run()
        XCTAssertEqual(result.frames, 91)
        XCTAssertEqual(result.variants.map(\.failure), [nil, nil])
        for out in options.outputs { try assertGyro(out, keeps: 1..<5, start: 59.0 * 1001 / 30000) }
    }

    /// `concat --from 2 --to 7.5` of the two chapters: the joined track cut with the joined
    /// picture, frames [59, 225) (1.969 s to 7.508 s): payload 1 trimmed, 2 to 7 whole (6 and
    /// 7 the second chapter's), 8 (8.008 s) after the end. (A cut ending at 8.008 s keeps
    /// payload 8: the segment muxer stored it at 1 ms, 0.4 ms before that end.)
    func testAConcatCutKeepsTheJoinedTrackCut() throws {
        let chapters = try twoChapters()
        let out = scratch.appendingPathComponent("joined-cut.mp4").path
        var options = ConcatOptions(clips: chapters, output: out)
        options.size = Size(width: 214, height: 120)
        options.cut = try TimeCut(from: "2", to: "7.5")
        let result = try ConcatJob(options: options).run()
        XCTAssertEqual(result.notices, [])
        XCTAssertEqual(result.frames, 166)
        try assertGyro(out, keeps: 1..<8, start: 59.0 * 1001 / 30000)
    }
}
