import Compositor
import Foundation
import Media
import TestSupport
import XCTest

@testable import Lockstep

/// The outside readers the telemetry tests compare Lockstep's outputs with: telemetry-parser
/// (scripts/tools/telemetry-parser-dump) and ffprobe, and the check every kept track must pass.
extension ScratchTestCase {
    struct DumpFailed: Error { var line: String }

    struct Dump: Decodable {
        var camera: String?
        var model: String?
        var imu: [[Double]]
        var gyro_payloads: [[[Double]]]
    }

    /// The outside readers' answers on a source file (the shared media, read-only), read once
    /// per test process: every telemetry test compares its output with karma.mp4, and read it
    /// again each time (telemetry-parser, ffprobe twice, the box walk: about 2.5 s a test).
    nonisolated(unsafe) static var sourceReadings: [String: (dump: Dump, track: (handler: String, packets: [(pts: Double, duration: Double)])?)] = [:]
    func sourceReading(_ path: String) throws -> (dump: Dump, track: (handler: String, packets: [(pts: Double, duration: Double)])?) {
        if let known = Self.sourceReadings[path] { return known }
        let reading = (dump: try parserDump(path), track: try probeTrack(path))
        // Only the shared media are kept: a file made by a test may be made again under its name.
        if path.hasPrefix(Repository.sharedMedia.path + "/") { Self.sourceReadings[path] = reading }
        return reading
    }

    /// telemetry-parser's reading of a file (scripts/tools/telemetry-parser-dump).
    func parserDump(_ path: String) throws -> Dump {
        let script = EmbeddedTelemetryTests.script("telemetry-parser-dump")
        let r = try Shell.run("python3", [script, path])
        guard r.status == 0 else { throw DumpFailed(line: "telemetry-parser-dump \(path) failed (\(r.status)): \(r.stderr)") }
        return try JSONDecoder().decode(Dump.self, from: r.stdout)
    }

    /// `parserDump` and the stored sample durations (scripts/tools/mp4-sample-durations' output)
    /// of one file, from one Python process instead of two: each script run as its own
    /// `__main__` (runpy) on the file, its output ended by a line holding only U+001E.
    func outsideReadings(_ path: String) throws -> (dump: Dump, durations: String) {
        let both = """
            import runpy, sys
            movie = sys.argv[3]
            for script in sys.argv[1:3]:
                sys.argv = [script, movie]
                runpy.run_path(script, run_name="__main__")
                sys.stdout.write("\\n\\x1e\\n")
            """
        let scripts = [EmbeddedTelemetryTests.script("telemetry-parser-dump"), Repository.root.appendingPathComponent("scripts/tools/mp4-sample-durations").path]
        let r = try Shell.run("python3", ["-c", both] + scripts + [path])
        guard r.status == 0 else { throw DumpFailed(line: "telemetry-parser-dump and mp4-sample-durations \(path) failed (\(r.status)): \(r.stderr)") }
        let parts = String(decoding: r.stdout, as: UTF8.self).components(separatedBy: "\n\u{1E}\n")
        guard parts.count == 3 else { throw DumpFailed(line: "\(path): the two readers' output is not two parts: \(parts.count - 1) ends") }
        return (try JSONDecoder().decode(Dump.self, from: Data(parts[0].utf8)), parts[1])
    }

    /// ffprobe's view of the `gpmd` stream: its handler name and its packets (pts, duration in s).
    /// `storedDurations`: mp4-sample-durations' output for the file, when already read (`outsideReadings`).
    func probeTrack(_ path: String, storedDurations: String? = nil) throws -> (handler: String, packets: [(pts: Double, duration: Double)])? {
        // One ffprobe run for the streams and every stream's packets (it reads the packets, it
        // decodes nothing); the gpmd stream's are kept.
        let data = try Shell.check(
            "ffprobe",
            ["-v", "error", "-show_entries", "stream=index,id,codec_tag_string:stream_tags=handler_name:packet=stream_index,pts_time,duration_time", "-of", "json", path])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], "ffprobe's JSON for \(path)")
        let streams = json["streams"] as? [[String: Any]] ?? []
        guard let gpmd = streams.first(where: { $0["codec_tag_string"] as? String == "gpmd" }), let index = gpmd["index"] as? Int else { return nil }
        let number = { (v: Any?) in (v as? String).flatMap(Double.init) ?? .nan }
        let packets = (json["packets"] as? [[String: Any]] ?? []).filter { $0["stream_index"] as? Int == index }.map { p -> (Double, Double) in
            (number(p["pts_time"]), number(p["duration_time"]))
        }
        // ffprobe's track ID (in hex) and handler.
        let hexID = gpmd["id"] as? String ?? "", handler = (gpmd["tags"] as? [String: Any])?["handler_name"] as? String ?? ""
        // The last packet's length as stored (scripts/tools/mp4-sample-durations, its own box walk)
        // when FFmpeg's is longer: mov.c fits a last sample to the track's declared length (the
        // HERO7's last payload, 201 gyro samples, a second's worth: 1.001 s stored, 1.735 s read).
        let tracks = try storedDurations ?? String(decoding: try Shell.check(Repository.root.appendingPathComponent("scripts/tools/mp4-sample-durations").path, [path]), as: UTF8.self)
        let id = Int(hexID.replacingOccurrences(of: "0x", with: ""), radix: 16).map(String.init) ?? ""
        let stored = tracks.split(separator: "\n").map { $0.split(separator: " ") }.first { $0.first.map(String.init) == id }?.dropFirst(2).compactMap { Double($0) } ?? []
        let fitted = stored.count == packets.count ? zip(packets, stored).map { ($0.0, min($0.1, $1)) } : packets
        return (handler.trimmingCharacters(in: .whitespaces), fitted)
    }

    /// The gyro in `output` is the source's payloads `kept`, the first of them without its
    /// samples before the cut (as many as the output lacks), the rest whole: telemetry-parser
    /// reads the same values, Lockstep the same readings. The track as stored (ffprobe's packet
    /// times, each payload's samples spread over its packet) times every sample within one
    /// sample period of the source's moved by `start`, the first packet at 0. The readers fit a
    /// rate over the payloads they are given, so a shorter track reads a little differently
    /// from the whole: Lockstep within two sample periods of its reading of the source,
    /// telemetry-parser within 25 ms (it reads an uncut chapter that the ffmpeg CLI split from
    /// karma.mp4, whole payloads, 19.3 ms off its reading of the source). A payload kept whole
    /// before the output's 0 was read 677 ms (FFmpeg) and 334 ms (telemetry-parser) off.
    func assertGyro(
        _ output: String, source path: String = TelemetryKeptTests.karma, keeps kept: Range<Int>, start: Double,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        // telemetry-parser's reading and the stored durations of the output from one Python run.
        let (out, storedDurations) = try outsideReadings(output)
        let source = try sourceReading(path).dump
        XCTAssertEqual(out.gyro_payloads.count, kept.count, "telemetry-parser's payloads", file: file, line: line)
        guard let first = out.gyro_payloads.first, out.gyro_payloads.count == kept.count else { return }
        let dropped = source.gyro_payloads[kept.lowerBound].count - first.count
        XCTAssertGreaterThanOrEqual(dropped, 0, file: file, line: line)
        XCTAssertEqual(first, Array(source.gyro_payloads[kept.lowerBound].suffix(first.count)), "the first payload's tail", file: file, line: line)
        XCTAssertEqual(Array(out.gyro_payloads.dropFirst()), Array(source.gyro_payloads[kept.dropFirst()]), "telemetry-parser's gyro payloads", file: file, line: line)
        let offset = source.gyro_payloads[..<kept.lowerBound].reduce(0) { $0 + $1.count } + dropped
        let count = out.gyro_payloads.reduce(0) { $0 + $1.count }
        let whole = try EmbeddedTelemetry.read(path: path), cut = try EmbeddedTelemetry.read(path: output)
        let period = 1 / (try XCTUnwrap(try IMUInfoJob(options: IMUInfoOptions(path: path)).run()[0].rateHz))
        XCTAssertEqual(cut.readings.count, count, file: file, line: line)
        XCTAssertEqual(cut.info.deviceName, whole.info.deviceName, "the model, from the firmware tag carried", file: file, line: line)
        XCTAssertEqual(cut.axisMapping, whole.axisMapping, file: file, line: line)
        var worst = 0.0
        for (i, r) in cut.readings.enumerated() where offset + i < whole.readings.count {
            let s = whole.readings[offset + i]
            XCTAssertEqual(r.gyro.x, s.gyro.x, file: file, line: line)
            XCTAssertEqual(r.gyro.y, s.gyro.y, file: file, line: line)
            XCTAssertEqual(r.gyro.z, s.gyro.z, file: file, line: line)
            worst = max(worst, abs(Double(r.t) / 1e9 + start - Double(s.t) / 1e9))
        }
        XCTAssertLessThan(worst, 2 * period, "Lockstep's largest time difference against the source", file: file, line: line)
        var parserWorst = 0.0
        for (j, o) in out.imu.enumerated() where offset + j < source.imu.count {
            parserWorst = max(parserWorst, abs(o[0] / 1000 + start - source.imu[offset + j][0] / 1000))
        }
        XCTAssertEqual(out.imu.count, count, file: file, line: line)
        XCTAssertLessThan(parserWorst, 0.025, "telemetry-parser's largest time difference against the source", file: file, line: line)
        // ffprobe: the packets at the source's, moved; the first (trimmed) at 0; each sample,
        // spread over its packet, within one sample period of its place in the source.
        let sourceTrack = try XCTUnwrap(try sourceReading(path).track, file: file, line: line)
        let track = try XCTUnwrap(try probeTrack(output, storedDurations: storedDurations), "no gpmd stream in \(output)", file: file, line: line)
        XCTAssertEqual(track.packets.count, kept.count, file: file, line: line)
        var storedWorst = 0.0
        for (n, (o, s)) in zip(track.packets, sourceTrack.packets[kept]).enumerated() {
            XCTAssertEqual(o.pts, max(s.pts - start, 0), accuracy: 1e-3, "ffprobe's packet time", file: file, line: line)
            let sourceCount = source.gyro_payloads[kept.lowerBound + n].count, count = out.gyro_payloads[n].count
            guard o.duration.isFinite, s.duration.isFinite, count > 0 else { continue }
            let skipped = sourceCount - count
            for j in 0..<count {
                let truth = s.pts + Double(skipped + j) * s.duration / Double(sourceCount) - start
                storedWorst = max(storedWorst, abs(o.pts + Double(j) * o.duration / Double(count) - truth))
            }
        }
        XCTAssertLessThan(storedWorst, period, "the stored track's largest time difference against the source", file: file, line: line)
        let ms = { (v: Double) in String(format: "%.3f", v * 1000) }
        print(
            "TelemetryKeptTests: \(output): \(count) gyro samples (\(dropped) of the first payload cut), largest time difference \(ms(storedWorst)) ms (stored), "
                + "\(ms(worst)) ms (Lockstep), \(ms(parserWorst)) ms (telemetry-parser); one sample: \(ms(period)) ms")
        // `imu info`: the same count, the rate within 0.5% of the source's.
        let info = try IMUInfoJob(options: IMUInfoOptions(path: output)).run()
        XCTAssertEqual(info.count, 1, file: file, line: line)
        XCTAssertEqual(info.first?.samples, count, file: file, line: line)
        XCTAssertEqual(info.first?.rateHz ?? 0, 1 / period, accuracy: 0.005 / period, file: file, line: line)
    }
}
