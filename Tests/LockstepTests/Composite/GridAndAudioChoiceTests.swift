import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// grid, pip, fill, labels, --audio-from and --loudness end to end, each checked by ffmpeg: its
/// own crop and scale of the input against the output's cell (PSNR), its own decode of the
/// sound, its own EBU R128 meter.
final class GridAndAudioChoiceTests: ScratchTestCase {
    let karma = Repository.shared("karma.mp4"), hero = Repository.shared("gopro-hero7/hero7.mp4")

    /// ffmpeg's PSNR (average, dB) between `a` and `b` (filter chains on inputs 0 and 1), each
    /// selecting one frame: ffmpeg stops after that pair (`-frames:v 1`) instead of decoding the
    /// rest of a real clip for nothing (2.3 s of CPU a call on karma.mp4, 0.2 s so).
    func psnr(_ inputs: [String], _ a: String, _ b: String) throws -> Double {
        let r = try Processes.run(
            "ffmpeg",
            ["-nostdin", "-hide_banner"] + inputs.flatMap { ["-i", $0] }
                + ["-filter_complex", "\(a)[a];\(b)[b];[a][b]psnr", "-frames:v", "1", "-f", "null", "-"])
        guard let line = r.stderr.split(separator: "\n").last(where: { $0.contains("PSNR") }),
            let avg = line.split(separator: " ").first(where: { $0.hasPrefix("average:") })
        else {
            throw Processes.Failure(description: r.stderr)
        }
        return avg.dropFirst("average:".count) == "inf" ? .infinity : Double(avg.dropFirst("average:".count))!
    }

    /// Real clips, fill: a 1x2 grid on a 480x480 canvas has 240x480 cells, so each 16:9 picture
    /// is cropped to its middle 28%; ffmpeg's crop and scale of the same frame agree.
    func testGridFillCropsToTheCell() throws {
        let (out, result) = try compose(.grid, [karma, hero]) { o in
            o.size = Size(width: 480, height: 480); o.grid.fit = .fill; o.grid.layout = .init(rows: 1, columns: 2); o.audio = false
            o.frames = FrameRange(start: 0, end: 20)
        }
        XCTAssertEqual(result.canvas, Size(width: 480, height: 480))
        for (i, (input, width)) in [(karma, 854.0), (hero, 848.0)].enumerated() {
            let keep = (240.0 / 480) / (width / 480)
            let p = try psnr(
                [out.path, input], "[0:v]crop=240:480:\(240 * i):0,select=eq(n\\,10)",
                "[1:v]crop=iw*\(keep):ih,scale=240:480:flags=bicubic,format=yuv420p,select=eq(n\\,10)")
            XCTAssertGreaterThan(p, 30, "cell \(i + 1)")
        }
    }

    /// Exact halves, quad: each cell of a lossless output is, byte for byte, ffmpeg's
    /// `scale=...:flags=area` of its input (a 2x2 mean at an exact half, rounded as Lockstep's box:
    /// checked equal on noise at 404x228 and 1920x1080). 202x114 cells: chroma rows of 101.
    func testQuadCellsOfExactHalvesAreFFmpegsAreaScale() throws {
        let inputs = try ["testsrc2", "mandelbrot"].enumerated().map { i, source -> String in
            let path = scratch.appendingPathComponent("half-\(i).mp4").path
            try Processes.check(
                "ffmpeg",
                [
                    "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "\(source)=size=404x228:rate=30", "-t", "0.4",
                    "-vf", "scale=out_color_matrix=bt709:out_range=tv", "-color_primaries", "bt709", "-color_trc", "bt709",
                    "-colorspace", "bt709", "-color_range", "tv", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path
                ])
            return path
        }
        let (out, result) = try compose(.quad, inputs) { o in
            o.size = Size(width: 404, height: 228); o.encode.crf = 0; o.audio = false
        }
        XCTAssertEqual(result.frames, 12)
        func raw(_ input: String, _ filter: String) throws -> Data {
            try Processes.check("ffmpeg", ["-nostdin", "-loglevel", "error", "-i", input, "-vf", filter, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        }
        for (i, input) in inputs.enumerated() {
            let cell = try raw(out.path, "crop=202:114:\(202 * i):0")
            XCTAssertEqual(cell.count, 12 * 202 * 114 * 3 / 2)
            XCTAssertTrue(cell == (try raw(input, "scale=202:114:flags=area")), "cell \(i + 1) is ffmpeg's area scale of its input")
        }
    }

    /// Generated inputs, pip: the inset in the top-left corner is the second input scaled.
    func testPictureInPictureInset() throws {
        let a = scratch.appendingPathComponent("a.mp4").path, b = scratch.appendingPathComponent("b.mp4").path
        for (path, source) in [(a, "testsrc2=size=640x360:rate=30"), (b, "smptebars=size=320x180:rate=30")] {
            try Processes.check(
                "ffmpeg",
                [
                    "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source, "-t", "1",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path
                ])
        }
        let (out, result) = try compose(.pip, [a, b]) { o in
            o.grid.pip.corner = .topLeft; o.grid.pip.size = 0.25
        }
        XCTAssertEqual(result.canvas, Size(width: 640, height: 360))
        // 2% of 640 is 12 px of margin; 160x90 for a quarter of the width. The inputs are untagged
        // standard definition (BT.601), the output BT.709: the references are converted by FFmpeg.
        let bt709 = "colorspace=all=bt709:iall=bt601-6-525:fast=1"
        let inset = try psnr([out.path, b], "[0:v]crop=160:90:12:12,select=eq(n\\,5)", "[1:v]\(bt709),scale=160:90:flags=bicubic,select=eq(n\\,5)")
        XCTAssertGreaterThan(inset, 30)
        let under = try psnr([out.path, a], "[0:v]crop=320:180:320:180,select=eq(n\\,5)", "[1:v]\(bt709),crop=320:180:320:180,select=eq(n\\,5)")
        XCTAssertGreaterThan(under, 30)
    }

    /// Labels change the picture only inside their boxes.
    func testLabelsTouchOnlyTheirBoxes() throws {
        let (plain, _) = try compose(.grid, [karma, hero]) { o in
            o.audio = false; o.frames = FrameRange(start: 0, end: 3)
        }
        let (labelled, _) = try compose(.grid, [karma, hero]) { o in
            o.audio = false; o.frames = FrameRange(start: 0, end: 3); o.grid.labels = ["karma", "hero7"]
        }
        let layout = Layout(
            blend: .grid, canvas: Layout.canvas(blend: .grid, inputs: [Size(width: 854, height: 480), Size(width: 848, height: 480)]),
            inputs: [Size(width: 854, height: 480), Size(width: 848, height: 480)],
            cells: {
                var g = GridSpec(); g.labels = ["karma", "hero7"]; return g
            }())
        let boxes = layout.decor.labels.map(\.box)
        XCTAssertEqual(boxes.count, 2)
        let w = layout.canvas.width
        func luma(_ url: URL) throws -> [UInt8] {
            [UInt8](try Processes.check("ffmpeg", ["-nostdin", "-loglevel", "error", "-i", url.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"]))
        }
        let p = try luma(plain), l = try luma(labelled)
        XCTAssertEqual(p.count, l.count)
        // The boxes (and the boxes grown by 8) as masks, drawn box by box: two closures a pixel
        // over the canvas took seconds at the tests' -Onone.
        let h = p.count / w
        func mask(grownBy g: Int) -> [Bool] {
            var m = [Bool](repeating: false, count: p.count)
            for b in boxes {
                let x0 = Swift.max(0, b.x - g), x1 = Swift.min(w, b.x + b.width + g), y0 = Swift.max(0, b.y - g), y1 = Swift.min(h, b.y + b.height + g)
                guard x0 < x1, y0 < y1 else { continue }
                for y in y0..<y1 { for x in x0..<x1 { m[y * w + x] = true } }
            }
            return m
        }
        let near = mask(grownBy: 8), inside = mask(grownBy: 0)
        var changedOutside = 0, whiteInside = 0
        for i in p.indices {
            if !near[i] && abs(Int(p[i]) - Int(l[i])) > 24 { changedOutside += 1 }
            if inside[i] && l[i] > 200 { whiteInside += 1 }
        }
        XCTAssertLessThan(changedOutside, w / 10, "x264 may move a few pixels near the boxes, no more")
        XCTAssertGreaterThan(whiteInside, 50, "the text is drawn")
    }

    /// Decoded sound, mono f32 at 48 kHz, by ffmpeg.
    func sound(_ path: String, seconds: Double = 5) throws -> [Float] {
        let d = try Processes.check("ffmpeg", ["-nostdin", "-loglevel", "error", "-i", path, "-t", "\(seconds)", "-vn", "-ac", "1", "-ar", "48000", "-f", "f32le", "-"])
        return d.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    func correlation(_ a: [Float], _ b: [Float]) -> Double {
        let n = min(a.count, b.count)
        var ab = 0.0, aa = 0.0, bb = 0.0
        for i in 0..<n { ab += Double(a[i]) * Double(b[i]); aa += Double(a[i]) * Double(a[i]); bb += Double(b[i]) * Double(b[i]) }
        return ab / (aa * bb).squareRoot()
    }

    /// --audio-from 2: the output's sound is the second camera's, not the first's. (The sound
    /// tests' canvas is 320x180: the picture is not looked at, and coding it at the inputs'
    /// 854x480 was most of their cost.)
    func testAudioFromOneInput() throws {
        let (out, result) = try compose(.quad, [karma, hero]) { o in
            o.audioFrom = 1; o.frames = FrameRange(start: 0, end: 150); o.size = Size(width: 320, height: 180)
        }
        XCTAssertNotNil(result.audioSamples)
        let written = try sound(out.path, seconds: 4.5)
        XCTAssertGreaterThan(correlation(written, try sound(hero)), 0.9)
        XCTAssertLessThan(abs(correlation(written, try sound(karma))), 0.2)
    }

    /// --loudness r128: ffmpeg's own R128 meter reads -23 LUFS from the output (hero7 is at
    /// -31.7: +8.7 dB), and the summary says what it measured.
    func testLoudnessNormalisation() throws {
        let (out, result) = try compose(.quad, [karma, hero]) { o in
            o.audioFrom = 1; o.loudness = -23; o.size = Size(width: 320, height: 180)
        }
        let l = try XCTUnwrap(result.loudness)
        XCTAssertEqual(l.mixLUFS, -31.7, accuracy: 0.3)
        XCTAssertEqual(l.gainDB, 8.7, accuracy: 0.3)
        let r = try Processes.run("ffmpeg", ["-nostdin", "-hide_banner", "-i", out.path, "-vn", "-af", "ebur128", "-f", "null", "-"])
        let line = try XCTUnwrap(r.stderr.split(separator: "\n").last { $0.contains(" I: ") })
        let measured = Double(line.split(separator: " ").dropFirst().first { Double($0) != nil }!)!
        XCTAssertEqual(measured, -23, accuracy: 0.5)
        XCTAssertEqual(l.writtenLUFS, measured, accuracy: 0.3)
    }
}
