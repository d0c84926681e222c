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

    func testTheGPMDTrackBecomesCAMMWithNoOtherByteChanged() throws {
        for name in ["copy.mp4", "copy.mov"] {
            let file = try gpmdCopy(name)
            // The CLI adds a timecode track (karma.mp4's timecode tag): a second data track, left alone.
            XCTAssertEqual(try dataTags(file), "gpmd\ntmcd", name)
            let before = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            try CAMMTrackPatch.apply(path: file)
            let after = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            XCTAssertEqual(try dataTags(file), "camm\ntmcd", name)
            XCTAssertEqual(after.count, before.count, name)
            // Every changed byte lies in one of the file's `gpmd` fourccs, and two of them
            // changed: the stsd entry's to `camm`, the gmhd's empty box's to `free`.
            let gpmd = Array("gpmd".utf8)
            let fourccs = (0...(before.count - 4)).filter { Array(before[$0..<($0 + 4)]) == gpmd }
            let renamed = fourccs.filter { Array(after[$0..<($0 + 4)]) != gpmd }
            XCTAssertEqual(renamed.map { String(decoding: after[$0..<($0 + 4)], as: UTF8.self) }.sorted(), ["camm", "free"], name)
            let changed = before.indices.filter { before[$0] != after[$0] }
            XCTAssertFalse(changed.isEmpty, name)
            for c in changed { XCTAssertTrue(renamed.contains { ($0..<($0 + 4)).contains(c) }, "\(name): byte \(c) changed outside a renamed fourcc") }
        }
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
