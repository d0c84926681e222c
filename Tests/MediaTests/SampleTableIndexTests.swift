import Compositor
import Foundation
import XCTest

@testable import Media

/// The keyframe index from an MP4's sample table equals the one from reading every packet, and
/// a segment starting late in such a file reads no packet before its keyframe. Fixtures from
/// the ffmpeg CLI (x264 with and without B-frames, open GOPs, negative composition offsets,
/// MPEG-4 part 2 in .mov, variable rate, edit lists) and from Lockstep's own writer.
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

    /// The table cannot stand in for `path`: no table records, and the reader's index comes
    /// from the packet pass with `frames` frames.
    private func assertPacketPass(_ path: String, frames: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertNil(try bothWays(path).table, file: file, line: line)
        let reader = try MovieReader(path: path, audio: false)
        XCTAssertEqual(try reader.keyframeIndex().frameCount, frames, file: file, line: line)
        XCTAssertEqual(reader.keyframeIndexSource, .packetPass, file: file, line: line)
    }

    /// `MP4Boxes`' reading of the `ctts` of `path`'s video track (the track of `trackOf`, by default `path`'s own).
    private func compositionOffsets(_ path: String, trackOf: String? = nil, sampleCount: Int) throws -> MP4Boxes.CompositionOffsets? {
        let input = try InputFormat(path: trackOf ?? path, cancellation: CancellationToken())
        let st = input.stream(try input.onlyBestVideoStream())
        return MP4Boxes.compositionOffsets(path: path, trackID: st.pointee.id, sampleCount: sampleCount)
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

    /// Another encoder, container flavour and time scale: MPEG-4 part 2 in a .mov, moov first,
    /// without and with B-frames.
    func testMPEG4InMOV() throws {
        for bf in [0, 2] {
            let p = path("m4v-\(bf).mov")
            try ffmpeg(["-f", "lavfi", "-i", "mandelbrot=size=128x96:rate=25", "-t", "3", "-c:v", "mpeg4", "-bf", "\(bf)", "-g", "12", "-movflags", "+faststart", p])
            try bf == 0 ? assertSameIndex(p, frames: 75) : assertSameIndexWithBFrames(p, frames: 75)
        }
    }

    /// Frames dropped at random places: the steps differ, the table still gives every time,
    /// without and with B-frames (no single frame rate: every pts and duration the packets').
    func testVariableRate() throws {
        for bf in [0, 3] {
            let p = path("vfr-\(bf).mp4")
            try ffmpeg([
                "-f", "lavfi", "-i", "testsrc=size=96x64:rate=30:duration=3", "-vf", "select='not(eq(mod(n\\,7)\\,3))'",
                "-vsync", "vfr", "-c:v", "libx264", "-bf", "\(bf)", "-g", "20", "-video_track_timescale", "90000", p
            ])
            let (table, _) = try bothWays(p)
            let steps = Set(zip(table ?? [], (table ?? []).dropFirst()).map { $1.dts! - $0.dts! })
            XCTAssertGreaterThan(steps.count, 1, "the fixture is variable-rate")
            try bf == 0 ? assertSameIndex(p, frames: 90 - 13) : assertSameIndexWithBFrames(p, frames: 90 - 13)
        }
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

    /// Starts `path` at frame `first` from its sample-table index; the first picture's index and
    /// the packets read to get it (none before the seek).
    private func packetsToFirstPicture(_ path: String, at first: Int, file: StaticString = #filePath, line: UInt = #line) throws -> (index: KeyframeIndex, first: Int?, packets: Int) {
        let reader = try MovieReader(path: path, audio: false)
        let index = try reader.keyframeIndex()
        XCTAssertEqual(reader.keyframeIndexSource, .sampleTable, file: file, line: line)
        try reader.start(at: first, seekingFrom: first, index: index)
        // The one packet that says where the seek landed (read again after seeking back there).
        XCTAssertEqual(reader.packetsRead, index.segment(of: first) > 0 ? 1 : 0, file: file, line: line)
        let frame = Frame()
        var shown: Int?
        while shown == nil {
            switch try reader.next(into: frame, audioSink: { _ in }) {
            case .video(let picture): shown = picture.source.index
            case .audio: continue
            case .end: return (index, nil, reader.packetsRead)
            }
        }
        return (index, shown, reader.packetsRead)
    }

    /// The same as `assertSameIndex`, for a file with B-frames (pts differs from dts somewhere).
    private func assertSameIndexWithBFrames(_ path: String, frames: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let (_, pass) = try bothWays(path)
        XCTAssertTrue(pass.contains { $0.pts != $0.dts }, "the fixture has B-frames", file: file, line: line)
        try assertSameIndex(path, frames: frames, file: file, line: line)
    }

    private let x264 = ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=4", "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p"]

    /// x264's defaults: 3 B-frames, pyramid; `ctts` version 0, shifted by an edit list; in an
    /// MP4 and in a QuickTime .mov.
    func testBFramesX264Default() throws {
        for p in [path("bf.mp4"), path("bf.mov")] {
            try ffmpeg(x264 + [p])
            try assertSameIndexWithBFrames(p, frames: 120)
        }
    }

    /// Adaptive B-frame placement (trellis), so the offsets vary run by run.
    func testBFramesTrellisStrategy() throws {
        let p = path("bs2.mp4")
        try ffmpeg(x264 + ["-bf", "3", "-b_strategy", "2", p])
        try assertSameIndexWithBFrames(p, frames: 120)
    }

    /// Open GOPs: B-frames before an I-frame in presentation order that need the GOP before.
    func testOpenGOP() throws {
        let p = path("open.mp4")
        try ffmpeg(x264 + ["-x264-params", "open-gop=1", p])
        try assertSameIndexWithBFrames(p, frames: 120)
    }

    /// `ctts` version 1 with negative offsets and no edit list: mov.c's dts_shift at work.
    func testNegativeCompositionOffsets() throws {
        let p = path("neg.mp4")
        try ffmpeg(x264 + ["-movflags", "+negative_cts_offsets", p])
        try assertSameIndexWithBFrames(p, frames: 120)
    }

    /// A cut of a B-frame file by stream copy: the edit list starts mid-GOP at 0.5 s.
    func testEditListCutOfBFrames() throws {
        let src = path("src.mp4"), p = path("cut.mp4")
        try ffmpeg(x264 + [src])
        try ffmpeg(["-ss", "0.5", "-i", src, "-c", "copy", p])
        let (table, _) = try bothWays(p)
        XCTAssertEqual(table?.filter(\.discard).count, 15)
        try assertSameIndexWithBFrames(p, frames: 105)
        // mov.c's seek shifts this file's times by 5 frames: still on the keyframe at 85
        // (source frame 100), reading frames 85...90 and the B-frames' reordering only.
        let (index, first, packets) = try packetsToFirstPicture(p, at: 90)
        XCTAssertEqual(index.frames(ofSegment: index.segment(of: 90)), 85..<105)
        XCTAssertEqual(first, 90)
        XCTAssertGreaterThanOrEqual(packets, 6)
        XCTAssertLessThanOrEqual(packets, 15)
    }

    /// HEVC (x265's B-frames, `hvc1`) and MPEG-2 in a .mov: other encoders, other offsets.
    func testHEVCAndMPEG2() throws {
        let hevc = path("hevc.mp4"), m2v = path("m2v.mov")
        try ffmpeg(Array(x264.prefix(4)) + ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=25", "-tag:v", "hvc1", "-pix_fmt", "yuv420p", hevc])
        try assertSameIndexWithBFrames(hevc, frames: 120)
        try ffmpeg(Array(x264.prefix(4)) + ["-c:v", "mpeg2video", "-bf", "2", "-g", "15", m2v])
        try assertSameIndexWithBFrames(m2v, frames: 120)
    }

    /// Lockstep's own writer makes B-frames; its outputs used to pay the packet pass.
    func testOwnWriterOutput() throws {
        let p = path("own.mp4")
        try writeMovie(p, frames: 40)
        try assertSameIndexWithBFrames(p, frames: 40)
    }

    /// A `ctts` whose runs count one sample too many: not trusted, the packets are read.
    func testInconsistentCompositionOffsetsFallBack() throws {
        let src = path("src.mp4"), p = path("bad.mp4")
        try ffmpeg(x264 + ["-movflags", "+faststart", src])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: src)))
        let at = try XCTUnwrap((0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual("ctts".utf8) })
        // The last run's sample_count, low byte, one up: mov.c stops at the sample count, so
        // the packets are the source's; the runs no longer add up to it.
        let entries = Int(bytes[at + 8..<at + 12].reduce(0) { $0 << 8 | UInt32($1) })
        bytes[at + 12 + (entries - 1) * 8 + 3] &+= 1
        try Data(bytes).write(to: URL(fileURLWithPath: p))
        XCTAssertNil(try compositionOffsets(p, sampleCount: 120))
        XCTAssertNotNil(try compositionOffsets(src, trackOf: p, sampleCount: 120))
        try assertPacketPass(p, frames: 120)
    }

    /// Interlaced H.264 with B-frames: the parser may give packets durations of its own
    /// (repeat_pict), so the packets are read, and the index is still right.
    func testInterlacedBFramesFallBack() throws {
        let p = path("tff.mp4")
        try ffmpeg(x264 + ["-flags", "+ildct+ilme", "-top", "1", p])
        let (table, pass) = try bothWays(p)
        XCTAssertTrue(pass.contains { $0.pts != $0.dts }, "the fixture has B-frames")
        XCTAssertNil(table)
        try assertPacketPass(p, frames: 120)
    }

    /// Fragmented MP4 keeps samples and offsets in `moof` boxes: packets are read.
    func testFragmentedFallsBack() throws {
        let p = path("frag.mp4")
        try ffmpeg(x264 + ["-movflags", "frag_keyframe+empty_moov", p])
        try assertPacketPass(p, frames: 120)
    }

    /// The `ctts` runs as mov.c reads them: expanded per sample, dts_shift from the negative
    /// offsets but the last two runs', and nil where they cannot be trusted.
    func testCompositionOffsetRuns() {
        func runs(_ r: [(UInt32, Int32)]) -> [UInt8] {
            r.flatMap { c, o in [c, UInt32(bitPattern: o)].flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } } }
        }
        let r: [(UInt32, Int32)] = [(2, -1024), (1, 0), (3, 512), (1, -2048), (1, -4096)]
        XCTAssertEqual(
            MP4Boxes.offsets(version: 1, runs: runs(r), entries: 5, sampleCount: 8),
            .perSample([-1024, -1024, 0, 512, 512, 512, -2048, -4096], shift: 1024))
        XCTAssertEqual(
            MP4Boxes.offsets(version: 0, runs: runs([(3, 512), (1, 0)]), entries: 2, sampleCount: 4),
            .perSample([512, 512, 512, 0], shift: 0))
        XCTAssertNil(MP4Boxes.offsets(version: 1, runs: runs(r), entries: 5, sampleCount: 9), "runs short of the samples")
        XCTAssertNil(MP4Boxes.offsets(version: 1, runs: runs(r), entries: 5, sampleCount: 7), "runs past the samples")
        XCTAssertNil(MP4Boxes.offsets(version: 0, runs: runs(r), entries: 5, sampleCount: 8), "negative in version 0")
        XCTAssertNil(MP4Boxes.offsets(version: 1, runs: runs([(0, 5), (4, 0)]), entries: 2, sampleCount: 4), "an empty run")
        XCTAssertNil(MP4Boxes.offsets(version: 1, runs: runs([(4, 1 << 29)]), entries: 1, sampleCount: 4), "an offset mov.c rejects")
        XCTAssertNil(MP4Boxes.offsets(version: 2, runs: runs([(4, 0)]), entries: 1, sampleCount: 4), "an unknown version")
    }

    /// A box after the movie whose 64-bit size is near 2^63 (FFmpeg opens the file, the box is
    /// past everything it needs): the box walk added that size to the box's position and
    /// trapped on the overflow. Now the size is out of reach: not an MP4 the walk trusts, and
    /// the packets are read.
    func testHugeBoxSizeAfterTheMovieFallsBackInsteadOfTrapping() throws {
        let src = path("src.mp4"), p = path("huge-box.mp4")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25:duration=2", "-c:v", "libx264", "-bf", "0", "-movflags", "+faststart", src])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: src)))
        let size: UInt64 = 0x7FFF_FFFF_FFFF_FF00
        bytes += [0, 0, 0, 1] + Array("free".utf8) + (0..<8).map { UInt8(truncatingIfNeeded: size >> (56 - 8 * $0)) }
        try Data(bytes).write(to: URL(fileURLWithPath: p))
        XCTAssertNil(try compositionOffsets(p, sampleCount: 50))
        try assertPacketPass(p, frames: 50)
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
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=10", "-c:v", "libx264", "-bf", "0", "-g", "25",
            "-sc_threshold", "0", "-pix_fmt", "yuv420p", p
        ])
        let reader = try MovieReader(path: p, audio: false)
        let index = try reader.keyframeIndex()
        XCTAssertEqual(reader.keyframeIndexSource, .sampleTable)
        XCTAssertEqual(index.frameCount, 300)
        XCTAssertEqual(index.frames(ofSegment: index.segment(of: 210)), 200..<225)
        try reader.start(at: 210, seekingFrom: 210, index: index)
        XCTAssertEqual(reader.packetsRead, 1, "the one packet that says where the seek landed")
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

    /// The same with B-frames (x264's defaults): the table gives the order, the seek lands on
    /// keyframe 200, and the first picture comes after reading that GOP's packets only.
    func testTailSegmentOfBFramesReadsNoPacketBeforeItsKeyframe() throws {
        let p = path("longbf.mp4")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=10", "-c:v", "libx264", "-g", "25",
            "-sc_threshold", "0", "-pix_fmt", "yuv420p", p
        ])
        let (index, first, packets) = try packetsToFirstPicture(p, at: 210)
        XCTAssertEqual(index.frameCount, 300)
        XCTAssertEqual(index.frames(ofSegment: index.segment(of: 210)), 200..<225)
        XCTAssertEqual(first, 210)
        // Frames 200...210 in decode order plus the B-frames' reordering: well under the 25 of
        // a GOP, so nothing before keyframe 200 was read.
        XCTAssertGreaterThanOrEqual(packets, 11)
        XCTAssertLessThanOrEqual(packets, 20)
    }

    /// Every segment's first frame, in a B-frame file, the same cut with an edit list (mov.c
    /// shifts its seeks by 5 frames) and the same delayed by an empty edit: the seek lands on
    /// that segment's keyframe (fewer packets read than a GOP), the last segment's too.
    func testEverySegmentSeeksToItsOwnKeyframe() throws {
        let src = path("src.mp4"), cut = path("cut.mp4"), late = path("late.mp4")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=30:duration=4", "-c:v", "libx264", "-g", "25",
            "-sc_threshold", "0", "-pix_fmt", "yuv420p", src
        ])
        try ffmpeg(["-ss", "0.5", "-i", src, "-c", "copy", cut])
        try ffmpeg(["-itsoffset", "1", "-i", src, "-c", "copy", late])
        for p in [src, cut, late] {
            let index = try MovieReader(path: p, audio: false).keyframeIndex()
            XCTAssertGreaterThan(index.segmentStarts.count, 4, p)
            for start in index.segmentStarts.dropFirst() {
                let (_, first, packets) = try packetsToFirstPicture(p, at: start)
                XCTAssertEqual(first, start, "\(p) frame \(start)")
                XCTAssertLessThan(packets, 10, "\(p) frame \(start): read from an earlier keyframe")
            }
        }
    }

    /// Where a seek aims: a keyframe's dts for most demuxers; for mov.c's (which takes a pts and
    /// subtracts a shift of its own) half way to the next keyframe's decode time, or for the
    /// last keyframe the last frame's time.
    func testSeekTargets() throws {
        // Decode order I0 P3 B1 B2 | I4 P6 B5, pts 2 frames (of 10) after dts.
        let packets: [KeyframeIndex.Packet] = [
            (20, 0, true), (50, 10, false), (30, 20, false), (40, 30, false),
            (60, 40, true), (80, 50, false), (70, 60, false)
        ]
        .map { KeyframeIndex.Packet(pts: $0.0, dts: $0.1, duration: 10, keyframe: $0.2) }
        let index = try KeyframeIndex(packets: packets, timeBase: Rational(1, 100))
        XCTAssertEqual(index.segmentStarts, [0, 4])
        XCTAssertEqual(index.seekTarget(ofSegment: 0, presentationTimes: false), 0)
        XCTAssertEqual(index.seekTarget(ofSegment: 1, presentationTimes: false), 40)
        XCTAssertEqual(index.seekTarget(ofSegment: 0, presentationTimes: true), 20 + 40 / 2)
        XCTAssertEqual(index.seekTarget(ofSegment: 1, presentationTimes: true), 80)
        let cut = try KeyframeIndex(
            packets: [KeyframeIndex.Packet(pts: 0, dts: 0, duration: 10, keyframe: false)] + packets.dropFirst(4),
            timeBase: Rational(1, 100))
        XCTAssertNil(cut.seekTarget(ofSegment: 0, presentationTimes: true), "no keyframe: from the start")
    }
}
