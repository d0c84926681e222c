import Foundation
import TestSupport
import XCTest

/// The fixtures and the helpers that read them check each other: every fixture frame decodes to
/// its own identity, in order; every fixture sounds its own tone; the containers say what
/// Fixtures/README.md says. If a fixture or a helper were wrong, every end-to-end test would
/// prove nothing.
final class SupportSelfTests: XCTestCase {
    struct Clip {
        var name: String, source: Int, frames: Int, fps: Double
        var size = (320, 240)
        var tone: Double?, rate: Int?, channels: Int?
    }

    static let clips: [Clip] = [
        Clip(name: "bg.mp4", source: 0, frames: 90, fps: 30, tone: 440, rate: 48000, channels: 2),
        Clip(name: "fg.mp4", source: 1, frames: 60, fps: 30, tone: 660, rate: 44100, channels: 1),
        Clip(name: "q0.mp4", source: 0, frames: 75, fps: 30, tone: 440, rate: 48000, channels: 1),
        Clip(name: "q1.mp4", source: 1, frames: 66, fps: 30, tone: 660, rate: 44100, channels: 2),
        Clip(name: "q2.mp4", source: 2, frames: 57, fps: 30, tone: 880, rate: 32000, channels: 6),
        Clip(name: "q3.mp4", source: 3, frames: 48, fps: 30, tone: 1100, rate: 22050, channels: 2),
        Clip(name: "l1.mp4", source: 1, frames: 60, fps: 30),
        Clip(name: "l2.mp4", source: 2, frames: 54, fps: 30),
        Clip(name: "l3.mp4", source: 3, frames: 45, fps: 30),
        Clip(name: "r25.mp4", source: 1, frames: 50, fps: 25, tone: 660, rate: 48000, channels: 2),
        Clip(name: "late.mkv", source: 1, frames: 45, fps: 30, tone: 660, rate: 48000, channels: 2),
        Clip(name: "noaudio.mp4", source: 2, frames: 40, fps: 30),
        Clip(name: "odd.mkv", source: 3, frames: 40, fps: 30, size: (321, 241)),
        Clip(name: "short.mp4", source: 1, frames: 12, fps: 30, tone: 660, rate: 48000, channels: 2)
    ]
    static let tones = [440.0, 660, 880, 1100]

    /// Each fixture's pictures decoded once per class (two tests read bg.mp4, fg.mp4 and odd.mkv).
    nonisolated(unsafe) static var decodedVideo: [String: LumaVideo] = [:]
    override class func tearDown() {
        decodedVideo = [:]
        super.tearDown()
    }

    func video(_ name: String) throws -> LumaVideo {
        if let known = Self.decodedVideo[name] { return known }
        let video = try LumaVideo.decode(Fixtures.url(name))
        Self.decodedVideo[name] = video
        return video
    }

    func testEveryFixtureFrameReadsAsItsOwnSourceAndIndexInOrder() throws {
        for clip in Self.clips {
            let video = try video(clip.name)
            XCTAssertEqual(video.width, clip.size.0, clip.name)
            XCTAssertEqual(video.height, clip.size.1, clip.name)
            XCTAssertEqual(video.frames.count, clip.frames, "\(clip.name): decoded frames")
            var wrong: [String] = []
            for (n, frame) in video.frames.enumerated() {
                let id = Barcode.read(frame, width: video.width, region: .band(clip.source))
                if id?.source != clip.source || id?.index != n { wrong.append("frame \(n) reads \(String(describing: id))") }
                // No other band holds a strip: the reader does not find one in the pattern or on green.
                for other in 0..<8 where other != clip.source && BarcodeRegion.band(other).y0 + 16 <= Double(video.height) {
                    if let ghost = Barcode.read(frame, width: video.width, region: .band(other)) {
                        wrong.append("frame \(n) band \(other) reads \(ghost)")
                    }
                }
            }
            XCTAssertEqual(wrong.prefix(5).joined(separator: "; "), "", clip.name)
        }
    }

    func testTheStripIsCleanWhiteAndBlackAndThePictureStaysOutOfIt() throws {
        // White cells decode to 255 and black ones to 0 (gray is full range), far from 128;
        // plain pictures stay dark (they never pass for a white cell); keyed ones are green (150).
        for name in ["bg.mp4", "fg.mp4", "odd.mkv"] {
            let clip = Self.clips.first { $0.name == name }!
            let video = try video(name)
            for frame in video.frames {
                let means = Barcode.cellMeans(frame, width: video.width, region: .band(clip.source))!
                XCTAssertTrue(means.allSatisfy { $0 > 230 || $0 < 25 }, "\(name): \(means)")
            }
            // The brightest pixel outside the strip's black box (one cell around it, and 2 px more).
            let y0 = Int(BarcodeRegion.band(clip.source).y0), outside = (0..<video.height).filter { $0 < y0 - 18 || $0 >= y0 + 34 }
            let plainMax = video.frames.map { f in outside.map { y in PixelStatistics.max(f, (y * video.width)..<((y + 1) * video.width))! }.max()! }.max()!
            if name == "fg.mp4" {
                XCTAssertEqual(Double(video.frames[0][(video.height - 8) * video.width + 8]), 150, accuracy: 3, "keyed green")
            } else {
                XCTAssertLessThan(plainMax, 110, "\(name): the plain picture stays dark")
            }
        }
    }

    func testAScaledAndMovedStripReadsThroughItsScaledRegion() throws {
        // The quad layout (q1 at half size in the top-right cell) and a fractional scale (odd.mkv
        // 321x241 fitted to 240 high), made by ffmpeg's scaler as an outside reference.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("support-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [(input: String, filter: String, region: BarcodeRegion, source: Int, frames: Int)] = [
            ("q1.mp4", "scale=160:120,pad=320:240:160:0", BarcodeRegion.band(1).scaled(by: 0.5, offsetX: 160, offsetY: 0), 1, 66),
            ("q3.mp4", "scale=160:120,pad=320:240:160:120", BarcodeRegion.band(3).scaled(by: 0.5, offsetX: 160, offsetY: 120), 3, 48),
            ("odd.mkv", "scale=-2:240", BarcodeRegion.band(3).scaled(by: 240.0 / 241.0, offsetX: 0, offsetY: 0), 3, 40)
        ]
        for (k, c) in cases.enumerated() {
            let out = dir.appendingPathComponent("\(k).mp4")
            try Shell.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-y", "-i", Fixtures.url(c.input).path, "-vf", c.filter, "-an",
                    "-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt", "yuv420p", out.path
                ])
            let video = try LumaVideo.decode(out)
            XCTAssertEqual(video.frames.count, c.frames, c.input)
            for (n, frame) in video.frames.enumerated() {
                let id = Barcode.read(frame, width: video.width, region: c.region)
                if id?.source != c.source || id?.index != n { XCTFail("\(c.input) scaled, frame \(n) reads \(String(describing: id))"); break }
            }
            // Read at the unscaled place, the strip is not there.
            XCTAssertNil(Barcode.read(video.frames[5], width: video.width, region: .band(c.source).scaled(by: 0.5, offsetX: 0, offsetY: 120)))
        }
    }

    func testTheReaderRejectsWhatIsNotAStrip() {
        let w = 320, h = 240
        XCTAssertNil(Barcode.read([UInt8](repeating: 0, count: w * h), width: w, region: .band(0)), "black")
        XCTAssertNil(Barcode.read([UInt8](repeating: 255, count: w * h), width: w, region: .band(0)), "white")
        XCTAssertNil(Barcode.read([UInt8](repeating: 150, count: w * h), width: w, region: .band(0)), "key green")
        XCTAssertNil(Barcode.read([UInt8](repeating: 0, count: w * h), width: w, region: .band(2).scaled(by: 1, offsetX: 200, offsetY: 0)), "outside")
        // A hand-drawn strip for source 5, index 0xA5C reads back.
        var f = [UInt8](repeating: 60, count: w * h)
        let r = BarcodeRegion.band(5)
        for y in Int(r.y0) - 8..<Int(r.y0) + 24 { for x in Int(r.x0) - 8..<Int(r.x0) + 264 { f[y * w + x] = 0 } }
        let bits = [true] + (0..<3).map { (5 >> $0) & 1 == 1 } + (0..<12).map { (0xA5C >> $0) & 1 == 1 }
        for (i, on) in bits.enumerated() where on {
            for y in Int(r.y0)..<Int(r.y0) + 16 { for x in Int(r.x0) + 16 * i..<Int(r.x0) + 16 * (i + 1) { f[y * w + x] = 255 } }
        }
        XCTAssertEqual(Barcode.read(f, width: w, region: r)?.source, 5)
        XCTAssertEqual(Barcode.read(f, width: w, region: r)?.index, 0xA5C)
    }

    func testContainersSayWhatTheReadmeSays() throws {
        for clip in Self.clips {
            // One ffprobe run for the streams and the frame times (it decodes the clip once).
            let (streams, pts) = try Probe.streamsAndVideoPTS(Fixtures.url(clip.name))
            let v = streams.first { $0.codecType == "video" }
            XCTAssertEqual(v?.codecName, "h264", clip.name)
            XCTAssertEqual(v?.nbReadFrames, clip.frames, "\(clip.name): ffprobe -count_frames")
            XCTAssertEqual(v?.frameRate, clip.fps, clip.name)
            XCTAssertEqual(v?.pixFmt, clip.name == "odd.mkv" ? "yuv444p" : "yuv420p", clip.name)
            XCTAssertEqual(pts.count, clip.frames, clip.name)
            let start = clip.name == "late.mkv" ? 0.5 : 0
            // Matroska keeps milliseconds.
            let tolerance = clip.name.hasSuffix(".mkv") ? 0.0006 : 1e-6
            for (n, t) in pts.enumerated() where abs(t - (start + Double(n) / clip.fps)) > tolerance {
                XCTFail("\(clip.name) frame \(n) pts \(t)"); break
            }
            let a = streams.filter { $0.codecType == "audio" }
            if let rate = clip.rate {
                XCTAssertEqual(a.count, 1, clip.name)
                XCTAssertEqual(a.first?.sampleRate, rate, clip.name)
                XCTAssertEqual(a.first?.channels, clip.channels, clip.name)
                XCTAssertEqual(a.first?.codecName, clip.name == "late.mkv" ? "flac" : "aac", clip.name)
                XCTAssertEqual(a.first?.startTime ?? -1, start, accuracy: 1e-6, "\(clip.name): audio starts with video")
            } else {
                XCTAssertTrue(a.isEmpty, "\(clip.name) has no audio")
            }
        }
        XCTAssertEqual(try Probe.streams(Fixtures.url("q2.mp4")).first { $0.codecType == "audio" }?.channelLayout, "5.1")
    }

    func testEachFixtureSoundsItsOwnToneOnly() throws {
        for clip in Self.clips {
            guard let tone = clip.tone else { continue }
            // One decode for the levels and the length (`AudioAnalysis.toneLevels` over these samples).
            let samples = try AudioAnalysis.decodeMono(Fixtures.url(clip.name))
            var levels: [Double: Double] = [:]
            for f in Self.tones { levels[f] = AudioAnalysis.goertzelPower(samples[...], frequency: f, rate: 48000) }
            for other in Self.tones where other != tone {
                XCTAssertGreaterThan(levels[tone]!, 100 * levels[other]!, "\(clip.name): \(tone) Hz over \(other) Hz by more than 20 dB")
            }
            // ffmpeg's sine has amplitude 1/8: mean power 1/128 = 0.0078 in mono. ffmpeg's downmix to
            // mono takes (L + R)/sqrt 2 of equal channels (+3 dB, 0.0155) and adds up 5.1's five (0.088).
            let expected = [1: 0.0078, 2: 0.0155, 6: 0.088][clip.channels!]!
            XCTAssertEqual(levels[tone]!, expected, accuracy: expected * 0.2, clip.name)
            // As long as the video, give or take the last AAC frame (ffmpeg does not trim the tail).
            let seconds = Double(samples.count) / 48000
            XCTAssertEqual(seconds, Double(clip.frames) / clip.fps, accuracy: 1024 / Double(clip.rate!) + 0.002, clip.name)
        }
        let alone = try AudioAnalysis.toneLevels(Fixtures.url("audioonly.m4a"), frequencies: Self.tones)
        XCTAssertGreaterThan(alone[440]!, 100 * alone[660]!)
    }

    func testTheFiveOneToneIsInEveryChannelButLFE() throws {
        // Every channel taken by its name in one decode: pan's output channel k is names[k].
        let names = ["FL", "FR", "FC", "LFE", "BL", "BR"]
        let data = try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-i", Fixtures.url("q2.mp4").path, "-vn",
                "-af", "pan=6c|" + names.enumerated().map { "c\($0.offset)=\($0.element)" }.joined(separator: "|"),
                "-ar", "48000", "-f", "f32le", "-"
            ])
        let all = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        XCTAssertGreaterThan(all.count, 6 * 48000, "q2.mp4's 1.9 s of six channels")
        for (k, channel) in names.enumerated() {
            let s = stride(from: k, to: all.count, by: names.count).map { all[$0] }
            let p = AudioAnalysis.goertzelPower(s[...], frequency: 880, rate: 48000)
            if channel == "LFE" { XCTAssertLessThan(p, 1e-6, channel) } else { XCTAssertGreaterThan(p, 0.005, channel) }
        }
    }

    func testTheLateFixtureStartsAtHalfASecondWithItsToneAtOnce() throws {
        let url = Fixtures.url("late.mkv")
        XCTAssertEqual(try VideoTimestamps.pts(url).first ?? -1, 0.5, accuracy: 1e-6)
        for s in try Probe.streams(url) { XCTAssertEqual(s.startTime ?? -1, 0.5, accuracy: 1e-6, s.codecType) }
        let head = try AudioAnalysis.decodeMono(url).prefix(960)  // its first 20 ms
        XCTAssertGreaterThan(AudioAnalysis.goertzelPower(head, frequency: 660, rate: 48000), 0.005)
    }

    func testTheBadInputsAreBadInTheWaysTheReadmeSays() throws {
        XCTAssertThrowsError(try Probe.streams(Fixtures.url("notmovie.mp4")))
        XCTAssertThrowsError(try LumaVideo.decode(Fixtures.url("notmovie.mp4")))
        let audioOnly = try Probe.streams(Fixtures.url("audioonly.m4a"))
        XCTAssertEqual(audioOnly.map(\.codecType), ["audio"])
        XCTAssertEqual(audioOnly.first?.duration ?? 0, 1, accuracy: 0.001)
        XCTAssertThrowsError(try LumaVideo.decode(Fixtures.url("audioonly.m4a")))
        // truncated.mp4: the index promises bg.mp4's 90 frames; ffmpeg decodes the 54 whose data is
        // there (0-52 and 54: B-frame 53 is lost) with errors, and still exits 0.
        let t = Fixtures.url("truncated.mp4")
        XCTAssertEqual(try Probe.streams(t).first { $0.codecType == "video" }?.nbFrames, 90)
        let run = try Shell.run("ffmpeg", ["-nostdin", "-v", "error", "-i", t.path, "-f", "null", "-"])
        XCTAssertTrue(run.stderr.contains("partial file"), run.stderr)
        let video = try LumaVideo.decode(t)
        XCTAssertEqual(video.frames.compactMap { Barcode.read($0, width: video.width, region: .band(0))?.index }, Array(0...52) + [54])
    }

    func testGoertzelIsNormalisedAndSelective() {
        let s = (0..<48000).map { Float(sin(2 * Double.pi * 440 * Double($0) / 48000)) }
        XCTAssertEqual(AudioAnalysis.goertzelPower(s[...], frequency: 440, rate: 48000), 0.5, accuracy: 0.01)
        XCTAssertLessThan(AudioAnalysis.goertzelPower(s[...], frequency: 660, rate: 48000), 0.001)
        XCTAssertEqual(AudioAnalysis.goertzelPower([Float](repeating: 0, count: 100)[...], frequency: 440, rate: 48000), 0)
    }
}
