import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// Colour management end to end: what phones and cameras record, converted into the SDR
/// BT.709 output, checked against the ffmpeg CLI's own conversions of the same files
/// (`ColorReference`). One real phone file and generated clips of known colours; the thorough
/// variants are in `ColorSlowTests`.
final class ColorEndToEndTests: ScratchTestCase {
    /// `input` through `lockstep filter --filter none` (the composite pipeline, one input), the
    /// first `frames` output frames only; the output's path.
    func convert(_ input: String, frames: Int64? = 1, _ configure: (inout CompositeOptions) -> Void = { _ in }) throws -> String {
        let out = scratch.appendingPathComponent("out-\(UUID().uuidString.prefix(6)).mp4").path
        var options = CompositeOptions.filter(input: input, output: out, schedule: FilterSchedule(initial: .none))
        options.audio = false
        if let frames { options.frames = FrameRange(start: 0, end: frames) }
        configure(&options)
        _ = try CompositeJob(options: options).run()
        return out
    }

    /// ffprobe's colour fields of the first video stream.
    func tags(_ path: String) throws -> [String: String] {
        let text = String(
            decoding: try Processes.check(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries",
                    "stream=pix_fmt,color_range,color_space,color_transfer,color_primaries",
                    "-of", "default=nw=1", path
                ]), as: UTF8.self)
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { out[String(kv[0])] = String(kv[1]) }
        }
        return out
    }

    func assertSDR709(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(
            try tags(path),
            [
                "pix_fmt": "yuv420p", "color_range": "tv", "color_space": "bt709",
                "color_transfer": "bt709", "color_primaries": "bt709"
            ], file: file, line: line)
    }

    // MARK: the shared colour checker (real phone HLG)

    func testTheAndroidHLGColourCheckerMatchesZscaleAndTonemap() throws {
        let input = Repository.shared("phones/hlg10-color-test.mp4")
        let out = try convert(input)
        try assertSDR709(out)
        let ours = try ColorReference.save(try ColorReference.raw(out), "ours.yuv", in: scratch)
        let reference = try ColorReference.save(try ColorReference.raw(input, filter: ColorReference.toSDR()), "ref.yuv", in: scratch)
        let plain = try ColorReference.save(try ColorReference.raw(input, filter: "format=yuv420p"), "plain.yuv", in: scratch)
        let p = try ColorReference.patches(
            ours: ours, reference: reference, width: 1920, height: 1080,
            centres: ColorReference.checkerCentres, in: scratch)
        print(
            "colour checker vs zscale+tonemap=hable: \(p.hueErrors.count) chromatic patches, median hue error \(p.medianHueError) deg, "
                + "median chroma \(p.medianChromaRatio)x, worst ΔE \(p.deltaE.max() ?? 0)")
        XCTAssertEqual(p.hueErrors.count, 18, "the 18 coloured patches (the greys have no hue)")
        XCTAssertLessThanOrEqual(p.medianHueError, 2)
        XCTAssertEqual(p.medianChromaRatio, 1, accuracy: 0.1)
        // The measure sees the fault it is for: a plain decode (HLG BT.2020 taken as BT.709 SDR).
        let q = try ColorReference.patches(
            ours: plain, reference: reference, width: 1920, height: 1080,
            centres: ColorReference.checkerCentres, in: scratch)
        print("colour checker, plain decode: median hue error \(q.medianHueError) deg, median chroma \(q.medianChromaRatio)x")
        XCTAssertGreaterThan(q.medianHueError, 5)
        XCTAssertLessThan(q.medianChromaRatio, 0.7)
    }

    // MARK: generated clips of known colours

    /// Six saturated colours (160x120 each, 3x2) made in RGB and converted by zscale to
    /// `transfer` (arib-std-b67 or smpte2084) BT.2020, with SDR white at `nits`, then libx265
    /// 10-bit, tagged; `x265` adds parameters (mastering metadata).
    func knownColours(_ name: String, transfer: String, nits: Int, x265: String = "") throws -> String {
        let colours = ["0xC02020", "0x20A040", "0x2040C0", "0xE0C020", "0x20C0C0", "0xC040B0"]
        var graph = colours.enumerated().map { "color=c=\($1):s=160x120:r=30:d=0.2,format=gbrp[c\($0)]" }.joined(separator: ";")
        graph +=
            ";" + (0..<6).map { "[c\($0)]" }.joined() + "xstack=inputs=6:layout=0_0|160_0|320_0|0_120|160_120|320_120"
            + ",zscale=tin=bt709:pin=bt709:t=\(transfer):p=bt2020:m=2020_ncl:r=tv:npl=\(nits),format=yuv420p10le"
        let path = scratch.appendingPathComponent(name).path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-filter_complex", graph, "-c:v", "libx265",
                "-x265-params", "log-level=error" + (x265.isEmpty ? "" : ":" + x265),
                "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc", "-color_range", "tv",
                "-pix_fmt", "yuv420p10le", path
            ])
        return path
    }

    static let knownCentres = [(80, 60), (240, 60), (400, 60), (80, 180), (240, 180), (400, 180)]

    func checkKnownColours(
        _ input: String, curve: String = "hable", label: String,
        _ configure: (inout CompositeOptions) -> Void = { _ in }
    ) throws {
        let out = try convert(input, configure)
        try assertSDR709(out)
        let oursBytes = try ColorReference.raw(out), refBytes = try ColorReference.raw(input, filter: ColorReference.toSDR(curve: curve))
        let ours = try ColorReference.save(oursBytes, "ours.yuv", in: scratch)
        let reference = try ColorReference.save(refBytes, "ref.yuv", in: scratch)
        let p = try ColorReference.patches(
            ours: ours, reference: reference, width: 480, height: 240,
            centres: Self.knownCentres, side: 60, search: 0, in: scratch)
        print("\(label) vs zscale+tonemap=\(curve): hue errors \(p.hueErrors), chroma \(p.chromaRatios), ΔE \(p.deltaE), PSNR \(ColorReference.psnr(oursBytes, refBytes)) dB")
        XCTAssertEqual(p.hueErrors.count, 6, label)
        XCTAssertLessThanOrEqual(p.medianHueError, 2, label)
        XCTAssertEqual(p.medianChromaRatio, 1, accuracy: 0.1, label)
        XCTAssertLessThan(p.deltaE.max() ?? 99, 3, label)
        XCTAssertGreaterThan(ColorReference.psnr(oursBytes, refBytes), 38, label)
    }

    func testGeneratedHLGColoursMatchZscaleAndTonemap() throws {
        try checkKnownColours(try knownColours("hlg.mp4", transfer: "arib-std-b67", nits: 300), label: "HLG (white at 300 nits)")
    }

    func testGeneratedPQColoursMatchZscaleAndTonemap() throws {
        try checkKnownColours(try knownColours("pq.mp4", transfer: "smpte2084", nits: 400), label: "PQ (white at 400 nits)")
    }

    // MARK: SDR inputs: matrix and range

    /// zscale (zimg, in float: no clipping) re-expressing BT.601 (`range`: the input's, limited
    /// or full) in BT.709 video range, matrix and range only: primaries and transfer given as
    /// BT.709 on both sides, as players and Lockstep treat BT.601's primaries. (Not swscale's
    /// matrix options: they clip the footroom; nor `colorspace` on a yuvj picture: ffmpeg puts
    /// a range conversion before it, and irange=pc then compresses the range twice.)
    static func from601(range: String = "limited") -> String {
        "zscale=min=170m:rin=\(range):pin=709:tin=709:m=709:r=limited:p=709:t=709,format=yuv420p"
    }
    /// FFmpeg's `colorspace` filter for a video-range BT.601 picture (matrix only, `fast`): it
    /// keeps chroma at 4:2:0 (zscale goes through 4:4:4 with its own resampling, about 2 dB
    /// away on testsrc2's sharp colour edges).
    static let from601Video = "colorspace=all=bt709:iall=bt601-6-525:fast=1,format=yuv420p"

    /// An SD clip (ffmpeg's testsrc2, 720x480) encoded with BT.601 and tagged so, or untagged:
    /// converted to BT.709 as zscale converts it. Untagged SD is BT.601
    /// (FFmpeg's and the players' convention), so both give the same picture.
    func testBT601StandardDefinitionTaggedOrNotBecomesBT709() throws {
        for tagged in [true, false] {
            let clip = scratch.appendingPathComponent("sd-\(tagged).mp4").path
            _ = try Processes.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=720x480:r=30:d=0.2",
                    "-vf", "scale=out_color_matrix=bt601:out_range=tv"
                ]
                    + (tagged ? ["-color_primaries", "smpte170m", "-color_trc", "smpte170m", "-colorspace", "smpte170m", "-color_range", "tv"] : [])
                    + ["-c:v", "libx264", "-crf", "10", "-pix_fmt", "yuv420p", clip])
            let out = try convert(clip)
            try assertSDR709(out)
            let ours = try ColorReference.raw(out)
            let reference = try ColorReference.raw(clip, filter: Self.from601Video)
            let asIs = try ColorReference.raw(clip)
            let p = ColorReference.psnr(ours, reference), q = ColorReference.psnr(ours, asIs)
            print("BT.601 SD (\(tagged ? "tagged" : "untagged")): PSNR \(p) dB against ffmpeg's 601-to-709 conversion, \(q) dB against the planes unconverted")
            XCTAssertGreaterThan(p, 40, "tagged: \(tagged)")
            XCTAssertLessThan(q, p - 6, "the conversion moved the pixels: tagged \(tagged)")
        }
    }

    /// Full-range BT.601 (yuvj420p, as phones record), from a second generator (mandelbrot,
    /// MJPEG in AVI): range and matrix converted as zscale converts them.
    func testFullRangeBT601BecomesVideoRangeBT709() throws {
        let clip = scratch.appendingPathComponent("yuvj.avi").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "mandelbrot=s=640x480:r=30,trim=duration=0.2",
                "-c:v", "mjpeg", "-q:v", "2", "-pix_fmt", "yuvj420p", clip
            ])
        let out = try convert(clip)
        try assertSDR709(out)
        let ours = try ColorReference.raw(out)
        let reference = try ColorReference.raw(clip, filter: Self.from601(range: "full"))
        let p = ColorReference.psnr(ours, reference)
        print("yuvj420p BT.601: PSNR \(p) dB against ffmpeg's conversion")
        XCTAssertGreaterThan(p, 40)
    }

    /// The shared 4K phone clip: full range BT.601 (yuvj420p), stored turned: one frame at a
    /// 540x960 canvas against ffmpeg's turned, scaled and converted picture.
    func testThePhonesFullRangeBT601PortraitClip() throws {
        let input = Repository.shared("phones/portrait_4k60.mp4")
        let out = try convert(input) { $0.size = Size(width: 540, height: 960) }
        try assertSDR709(out)
        let ours = try ColorReference.raw(out)
        let reference = try ColorReference.raw(input, filter: Self.from601(range: "full") + ",scale=540:960:flags=bicubic")
        let p = ColorReference.psnr(ours, reference)
        print("portrait_4k60 (yuvj420p BT.601, turned): PSNR \(p) dB against ffmpeg's")
        XCTAssertGreaterThan(p, 35)
    }

    /// `probe` shows the output's tags, and what an input's are taken to mean.
    func testProbeShowsTheTags() throws {
        let input = Repository.shared("phones/sample_edit_list.mp4")
        let out = try convert(input)
        let ours = try Processes.lockstep(["probe", out])
        XCTAssertEqual(ours.status, 0, ours.stderr)
        XCTAssertTrue(ours.stdout.contains("yuv420p(tv, bt709/bt709/bt709)"), ours.stdout)
        let theirs = try Processes.lockstep(["probe", input])
        XCTAssertTrue(theirs.stdout.contains("yuv420p10le(tv, bt2020nc/bt2020/arib-std-b67)"), theirs.stdout)
        XCTAssertTrue(theirs.stdout.contains("Dolby Vision profile 8.4"), theirs.stdout)
        XCTAssertTrue(theirs.stdout.contains("read as BT.2020 (NCL) matrix, BT.2020 primaries, HLG, limited range, 10-bit"), theirs.stdout)
        let json = try Processes.lockstep(["probe", "--json", out])
        XCTAssertTrue(json.stdout.contains("\"transfer\" : \"bt709\""), json.stdout)
    }
}
