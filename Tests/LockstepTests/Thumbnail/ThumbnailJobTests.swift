import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// Thumbnails of clips that start badly, made by the ffmpeg CLI two independent ways:
/// - barcoded (make-fixtures' conventions: testsrc2 dimmed, the identity strip of band 0 with
///   16-pixel cells, 320x240 at 30 fps, x264 in MP4), the bad start added with `tpad` and `fade`;
/// - `testsrc` (its own frame counter and moving bars) at 25 fps, full range (yuvj420p), turned
///   90 degrees by a display matrix, in MOV, the black joined on with the `concat` filter.
/// Each thumbnail is decoded by the ffmpeg CLI and compared with the frame it must be.
final class ThumbnailJobTests: ScratchTestCase {
    // MARK: fixtures

    /// The clips made for the class, by what made them (the contact sheet takes the clips of
    /// three other tests: made once each); their folder is removed in the class tearDown.
    nonisolated(unsafe) static var made: [String: String] = [:]
    nonisolated(unsafe) static var madeFolder: URL?
    override class func tearDown() {
        if let folder = madeFolder { try? FileManager.default.removeItem(at: folder) }
        madeFolder = nil
        made = [:]
        super.tearDown()
    }

    /// The path of the class's clip made by `make` (called with its path) under `key`, made once.
    func madeOnce(_ key: String, _ name: String, _ make: (String) throws -> Void) throws -> String {
        if let path = Self.made[key] { return path }
        if Self.madeFolder == nil { Self.madeFolder = try Scratch.makeFolder("lockstep-ThumbnailJobTests-clips") }
        let path = try XCTUnwrap(Self.madeFolder).appendingPathComponent("\(Self.made.count)-\(name)").path
        try make(path)
        Self.made[key] = path
        return path
    }

    /// make-fixtures' `barcode 0 16 16`: the strip of source 0, frame n, in a black box.
    static func barcode(cell c: Int = 16) -> String {
        let x0 = 2 * c, y0 = c, m = c
        var chain = "drawbox=x=\(x0 - m):y=\(y0 - m):w=\(16 * c + 2 * m):h=\(c + 2 * m):color=black:t=fill"
        chain += ",drawbox=x=\(x0):y=\(y0):w=\(c):h=\(c):color=white:t=fill"
        for b in 0..<12 {
            chain += ",drawbox=x=\(x0 + (4 + b) * c):y=\(y0):w=\(c):h=\(c):color=white:t=fill:enable='mod(floor(n/\(1 << b)),2)'"
        }
        return chain
    }

    /// `frames` barcoded picture frames (barcode index 0 first) after the filter `before`
    /// (applied to the barcoded picture: tpad, fade...), 320x240 at 30 fps, x264 in MP4.
    /// Made once per class for each `frames` and `filters` (`madeOnce`).
    func barcodedClip(_ name: String, frames: Int, then filters: String) throws -> String {
        try madeOnce("\(name) \(frames) \(filters)", name) { path in
            let v =
                "testsrc2=s=320x240:r=30,eq=brightness=-0.3:contrast=0.5:saturation=0.3,trim=end_frame=\(frames),"
                + "setpts=PTS-STARTPTS,\(Self.barcode()),\(filters),format=yuv420p"
            try Shell.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", v,
                    "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-g", "30", path
                ])
        }
    }

    /// The second generator: 1 s of full-range black, then `testsrc` fading in over 1 s, then
    /// 1 s of it steady; 25 fps, yuvj420p, 240x160 stored, shown turned 90 degrees (160x240), MOV.
    /// Made once per class (`madeOnce`).
    func independentClip() throws -> String {
        try madeOnce("turned-fade", "turned-fade.mov") { path in
            let graph =
                "color=c=black:s=240x160:r=25:d=1,format=yuvj420p[black];"
                + "testsrc=s=240x160:r=25:d=2,fade=t=in:st=0:d=1,format=yuvj420p[pic];[black][pic]concat=n=2:v=1:a=0"
            let unturned = path + "-unturned.mov"
            try Shell.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-y", "-filter_complex", graph,
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuvj420p", unturned
                ])
            // FFmpeg 5.1 writes the display matrix from the rotate tag only when copying the stream.
            try Shell.check("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", unturned, "-c", "copy", "-metadata:s:v:0", "rotate=90", path])
            try FileManager.default.removeItem(atPath: unturned)
        }
    }

    func thumbnail(
        _ inputs: [String], _ name: String = "thumb.png", at: Double? = nil, size: ThumbnailSize? = nil,
        sheet: Bool = false
    ) throws -> (String, ThumbnailResult) {
        let out = scratch.appendingPathComponent(name).path
        let result = try ThumbnailJob(options: ThumbnailOptions(inputs: inputs, output: out, at: at, size: size, sheet: sheet)).run()
        return (out, result)
    }

    /// The image as the ffmpeg CLI decodes it, in full-range gray.
    func luma(_ path: String) throws -> LumaVideo {
        let v = try LumaVideo.decode(URL(fileURLWithPath: path))
        XCTAssertEqual(v.frames.count, 1)
        return v
    }

    static func meanAbsDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count)
        return Double(PixelDifference.absoluteSum(a, b)) / Double(a.count)
    }

    /// Asserts the thumbnail is frame `k` of the clip: closer to it than to its neighbours and
    /// within 3 levels on average (the PNG went YUV -> RGB, the checker RGB -> gray).
    func assertIsFrame(_ thumb: LumaVideo, of clip: LumaVideo, _ k: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(thumb.width, clip.width, file: file, line: line)
        XCTAssertEqual(thumb.height, clip.height, file: file, line: line)
        guard thumb.width == clip.width, thumb.height == clip.height else { return }
        let d = Self.meanAbsDifference(thumb.frames[0], clip.frames[k])
        XCTAssertLessThan(d, 3, "difference to frame \(k)", file: file, line: line)
        for n in [k - 1, k + 1] where clip.frames.indices.contains(n) {
            XCTAssertGreaterThan(Self.meanAbsDifference(thumb.frames[0], clip.frames[n]), d, "frame \(n) is closer than \(k)", file: file, line: line)
        }
    }

    // MARK: the four starts

    func testTwoSecondsOfBlackGiveTheFirstPictureFrame() throws {
        let clip = try barcodedClip("black2s.mp4", frames: 60, then: "tpad=start=60:color=black")
        let (out, result) = try thumbnail([clip])  // 1/3 of 4 s: 1.333 s, in the black
        XCTAssertEqual(result.picks[0].time, 2.0, accuracy: 0.001)
        XCTAssertFalse(result.picks[0].fallback)
        XCTAssertEqual(result.warnings, [])
        XCTAssertEqual(result.size, Size(width: 320, height: 240))
        let thumb = try luma(out)
        XCTAssertEqual(Barcode.read(thumb.frames[0], width: thumb.width, region: .band(0))?.index, 0)
        assertIsFrame(thumb, of: try LumaVideo.decode(URL(fileURLWithPath: clip)), 60)
    }

    func testFadeInGivesItsFirstFullFrameFromInsideTheFade() throws {
        // Full picture from barcode frame 60 (2 s); the default start, 1 s, is half-way in. On
        // this moving picture the level wobbles by about 1, as much as the fade's last steps;
        // the fade's step measured pixel by pixel (1/59 at its end) finds frame 60 itself.
        let clip = try barcodedClip("fade.mp4", frames: 90, then: "fade=t=in:st=0:d=2")
        let source = try LumaVideo.decode(URL(fileURLWithPath: clip))
        let (out, result) = try thumbnail([clip], "fade.png")
        let thumb = try luma(out)
        guard let k = Barcode.read(thumb.frames[0], width: thumb.width, region: .band(0))?.index else { return XCTFail("no barcode") }
        XCTAssertEqual(k, 60, "the first frame at full level")
        XCTAssertEqual(result.picks[0].time, Double(k) / 30, accuracy: 0.001)
        assertIsFrame(thumb, of: source, k)
        // A time the user gives is the time they get (issue 41: `--at 0` was searched from):
        // frame 0, black, with a warning.
        let (atZero, asked) = try thumbnail([clip], "fade-0.png", at: 0)
        XCTAssertEqual(asked.picks[0].time, 0)
        XCTAssertEqual(asked.warnings, ["\(clip): the frame at 0.000 s is black; written as asked (without --at, the search finds a picture)."])
        assertIsFrame(try luma(atZero), of: source, 0)
    }

    func testFlatSlateThenPicture() throws {
        let clip = try barcodedClip("slate.mp4", frames: 45, then: "tpad=start=45:color=0x3050A0")
        let (out, result) = try thumbnail([clip])  // 1 s: in the slate
        let thumb = try luma(out)
        XCTAssertEqual(Barcode.read(thumb.frames[0], width: thumb.width, region: .band(0))?.index, 0)
        XCTAssertEqual(result.picks[0].time, 1.5, accuracy: 0.001)
        assertIsFrame(thumb, of: try LumaVideo.decode(URL(fileURLWithPath: clip)), 45)
    }

    func testAllBlackSaysSoAndStillWritesTheBestFrame() throws {
        let clip = scratch.appendingPathComponent("black.mp4").path
        try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=320x240:r=30:d=2",
                "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", clip
            ])
        let (out, result) = try thumbnail([clip])
        XCTAssertTrue(result.picks[0].fallback)
        XCTAssertEqual(result.picks[0].examined, 61, "every frame: from 0.667 s to the end, then from the start to 0.667 s (the frame there again, as look-ahead)")
        XCTAssertEqual(result.warnings.count, 1)
        XCTAssertTrue(
            result.warnings[0].hasPrefix("\(clip): every frame examined (61) is black or flat; wrote the most detailed one, at "),
            result.warnings[0])
        let thumb = try luma(out)
        XCTAssertEqual(thumb.width, 320)
        XCTAssertLessThan(thumb.frames[0].map(Int.init).reduce(0, +) / thumb.frames[0].count, 3, "black, as the clip is")
    }

    // MARK: the second generator

    func testIndependentTurnedFullRangeFadeGivesItsFirstFullFrameTurned() throws {
        let clip = try independentClip()
        let source = try LumaVideo.decode(URL(fileURLWithPath: clip))  // the CLI turns it too
        XCTAssertEqual(source.width, 160)
        XCTAssertEqual(source.height, 240)
        XCTAssertEqual(source.frames.count, 75)
        let (out, result) = try thumbnail([clip])
        XCTAssertEqual(result.size, Size(width: 160, height: 240))
        XCTAssertEqual(result.picks[0].time, 2.0, accuracy: 0.001, "black 0-24, fade 25-49, full from 50")
        assertIsFrame(try luma(out), of: source, 50)
    }

    /// A third maker: SMPTE HD bars under a grid with moving grain (the noise filter, new each
    /// frame), 1 s black then a 3 s fade (`fade` filter), 24 fps, MPEG-4 part 2 in Matroska. The
    /// fade's last step is 1/71; the first frame at full level is frame 96 (4 s).
    func testIndependentGrainyFadeInMatroskaGivesItsFirstFullFrame() throws {
        let clip = scratch.appendingPathComponent("bars-fade.mkv").path
        try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "smptehdbars=s=320x180:r=24:d=6,drawgrid=w=16:h=16:t=1:c=white@0.5,noise=alls=6:allf=t,fade=t=in:st=1:d=3,format=yuv420p",
                "-c:v", "mpeg4", "-q:v", "3", "-g", "48", clip
            ])
        let source = try LumaVideo.decode(URL(fileURLWithPath: clip))
        XCTAssertEqual(source.frames.count, 144)
        let (out, result) = try thumbnail([clip], "bars.png")
        XCTAssertFalse(result.picks[0].fallback)
        XCTAssertEqual(result.picks[0].time, 4.0, accuracy: 0.001)
        assertIsFrame(try luma(out), of: source, 96)
        // --at: the frame on screen then (3.5 s is frame 84, inside the fade: a picture, no
        // warning; 3.52 s is still frame 84; 0 is black and says so).
        for (at, frame, warned) in [(3.5, 84, false), (3.52, 84, false), (0, 0, true)] {
            let (out, result) = try thumbnail([clip], "bars-\(at).png", at: at)
            XCTAssertEqual(result.picks[0].time, Double(frame) / 24, accuracy: 0.001, "--at \(at)")
            XCTAssertEqual(result.warnings.count, warned ? 1 : 0, "--at \(at): \(result.warnings)")
            let thumb = try luma(out)
            if warned {
                // Frames 0 to 23 are the same black: no neighbour to tell it from.
                XCTAssertLessThan(Self.meanAbsDifference(thumb.frames[0], source.frames[frame]), 3)
            } else {
                assertIsFrame(thumb, of: source, frame)
            }
        }
    }

    func testIndependentWhiteSlateInMatroskaAndFullRangeBlack() throws {
        // 2 s of a white card, then 1 s of testsrc: 4:4:4 at 24 fps in Matroska, joined by concat.
        let slate = scratch.appendingPathComponent("card.mkv").path
        try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-filter_complex",
                "color=c=white:s=200x150:r=24:d=2[a];testsrc=s=200x150:r=24:d=1[b];[a][b]concat=n=2:v=1:a=0,format=yuv444p",
                "-c:v", "libx264", "-preset", "ultrafast", slate
            ])
        let source = try LumaVideo.decode(URL(fileURLWithPath: slate))
        XCTAssertEqual(source.frames.count, 72)
        let (out, result) = try thumbnail([slate], "card.png")  // from 1 s: inside the card
        XCTAssertEqual(result.picks[0].time, 2.0, accuracy: 0.001)
        assertIsFrame(try luma(out), of: source, 48)
        // Full-range black (yuvj420p, level 0), 2 s: the fallback, with its sentence.
        let black = scratch.appendingPathComponent("black.mkv").path
        try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=200x150:r=24:d=2",
                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuvj420p", black
            ])
        let (_, fallback) = try thumbnail([black], "black.png")
        XCTAssertTrue(fallback.picks[0].fallback)
        XCTAssertEqual(fallback.warnings.count, 1)
    }

    func testBT709ClipKeepsItsColours() throws {
        // HD footage is tagged BT.709: the PNG's RGB must be what the ffmpeg CLI makes of the
        // same frame (converting as BT.601 would put it about 8 levels off on testsrc2's bars).
        let clip = scratch.appendingPathComponent("hd709.mp4").path
        try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=1",
                "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p", "-colorspace", "bt709",
                "-c:v", "libx264", "-preset", "ultrafast", clip
            ])
        let (out, _) = try thumbnail([clip], "hd709.png", at: 0)
        let reference = scratch.appendingPathComponent("ffmpeg709.png").path
        try Shell.check("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", clip, "-frames:v", "1", reference])
        func rgb(_ path: String) throws -> [UInt8] {
            [UInt8](try Shell.check("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
        }
        let mine = try rgb(out), theirs = try rgb(reference)
        XCTAssertEqual(mine.count, 320 * 240 * 3)
        // Measured: 2.63 here, 2.58 for the same picture untagged (BT.601) — the two conversions'
        // chroma interpolation differs; read as BT.601 this frame was 7.84 off.
        XCTAssertLessThan(Self.meanAbsDifference(mine, theirs), 3)
    }

    // MARK: sizes and formats

    func testSizeKeepsTheAspectAndJPEGMatchesPNG() throws {
        let clip = try barcodedClip("black2s.mp4", frames: 30, then: "tpad=start=30:color=black")
        let (png, r1) = try thumbnail([clip], "w.png", size: .width(160))
        XCTAssertEqual(r1.size, Size(width: 160, height: 120))
        let (_, r2) = try thumbnail([clip], "h.png", size: .height(60))
        XCTAssertEqual(r2.size, Size(width: 80, height: 60))
        let (_, r3) = try thumbnail([clip], "box.png", size: .box(Size(width: 200, height: 200)))
        XCTAssertEqual(r3.size, Size(width: 200, height: 150))
        let (jpg, r4) = try thumbnail([clip], "w.jpg", size: .width(160))
        XCTAssertEqual(r4.size, r1.size)
        let a = try luma(png), b = try luma(jpg)
        XCTAssertEqual(a.width, 160); XCTAssertEqual(a.height, 120)
        XCTAssertEqual(b.width, 160); XCTAssertEqual(b.height, 120)
        // The same picture, give or take JPEG's loss (quality 2) on sharp edges.
        XCTAssertLessThan(Self.meanAbsDifference(a.frames[0], b.frames[0]), 4)
        // Levels: the JPEG's luma is the source's (a range mix-up would move it by 10 levels or
        // more); the PNG's gray is that of the ffmpeg CLI's own PNG of the same frame (RGB clips
        // this dim, coloured picture's darkest pixels, so its gray is 2 levels above the luma).
        func mean(_ v: [UInt8]) -> Double { Double(v.map(Int.init).reduce(0, +)) / Double(v.count) }
        let source = try LumaVideo.decode(URL(fileURLWithPath: clip))
        XCTAssertEqual(mean(b.frames[0]), mean(source.frames[30]), accuracy: 1)
        let reference = scratch.appendingPathComponent("ffmpeg.png").path
        try Shell.check("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", clip, "-vf", "select=eq(n\\,30),scale=160:120", "-frames:v", "1", reference])
        XCTAssertEqual(mean(a.frames[0]), mean(try luma(reference).frames[0]), accuracy: 1)
        XCTAssertEqual(Barcode.read(a.frames[0], width: 160, region: BarcodeRegion.band(0).scaled(by: 0.5, offsetX: 0, offsetY: 0))?.index, 0)
        // The JPEG is full range (yuvj420p): ffprobe says so.
        let probe = String(decoding: try Shell.check("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,pix_fmt", "-of", "csv=p=0", jpg]), as: UTF8.self)
        XCTAssertEqual(probe.trimmingCharacters(in: .whitespacesAndNewlines), "mjpeg,yuvj420p")
    }

    // MARK: the contact sheet

    func testContactSheetOfThreeClips() throws {
        let black = try barcodedClip("black2s.mp4", frames: 60, then: "tpad=start=60:color=black")
        let slate = try barcodedClip("slate.mp4", frames: 45, then: "tpad=start=45:color=0x3050A0")
        let turned = try independentClip()
        let (out, result) = try thumbnail([black, slate, turned], "sheet.png", sheet: true)
        let layout = ContactSheetLayout(count: 3, tile: Size(width: 320, height: 180))
        XCTAssertEqual(result.size, layout.canvas)
        XCTAssertEqual(result.picks.map(\.time).map { ($0 * 1000).rounded() / 1000 }, [2.0, 1.5, 2.0])
        let sheet = try luma(out)
        XCTAssertEqual(sheet.width, layout.canvas.width)
        XCTAssertEqual(sheet.height, layout.canvas.height)
        let px = sheet.frames[0]
        func region(_ r: Rect) -> [UInt8] {
            (r.y..<(r.y + r.height)).flatMap { y in px[(y * sheet.width + r.x)..<(y * sheet.width + r.x + r.width)] }
        }
        func stats(_ v: [UInt8]) -> (mean: Double, sd: Double) {
            let m = Double(v.map(Int.init).reduce(0, +)) / Double(v.count)
            return (m, (v.map { (Double($0) - m) * (Double($0) - m) }.reduce(0, +) / Double(v.count)).squareRoot())
        }
        // Each tile: a picture (neither black nor flat) where its clip's aspect puts it.
        let displays = [Size(width: 320, height: 240), Size(width: 320, height: 240), Size(width: 160, height: 240)]
        for i in 0..<3 {
            let place = Layout.fit(displays[i], into: layout.tiles[i])
            let s = stats(region(place))
            XCTAssertGreaterThan(s.mean, 30, "tile \(i) is not black")
            XCTAssertGreaterThan(s.sd, 20, "tile \(i) is not flat")
            // Beside a narrower picture, the tile's box colour (48 grey, 32 in video range -> ~37 gray).
            if place.x > layout.tiles[i].x {
                let side = stats(region(Rect(x: layout.tiles[i].x + 2, y: layout.tiles[i].y + 2, width: 8, height: 8)))
                XCTAssertEqual(side.mean, 48, accuracy: 4)
                XCTAssertLessThan(side.sd, 1)
            }
            // The label band holds white text (the name) and nothing white elsewhere in the gaps.
            let label = layout.labels[i]
            let white = region(Rect(x: label.x, y: label.y, width: label.width, height: layout.lineStep)).filter { $0 > 200 }.count
            XCTAssertGreaterThan(white, 50, "tile \(i)'s name is drawn")
            let name = URL(fileURLWithPath: [black, slate, turned][i]).lastPathComponent
            let inkColumns = BitmapFont.width(of: name, scale: layout.labelScale)
            let pastName = Rect(x: label.x + inkColumns + 2, y: label.y, width: label.width - inkColumns - 2, height: layout.lineStep)
            XCTAssertEqual(region(pastName).filter { $0 > 200 }.count, 0, "nothing drawn past the name")
        }
        // The barcoded tiles show their first picture frame (scaled 0.75 into the 320x180 box).
        for i in 0..<2 {
            let place = Layout.fit(displays[i], into: layout.tiles[i])
            let k = Double(place.width) / 320
            let code = Barcode.read(px, width: sheet.width, region: BarcodeRegion.band(0).scaled(by: k, offsetX: Double(place.x), offsetY: Double(place.y)))
            XCTAssertEqual(code?.index, 0, "tile \(i)")
        }
        // The page between tiles is the page colour (24 grey).
        XCTAssertEqual(stats(region(Rect(x: 0, y: 0, width: layout.canvas.width, height: 6))).mean, 24, accuracy: 3)
        // Kept for looking at: LOCKSTEP_KEEP_SHEET=/some/path.png copies it there.
        if let keep = ProcessInfo.processInfo.environment["LOCKSTEP_KEEP_SHEET"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: out, toPath: keep)
        }
    }

    // MARK: the search bound

    func testScanPlanDecodesTenSecondsThenSamples() {
        let plan = ScanPlan()
        XCTAssertEqual(plan.windows(from: 1, duration: 4), [ScanWindow(start: 1, end: 4), ScanWindow(start: 0, end: 1)])
        XCTAssertEqual(plan.windows(from: 0, duration: 4), [ScanWindow(start: 0, end: 4)])
        XCTAssertEqual(plan.windows(from: 2, duration: nil), [ScanWindow(start: 2, end: .infinity), ScanWindow(start: 0, end: 2)])
        // A 2-hour film from 40 min: 10 s whole, then 30 samples of 12 frames to the end, 30 from the start.
        let film = plan.windows(from: 2400, duration: 7200)
        XCTAssertEqual(film[0], ScanWindow(start: 2400, end: 2410))
        XCTAssertEqual(film.count, 1 + 30 + 30)
        XCTAssertEqual(film[1], ScanWindow(start: 2410, end: 7200, maxFrames: 12))
        XCTAssertEqual(film[2].start, 2410 + 4790.0 / 30, accuracy: 1e-9)
        XCTAssertEqual(film[31], ScanWindow(start: 0, end: 2400, maxFrames: 12))
        XCTAssertEqual(film[32].start, 80, accuracy: 1e-9)
        // A 25 s clip from 8.33 s: 10 s whole, the 6.67 s after whole, the 8.33 s before whole.
        let clip = plan.windows(from: 25.0 / 3, duration: 25)
        XCTAssertEqual(clip.count, 3)
        XCTAssertNil(clip[1].maxFrames)
        XCTAssertNil(clip[2].maxFrames)
    }

    func testLongBlackStartIsFoundBySampling() throws {
        // 30 s of black, then 10 s of picture: the dense 10 s from 13.3 s are black, the samples
        // every second from 23.3 s find the picture at the first sample inside it (30.3 s).
        let clip = scratch.appendingPathComponent("long.mp4").path
        try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "testsrc2=s=160x120:r=25:d=10,tpad=start_duration=30:color=black",
                "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", clip
            ])
        let (_, result) = try thumbnail([clip], "long.png")
        let pick = result.picks[0]
        XCTAssertFalse(pick.fallback)
        XCTAssertGreaterThanOrEqual(pick.time, 30)
        // The sample at 30.33 s starts without the frame before it (no cut seen), so its first
        // picture is watched 8 frames: within one sampling step and the look-ahead.
        XCTAssertLessThanOrEqual(pick.time, 30.33 + 0.04 + 8 * 0.04 + 0.001)
        XCTAssertLessThan(pick.examined, 400, "the dense 10 s (250 frames) and 8 samples of 12 frames, not all 1000 frames")
    }
}
