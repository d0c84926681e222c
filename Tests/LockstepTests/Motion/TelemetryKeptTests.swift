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

    struct DumpFailed: Error { var line: String }

    /// Notices told while a job runs (from its threads).
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
    }

    struct Dump: Decodable {
        var model: String?
        var imu: [[Double]]
        var gyro_payloads: [[[Double]]]
    }

    /// telemetry-parser's reading of a file (scripts/telemetry-parser-dump).
    func parserDump(_ path: String) throws -> Dump {
        let script = EmbeddedTelemetryTests.script("telemetry-parser-dump")
        let r = try Shell.run("python3", [script, path])
        guard r.status == 0 else { throw DumpFailed(line: "telemetry-parser-dump \(path) failed (\(r.status)): \(r.stderr)") }
        return try JSONDecoder().decode(Dump.self, from: r.stdout)
    }

    /// ffprobe's view of the `gpmd` stream: its handler name and its packets (pts, duration in s).
    func probeTrack(_ path: String) throws -> (handler: String, packets: [(pts: Double, duration: Double)])? {
        let streams = String(decoding: try Shell.check("ffprobe", ["-v", "error", "-show_entries", "stream=index,codec_tag_string:stream_tags=handler_name", "-of", "csv=p=0", path]), as: UTF8.self)
        guard let line = streams.split(separator: "\n").first(where: { $0.contains("gpmd") }) else { return nil }
        let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let index = fields[0]
        let csv = String(decoding: try Shell.check("ffprobe", ["-v", "error", "-select_streams", index, "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", path]), as: UTF8.self)
        let packets = csv.split(separator: "\n").map { row -> (Double, Double) in
            let v = row.split(separator: ",").map { Double($0) ?? .nan }
            return (v[0], v.count > 1 ? v[1] : .nan)
        }
        return (fields.count > 2 ? fields[2].trimmingCharacters(in: .whitespaces) : "", packets)
    }

    func filterNone(_ output: String, frames: FrameRange? = nil) throws -> CompositeResult {
        var options = CompositeOptions.filter(input: Self.karma, output: output, schedule: try FilterSchedule.parse(filter: "none", filterAt: nil))
        options.size = Size(width: 214, height: 120)  // small: the test is about the track
        options.frames = frames
        return try CompositeJob(options: options).run()
    }

    /// Lockstep's and telemetry-parser's gyro from `output` equal the source's payloads `kept`,
    /// sample for sample; Lockstep's times (honouring the edit list) lie within `tolerance` of
    /// the source's moved by `start`.
    func assertGyro(_ output: String, keeps kept: Range<Int>, start: Double, tolerance: Double, file: StaticString = #filePath, line: UInt = #line) throws {
        let source = try parserDump(Self.karma), out = try parserDump(output)
        XCTAssertEqual(out.gyro_payloads, Array(source.gyro_payloads[kept]), "telemetry-parser's gyro payloads", file: file, line: line)
        let offset = source.gyro_payloads[..<kept.lowerBound].reduce(0) { $0 + $1.count }
        let count = source.gyro_payloads[kept].reduce(0) { $0 + $1.count }
        let whole = try EmbeddedTelemetry.read(path: Self.karma), cut = try EmbeddedTelemetry.read(path: output)
        XCTAssertEqual(cut.readings.count, count, file: file, line: line)
        XCTAssertEqual(cut.cameraModel, "HERO5 Black", "the model, from the firmware tag carried", file: file, line: line)
        XCTAssertEqual(cut.axisMapping, whole.axisMapping, file: file, line: line)
        var worst = 0.0
        for (i, r) in cut.readings.enumerated() {
            let s = whole.readings[offset + i]
            XCTAssertEqual(r.gyro.x, s.gyro.x, file: file, line: line)
            XCTAssertEqual(r.gyro.y, s.gyro.y, file: file, line: line)
            XCTAssertEqual(r.gyro.z, s.gyro.z, file: file, line: line)
            worst = max(worst, abs(Double(r.t) / 1e9 + start - Double(s.t) / 1e9))
        }
        XCTAssertLessThan(worst, tolerance, "largest time difference against the source", file: file, line: line)
        print("TelemetryKeptTests: \(output): \(count) gyro samples, largest time difference \(String(format: "%.3f", worst * 1000)) ms")
        // `imu info`: the same count, the rate within 0.5% of the source's.
        let info = try IMUInfoJob(options: IMUInfoOptions(path: output)).run()
        XCTAssertEqual(info.count, 1, file: file, line: line)
        XCTAssertEqual(info.first?.samples, count, file: file, line: line)
        let sourceRate = try IMUInfoJob(options: IMUInfoOptions(path: Self.karma)).run()[0].rateHz!
        XCTAssertEqual(info.first?.rateHz ?? 0, sourceRate, accuracy: sourceRate * 0.005, file: file, line: line)
    }

    func testFilterNoneKeepsTheGPMFTrack() throws {
        let out = scratch.appendingPathComponent("copy.mp4").path
        _ = try filterNone(out)
        let source = try XCTUnwrap(try probeTrack(Self.karma)), track = try XCTUnwrap(try probeTrack(out), "no gpmd stream in the output")
        XCTAssertEqual(track.handler, "GoPro MET")
        XCTAssertEqual(track.packets.count, 13)
        for (o, s) in zip(track.packets, source.packets) { XCTAssertEqual(o.pts, s.pts, accuracy: 1e-6) }
        try assertGyro(out, keeps: 0..<13, start: 0, tolerance: 1e-6)
    }

    /// Frames [100, 200) at 29.97 fps: 3.337 s to 6.673 s of the source. Payloads 3 (from 3.003 s,
    /// straddling the start: kept whole, from -0.334 s), 4, 5 and 6 (from 6.006 s) are kept;
    /// 7 (from 7.007 s) begins after the end.
    func testAFramesCutKeepsThePacketsItOverlaps() throws {
        let out = scratch.appendingPathComponent("cut.mp4").path
        _ = try filterNone(out, frames: FrameRange(start: 100, end: 200))
        let start = 100.0 * 1001 / 30000
        let track = try XCTUnwrap(try probeTrack(out), "no gpmd stream in the output")
        XCTAssertEqual(track.packets.count, 4)
        let source = try XCTUnwrap(try probeTrack(Self.karma))
        for (o, s) in zip(track.packets, source.packets[3...]) { XCTAssertEqual(o.pts, s.pts - start, accuracy: 1e-3) }
        try assertGyro(out, keeps: 3..<7, start: start, tolerance: Self.payload)
    }

    /// Two chapters (the ffmpeg CLI's segment muxer splits karma.mp4 at the keyframe at 5.606 s,
    /// each chapter's track from its own 0, the second's first payload 0.4 s in), joined back.
    func testConcatOfTwoChaptersGivesOneContinuousTrack() throws {
        let pattern = scratch.appendingPathComponent("GH0%d0001.mp4").path
        try Shell.check(
            "ffmpeg",
            [
                "-v", "error", "-i", Self.karma, "-map", "0:v", "-map", "0:a", "-map", "0:3", "-c", "copy", "-tag:d", "gpmd",
                "-f", "segment", "-segment_times", "5.5", "-reset_timestamps", "1",
                "-segment_format_options", "movflags=use_metadata_tags", pattern
            ])
        let chapters = [0, 1].map { scratch.appendingPathComponent("GH0\($0)0001.mp4").path }
        XCTAssertEqual(try XCTUnwrap(try probeTrack(chapters[1])).packets.count, 7)
        for copy in [true, false] {
            let out = scratch.appendingPathComponent(copy ? "joined-copy.mp4" : "joined.mp4").path
            var options = ConcatOptions(clips: chapters, output: out)
            options.copy = copy
            if !copy { options.size = Size(width: 214, height: 120) }
            let result = try ConcatJob(options: options).run()
            XCTAssertEqual(result.notices, [])
            let track = try XCTUnwrap(try probeTrack(out), "no gpmd stream in \(out)")
            let source = try XCTUnwrap(try probeTrack(Self.karma))
            XCTAssertEqual(track.packets.count, 13)
            // The second chapter's payloads follow the first's on one time: 1 ms (its track's
            // timescale, which put its first payload at 0.400 s for 0.4004 s).
            for (o, s) in zip(track.packets, source.packets) { XCTAssertEqual(o.pts, s.pts, accuracy: 1e-3, out) }
            try assertGyro(out, keeps: 0..<13, start: 0, tolerance: 0.002)
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

    func testACAMMTrackIsNotKeptAndTheNoticeSaysWhy() throws {
        let movie = scratch.appendingPathComponent("camm.mp4").path
        let truth = scratch.appendingPathComponent("camm.json").path
        try Shell.check("python3", [EmbeddedTelemetryTests.script("make-camm-fixture"), movie, truth])
        let out = scratch.appendingPathComponent("out.mp4").path
        let notices = Lines()
        let options = CompositeOptions.filter(input: movie, output: out, schedule: FilterSchedule(initial: .none))
        _ = try CompositeJob(options: options, events: JobEvents(notice: { notices.append($0) })).run()
        XCTAssertEqual(notices.all, ["\(movie): its CAMM telemetry track is not kept in the output: FFmpeg's MP4 muxer cannot write a CAMM (camm) sample entry"])
    }
}
