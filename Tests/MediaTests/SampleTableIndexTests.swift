import Compositor
import Foundation
import XCTest
@testable import Media

/// The keyframe index from an MP4's sample table equals the one from reading every packet, and
/// a segment starting late in such a file reads no packet before its keyframe. Fixtures from
/// the ffmpeg CLI (x264 without B-frames, MPEG-4 part 2 in .mov, variable rate, an edit list)
/// and from Lockstep's own writer (B-frames: the table cannot stand in).
final class SampleTableIndexTests: MediaTestCase {
    /// The same file's records both ways: the sample table's (nil: not usable) and the packet pass's.
    private func bothWays(_ path: String) throws -> (table: [KeyframeIndex.Packet]?, pass: [KeyframeIndex.Packet]) {
        let input = try InputFormat(path: path, cancellation: CancellationToken())
        let vs = try input.onlyBestVideoStream()
        let table = input.sampleTablePackets(of: vs)
        XCTAssertEqual(input.packetsRead, 0, "the sample table is read without packets")
        let pass = try input.indexPackets(of: vs, into: Packet())
        return (table, pass)
    }

    /// The table's records equal the packet pass's, field for field, and so do the indexes.
    private func assertSameIndex(_ path: String, frames: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let (table, pass) = try bothWays(path)
        guard let table else { return XCTFail("no sample-table index for \(path)", file: file, line: line) }
        XCTAssertEqual(table.count, pass.count, file: file, line: line)
        for (i, (a, b)) in zip(table, pass).enumerated() where a != b {
            return XCTFail("sample \(i): table \(a), packets \(b)", file: file, line: line)
        }
        let tb = Rational(1, 1)  // the same for both: only the records are compared here
        XCTAssertEqual(try KeyframeIndex(packets: table, timeBase: tb), try KeyframeIndex(packets: pass, timeBase: tb), file: file, line: line)
        // The frame count the index claims is what decoding from the start shows.
        let reader = try MovieReader(path: path, audio: false)
        let index = try reader.keyframeIndex()
        XCTAssertEqual(reader.keyframeIndexSource, .sampleTable, file: file, line: line)
        XCTAssertEqual(index.frameCount, frames, file: file, line: line)
        XCTAssertEqual(try readAll(path).frames, frames, file: file, line: line)
    }

    func testConstantRateWithoutBFrames() throws {
        let p = path("cfr.mp4")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=4", "-c:v", "libx264", "-bf", "0", "-g", "25", "-pix_fmt", "yuv420p", p])
        try assertSameIndex(p, frames: 120)
    }

    /// Another encoder, container flavour and time scale: MPEG-4 part 2 in a .mov, moov first.
    func testMPEG4InMOV() throws {
        let p = path("m4v.mov")
        try ffmpeg(["-f", "lavfi", "-i", "mandelbrot=size=128x96:rate=25", "-t", "3", "-c:v", "mpeg4", "-g", "12", "-movflags", "+faststart", p])
        try assertSameIndex(p, frames: 75)
    }

    /// Frames dropped at random places: the steps differ, the table still gives every time.
    func testVariableRate() throws {
        let p = path("vfr.mp4")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=96x64:rate=30:duration=3", "-vf", "select='not(eq(mod(n\\,7)\\,3))'",
                    "-vsync", "vfr", "-c:v", "libx264", "-bf", "0", "-g", "20", "-video_track_timescale", "90000", p])
        let (table, _) = try bothWays(p)
        let steps = Set(zip(table ?? [], (table ?? []).dropFirst()).map { $1.dts! - $0.dts! })
        XCTAssertGreaterThan(steps.count, 1, "the fixture is variable-rate")
        try assertSameIndex(p, frames: 90 - 13)
    }

    /// A cut with `-ss` and stream copy: an edit list starts the movie at 0.5 s, mid-GOP; the 15
    /// samples before it are decoded and never shown (discarded), so frame 0 is the first shown.
    func testEditListDiscardsAreNotFrames() throws {
        let src = path("src.mp4"), p = path("el.mp4")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=4", "-c:v", "libx264", "-bf", "0", "-g", "25", "-pix_fmt", "yuv420p", src])
        try ffmpeg(["-ss", "0.5", "-i", src, "-c", "copy", p])
        let (table, pass) = try bothWays(p)
        XCTAssertEqual(table?.filter(\.discard).count, 15)
        XCTAssertEqual(pass.filter(\.discard).count, 15)
        try assertSameIndex(p, frames: 105)
        let video = try MovieReader(path: p, audio: false).video
        XCTAssertEqual(video.indexedFrames, 120)
        XCTAssertEqual(video.shownFrames, 105)
        let index = try KeyframeIndex(packets: table!, timeBase: Rational(1, 15360))
        XCTAssertEqual(index.pts.first, 0)
        XCTAssertNil(index.seekPoints[0], "frame 0 is mid-GOP: decoded from the stream's start")
    }

    /// B-frames: FFmpeg's index has decode times only, so the packets are read (and the answer
    /// is the same as ever). Lockstep's own writer makes B-frames.
    func testBFramesFallBackToThePacketPass() throws {
        let p = path("own.mp4")
        try writeMovie(p, frames: 40)
        let (table, pass) = try bothWays(p)
        XCTAssertNil(table)
        XCTAssertEqual(pass.count, 40)
        XCTAssertTrue(pass.contains { $0.pts != $0.dts }, "the fixture has B-frames")
        let reader = try MovieReader(path: p, audio: false)
        XCTAssertEqual(try reader.keyframeIndex().frameCount, 40)
        XCTAssertEqual(reader.keyframeIndexSource, .packetPass)
    }

    /// Matroska has no per-frame index; a cut MP4's table points past its end: both read packets
    /// (the cut one then fails as truncated, as before).
    func testNoTableForMatroskaOrACutFile() throws {
        let mkv = path("a.mkv"), mp4 = path("b.mp4"), cut = path("cut.mp4")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25:duration=2", "-c:v", "libx264", "-bf", "0", mkv])
        XCTAssertNil(try bothWays(mkv).table)
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25:duration=2", "-c:v", "libx264", "-bf", "0", "-movflags", "+faststart", mp4])
        let data = try Data(contentsOf: URL(fileURLWithPath: mp4))
        try data.prefix(data.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        XCTAssertNil(try bothWays(cut).table)
        let reader = try MovieReader(path: cut, audio: false)
        XCTAssertEqual(mediaError { _ = try reader.keyframeIndex() }?.message.hasPrefix("truncated file: its index lists 50 video frames"), true)
    }

    /// A segment starting at frame 210 of 300 (GOPs of 25): no packet is read to build the index
    /// or to seek, and the first picture comes after reading from the keyframe at 200 only.
    func testTailSegmentReadsNoPacketBeforeItsKeyframe() throws {
        let p = path("long.mp4")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=10", "-c:v", "libx264", "-bf", "0", "-g", "25",
                    "-sc_threshold", "0", "-pix_fmt", "yuv420p", p])
        let reader = try MovieReader(path: p, audio: false)
        let index = try reader.keyframeIndex()
        XCTAssertEqual(reader.keyframeIndexSource, .sampleTable)
        XCTAssertEqual(index.frameCount, 300)
        XCTAssertEqual(index.frames(ofSegment: index.segment(of: 210)), 200..<225)
        try reader.start(at: 210, seekingFrom: 210, index: index)
        XCTAssertEqual(reader.packetsRead, 0)
        let frame = Frame()
        var first: Int?
        while first == nil {
            if case .video(let picture) = try reader.next(into: frame, audioSink: { _ in }) { first = picture.source.index }
        }
        XCTAssertEqual(first, 210)
        // Frames 200...210 and whatever the decoder holds back (no B-frames: nothing).
        XCTAssertLessThanOrEqual(reader.packetsRead, 12)
        XCTAssertGreaterThanOrEqual(reader.packetsRead, 11)
    }
}
