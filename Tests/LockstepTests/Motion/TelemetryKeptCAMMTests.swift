import Compositor
import Foundation
import Media
import TestSupport
import XCTest

@testable import Lockstep

/// A CAMM track (Google's Camera Motion Metadata) carried through a cut: the clip comes from
/// scripts/fixtures/make-camm-fixture (the spec packed by hand in Python, its track's boxes built there,
/// apart from Lockstep), the output is read by outside readers (ffprobe's stream and packets
/// with their bytes, scripts/tools/mp4-sample-durations' own box walk, telemetry-parser) and by
/// Lockstep's (`imu info` as a command, `EmbeddedTelemetry`, `calibrate`).
final class TelemetryKeptCAMMTests: ScratchTestCase {
    struct Packet: Equatable {
        var pts: Int64
        var bytes: [UInt8]
    }

    /// ffprobe's reading of `path`'s data stream: its tag, handler, time base and packets (pts
    /// in the stream's ticks, the bytes from `-show_data`'s hex dump).
    func probe(_ path: String) throws -> (tag: String, handler: String, timeBase: String, packets: [Packet]) {
        let json = try Shell.check(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "d", "-show_entries", "stream=codec_tag_string,time_base:stream_tags=handler_name:packet=pts,data",
                "-show_data", "-of", "json", path
            ])
        let top = try XCTUnwrap(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let stream = try XCTUnwrap((top["streams"] as? [[String: Any]])?.first, "no data stream in \(path)")
        let packets = try ((top["packets"] as? [[String: Any]]) ?? []).map { p -> Packet in
            let dump = try XCTUnwrap(p["data"] as? String)
            var bytes: [UInt8] = []
            for line in dump.split(separator: "\n") {
                // "00000000: 0000 0200 2504 2f3f ...  ....": the hex groups between ": " and the two spaces.
                guard let colon = line.range(of: ": ") else { continue }
                let hex = line[colon.upperBound...].components(separatedBy: "  ")[0].replacingOccurrences(of: " ", with: "")
                var at = hex.startIndex
                while at < hex.endIndex {
                    let next = hex.index(at, offsetBy: 2)
                    bytes.append(try XCTUnwrap(UInt8(hex[at..<next], radix: 16)))
                    at = next
                }
            }
            return Packet(pts: Int64(try XCTUnwrap(p["pts"] as? Int)), bytes: bytes)
        }
        let tags = stream["tags"] as? [String: Any]
        return (stream["codec_tag_string"] as? String ?? "", tags?["handler_name"] as? String ?? "", stream["time_base"] as? String ?? "", packets)
    }

    /// scripts/tools/mp4-sample-durations' stored durations (seconds) of the `meta` track.
    func storedDurations(_ path: String) throws -> [Double] {
        let text = String(decoding: try Shell.check(Repository.script("mp4-sample-durations"), [path]), as: UTF8.self)
        let line = try XCTUnwrap(text.split(separator: "\n").map { $0.split(separator: " ") }.first { $0.count > 1 && $0[1] == "meta" })
        return line.dropFirst(2).compactMap { Double($0) }
    }

    /// The size ffprobe's trace gives the data track's `stsd` (the one after a `gmhd`: only a
    /// data track's `minf` holds one in what FFmpeg writes).
    func dataTrackSampleDescriptionSize(_ path: String) throws -> Int? {
        let r = try Shell.run("ffprobe", ["-v", "trace", "-i", path])
        var inData = false
        for line in r.stderr.split(separator: "\n") {
            guard let t = line.range(of: "type:'") else { continue }
            let fields = line[t.upperBound...].split(separator: " ")
            guard fields.count >= 4 else { continue }
            if fields[0] == "gmhd'" { inData = true }
            if fields[0] == "stsd'", inData { return Int(fields[3]) }
        }
        return nil
    }

    func makeClip() throws -> String {
        let movie = scratch.appendingPathComponent("camm.mp4").path
        try Shell.check("python3", [EmbeddedTelemetryTests.script("make-camm-fixture"), movie, scratch.appendingPathComponent("camm.json").path])
        return movie
    }

    /// `filter --from 0.5 --to 1.5` at 25 fps: frames [12, 38), 0.48 s to 1.52 s. Every CAMM
    /// packet that begins in that span is in the output, its bytes the same, its time moved by
    /// 0.48 s (43200 ticks of 1/90000 s, the fixture's timescale and the output's), its stored
    /// length the same; none from outside it.
    func testACutKeepsTheCAMMTrackAsCAMMWithTheSamePacketsMoved() throws {
        let movie = try makeClip()
        let out = scratch.appendingPathComponent("cut.mp4").path
        let r = try Processes.lockstep(["filter", movie, "--filter", "none", "--from", "0.5", "--to", "1.5", "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "no notice: the track is kept")
        let source = try probe(movie), cut = try probe(out)
        XCTAssertEqual(cut.tag, "camm")
        XCTAssertEqual(cut.handler, "CameraMetadataMotionHandler")
        // The sample entry is CAMM's 16 bytes (FFmpeg's muxer writes 20): its stsd 8 + 8 + 16.
        XCTAssertEqual(try dataTrackSampleDescriptionSize(out), 32)
        XCTAssertEqual(source.timeBase, "1/90000")
        XCTAssertEqual(cut.timeBase, "1/90000")
        let start: Int64 = 43200, end: Int64 = 136_800
        let kept = source.packets.indices.filter { source.packets[$0].pts >= start && source.packets[$0].pts < end }
        XCTAssertGreaterThan(kept.count, 300)
        XCTAssertEqual(cut.packets, kept.map { Packet(pts: source.packets[$0].pts - start, bytes: source.packets[$0].bytes) })
        let sourceDurations = try storedDurations(movie), cutDurations = try storedDurations(out)
        XCTAssertEqual(cutDurations.count, kept.count)
        for (d, k) in zip(cutDurations, kept) { XCTAssertEqual(d, sourceDurations[k], accuracy: 1e-9, "sample \(k)'s stored length") }

        // telemetry-parser reads a CAMM camera and the source's gyro over the cut, sample for
        // sample, at the same spacing (it starts its times at the first sample).
        let whole = try parserDump(movie), part = try parserDump(out)
        XCTAssertEqual(part.camera, "CAMM")
        // The fixture's gyro sample k lies at 88 + 450 k ticks (its first packet, at 29 ticks,
        // moved to 0): samples 96 (0.4809 s) to 303 (1.5160 s) begin in the cut.
        let skipped = 96
        let expected = Array(whole.imu[skipped..<min(whole.imu.count, skipped + part.imu.count)])
        XCTAssertEqual(part.imu.count, 208)
        XCTAssertEqual(part.imu.map { Array($0.dropFirst()) }, expected.map { Array($0.dropFirst()) })
        for (o, s) in zip(part.imu, expected) { XCTAssertEqual(o[0] - part.imu[0][0], s[0] - expected[0][0], accuracy: 1e-6) }

        // Lockstep's reader: the same readings, each at its source time less 0.48 s.
        let original = try EmbeddedTelemetry.read(path: movie), copy = try EmbeddedTelemetry.read(path: out)
        XCTAssertEqual(copy.readings.count, part.imu.count)
        let offset = try XCTUnwrap(original.readings.firstIndex { Double($0.t) / 1e9 >= 0.48 - 1e-9 })
        for (i, c) in copy.readings.enumerated() {
            let s = original.readings[offset + i]
            XCTAssertEqual(c.gyro.x, s.gyro.x); XCTAssertEqual(c.gyro.y, s.gyro.y); XCTAssertEqual(c.gyro.z, s.gyro.z)
            XCTAssertEqual(Double(c.t) / 1e9, Double(s.t) / 1e9 - 0.48, accuracy: 1e-6)
        }
        // `lockstep imu info`: a CAMM trace of those samples at the source's rate.
        let info = try Processes.lockstep(["imu", "info", out])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("format    CAMM"), info.stdout)
        XCTAssertTrue(info.stdout.contains("samples   208 (gyro and accelerometer)"), info.stdout)
        XCTAssertTrue(info.stdout.contains("rate      200.000 Hz measured, 200 Hz declared"), info.stdout)
    }

    /// `calibrate` reads a whole copy's CAMM gyro as it reads the original's: the same axis
    /// mapping and offset. The fixture's gyro is not the picture's motion (its confidence is
    /// low, hence --force); what is compared is that the same gyro is found at the same times.
    func testCalibrateReadsACopysCAMMGyroAsTheOriginals() throws {
        let movie = try makeClip()
        let out = scratch.appendingPathComponent("copy.mp4").path
        let r = try Processes.lockstep(["filter", movie, "--filter", "none", "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try probe(out).tag, "camm")
        func profile(_ path: String, _ name: String) throws -> [String: Any] {
            let json = scratch.appendingPathComponent(name).path
            let c = try Processes.lockstep(["calibrate", path, "-o", json, "--quiet", "--force"])
            XCTAssertEqual(c.status, 0, c.stderr)
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        }
        let a = try profile(movie, "original.json"), b = try profile(out, "copy.json")
        XCTAssertEqual(a["axisMapping"] as? String, b["axisMapping"] as? String)
        XCTAssertEqual(try XCTUnwrap(a["timeOffsetMs"] as? Double), try XCTUnwrap(b["timeOffsetMs"] as? Double), accuracy: 5)
    }
}
