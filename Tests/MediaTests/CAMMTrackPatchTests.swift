import Foundation
import TestSupport
import XCTest

@testable import Media

/// The renaming that makes FFmpeg's `gpmd` data track a CAMM track, on files the ffmpeg CLI
/// muxed (an outside writer: movenc.c through its own front end): after it, ffprobe reads a
/// `camm` track, and the file differs from before in the renamed fourccs' bytes alone.
final class CAMMTrackPatchTests: MediaTestCase {
    /// 3 s of karma.mp4 with its GPMF track, remuxed by the ffmpeg CLI into `name`.
    func gpmdCopy(_ name: String) throws -> String {
        let out = path(name)
        try ffmpeg(["-t", "3", "-i", Repository.shared("karma.mp4"), "-map", "0:v", "-map", "0:3", "-c", "copy", "-tag:d", "gpmd", out])
        return out
    }

    func dataTags(_ path: String) throws -> String {
        let out = try Processes.check("ffprobe", ["-v", "error", "-select_streams", "d", "-show_entries", "stream=codec_tag_string", "-of", "csv=p=0", path])
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// ffprobe's trace of the box sizes it reads: the data track's `stsd` (the one after its
    /// `gmhd`, which only that track's `minf` holds) and its `gmhd`.
    func dataTrackBoxSizes(_ path: String) throws -> (stsd: Int, gmhd: Int) {
        let r = try Processes.run("ffprobe", ["-v", "trace", "-i", path])
        var gmhd: Int?
        for line in r.stderr.split(separator: "\n") {
            guard let t = line.range(of: "type:'") else { continue }
            let fields = line[t.upperBound...].split(separator: " ")
            guard fields.count >= 4, let size = Int(fields[3]) else { continue }
            if fields[0] == "gmhd'" { gmhd = size }
            if fields[0] == "stsd'", let g = gmhd { return (size, g) }
        }
        throw XCTSkip("no gmhd and stsd in ffprobe's trace of \(path)")
    }

    func dataPackets(_ path: String) throws -> String {
        let out = try Processes.check("ffprobe", ["-v", "error", "-select_streams", "d:0", "-show_entries", "packet=pts,duration,size", "-show_data_hash", "CRC32", "-of", "csv=p=0", path])
        return String(decoding: out, as: UTF8.self)
    }

    /// The track becomes CAMM, its sample entry CAMM's 16 bytes (movenc.c writes 20: 4 reserved
    /// zero bytes more), read so by ffprobe; its packets and every byte outside its `minf` as
    /// they were, the file's size the same.
    func testTheGPMDTrackBecomesCAMMOfTheSpecsSize() throws {
        for name in ["copy.mp4", "copy.mov"] {
            let file = try gpmdCopy(name)
            // The CLI adds a timecode track (karma.mp4's timecode tag): a second data track, left alone.
            XCTAssertEqual(try dataTags(file), "gpmd\ntmcd", name)
            let sizes = try dataTrackBoxSizes(file), packets = try dataPackets(file)
            XCTAssertEqual(sizes.stsd, 8 + 8 + 20, name)
            let before = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            try CAMMTrackPatch.apply(path: file)
            let after = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            XCTAssertEqual(try dataTags(file), "camm\ntmcd", name)
            XCTAssertEqual(after.count, before.count, name)
            // ffprobe: the entry 4 bytes shorter, the gmhd 4 longer; the same packets.
            let patched = try dataTrackBoxSizes(file)
            XCTAssertEqual(patched.stsd, 8 + 8 + 16, name)
            XCTAssertEqual(patched.gmhd, sizes.gmhd + 4, name)
            XCTAssertEqual(try dataPackets(file), packets, name)
            XCTAssertGreaterThan(packets.split(separator: "\n").count, 2, name)
            // The bytes: the entry is size 16, `camm`, 6 reserved zeros, data_reference_index 1,
            // and the `stsd`'s next sibling (stts) follows at once.
            func find(_ s: String, from: Int = 0) -> [Int] {
                let b = Array(s.utf8)
                return (from...(after.count - 4)).filter { Array(after[$0..<($0 + 4)]) == b }
            }
            let camm = try XCTUnwrap(find("camm").first, name)
            XCTAssertEqual(Array(after[(camm - 4)..<(camm + 12)]), [0, 0, 0, 16] + Array("camm".utf8) + [0, 0, 0, 0, 0, 0, 0, 1], name)
            XCTAssertEqual(String(decoding: after[(camm + 16)..<(camm + 20)], as: UTF8.self), "stts", name)
            // Every changed byte lies between the gmhd's size and the entry's end.
            let gmhd = try XCTUnwrap(find("gmhd").last { $0 < camm }, name)
            let changed = before.indices.filter { before[$0] != after[$0] }
            XCTAssertFalse(changed.isEmpty, name)
            XCTAssertTrue(changed.allSatisfy { $0 >= gmhd - 4 && $0 < camm + 12 }, "\(name): bytes \(changed.first!)...\(changed.last!) changed outside the minf")
        }
    }

    /// `TelemetryDemuxer.trackKind` (what `reverse` asks before saying a track is not kept)
    /// names the track from the stream list as the full read does, and nil without one: GPMF
    /// in karma.mp4's copy, CAMM in scripts/fixtures/make-camm-fixture's clip (Python, from the spec).
    func testTheTrackKindComesFromTheStreamList() throws {
        let gpmf = try gpmdCopy("kind.mp4")
        XCTAssertEqual(try TelemetryDemuxer.trackKind(path: gpmf), .gpmf)
        XCTAssertEqual(try CarriedTelemetry.read(path: gpmf)?.format.kind, .gpmf)
        let camm = path("camm.mp4")
        _ = try Processes.check("python3", [Repository.script("make-camm-fixture"), camm, path("camm.json")])
        XCTAssertEqual(try TelemetryDemuxer.trackKind(path: camm), .camm)
        XCTAssertEqual(try CarriedTelemetry.read(path: camm)?.format.kind, .camm)
        let plain = path("plain.mp4")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25:duration=0.2", "-c:v", "libx264", "-pix_fmt", "yuv420p", plain])
        XCTAssertNil(try TelemetryDemuxer.trackKind(path: plain))
    }

    func testAFileWithoutAGPMDTrackIsRefusedAndLeftAsItWas() throws {
        let file = path("plain.mp4")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25:duration=0.2", "-c:v", "libx264", "-pix_fmt", "yuv420p", file])
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let e = mediaError { try CAMMTrackPatch.apply(path: file) }
        XCTAssertEqual(e?.description, "\(file): cannot mark the telemetry track as CAMM: no gpmd track as FFmpeg writes it")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), before)
    }
}
