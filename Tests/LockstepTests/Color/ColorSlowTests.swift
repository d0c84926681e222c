import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// The thorough colour checks (`scripts/test --all`): every tone curve on the whole colour
/// checker, the iPhone's HLG + Dolby Vision clip, PQ with its own peak, 12-bit, 4:2:2, scaled
/// HDR, 10-bit SDR. References from the ffmpeg CLI only.
final class ColorSlowTests: ScratchTestCase {
    func convert(_ input: String, frames: Int64? = nil, _ configure: (inout CompositeOptions) -> Void = { _ in }) throws -> String {
        let out = scratch.appendingPathComponent("out-\(UUID().uuidString.prefix(6)).mp4").path
        var options = CompositeOptions(inputs: [input, input], output: out, blend: .mix)
        options.weights = [1, 0]
        options.audio = false
        options.encode.crf = 10
        if let frames { options.frames = FrameRange(start: 0, end: frames) }
        configure(&options)
        _ = try CompositeJob(options: options).run()
        return out
    }

    func testEveryToneCurveOnEveryFrameOfTheColourChecker() throws {
        let input = Repository.shared("phones/hlg10-color-test.mp4")
        for curve in ToneCurve.allCases {
            let out = try convert(input) { $0.toneCurve = curve }
            for frame in [0, 4, 8] {
                func pick(_ f: String?) -> String { "select=eq(n\\,\(frame))" + (f.map { "," + $0 } ?? "") }
                let ours = try ColorReference.save(try ColorReference.raw(out, filter: pick(nil)), "ours.yuv", in: scratch)
                let ref = try ColorReference.save(try ColorReference.raw(input, filter: pick(ColorReference.toSDR(curve: curve.rawValue))), "ref.yuv", in: scratch)
                let p = try ColorReference.patches(ours: ours, reference: ref, width: 1920, height: 1080, centres: ColorReference.checkerCentres, in: scratch)
                print("checker frame \(frame), \(curve): median hue \(p.medianHueError) deg, chroma \(p.medianChromaRatio)x, worst ΔE \(p.deltaE.max() ?? 0)")
                XCTAssertLessThanOrEqual(p.medianHueError, 2, "\(curve) frame \(frame)")
                XCTAssertEqual(p.medianChromaRatio, 1, accuracy: 0.1, "\(curve) frame \(frame)")
                XCTAssertLessThan(p.deltaE.max() ?? 99, 3, "\(curve) frame \(frame)")
            }
        }
    }

    /// The iPhone clip: HLG BT.2020 10-bit with a Dolby Vision 8.4 record, stored turned, with
    /// an edit list: each of our first frames against the nearest of ffmpeg's first frames
    /// (which frame comes first is the timing part's business, not colour's).
    func testTheIPhonesHLGDolbyVisionClip() throws {
        let input = Repository.shared("phones/sample_edit_list.mp4")
        let out = try convert(input, frames: 3)
        let ours = try ColorReference.raw(out, frames: 3)
        let theirs = try ColorReference.raw(input, filter: ColorReference.toSDR(), frames: 8)
        let n = 1080 * 1920 * 3 / 2
        XCTAssertEqual(ours.count, 3 * n)
        for k in 0..<3 {
            let mine = Array(ours[(k * n)..<((k + 1) * n)])
            let best = (0..<(theirs.count / n)).map { ColorReference.psnr(mine, Array(theirs[($0 * n)..<(($0 + 1) * n)])) }.max()!
            print("iPhone HLG + DV 8.4 frame \(k): PSNR \(best) dB against zscale+tonemap")
            XCTAssertGreaterThan(best, 38, "frame \(k)")
        }
    }

    /// PQ whose MaxCLL (1600 nits) is the tone curve's peak, in both (FFmpeg's tonemap reads
    /// it from the picture's side data; so does Lockstep). Measured where the picture is flat
    /// (`flatPSNR`, as shown: rgb24): 51.7 dB against the clip's peak, 31.5 against 1000 nits.
    /// The whole picture's Y'CbCr, testsrc2's saturated edges and out-of-gamut codes included,
    /// gives about 30 dB against either, so it only guards against gross errors.
    func testPQWithItsOwnPeak() throws {
        let clip = scratch.appendingPathComponent("pq.mp4").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=0.2,format=gbrp",
                "-vf", "zscale=tin=bt709:pin=bt709:t=smpte2084:p=bt2020:m=2020_ncl:r=tv:npl=1000,format=yuv420p10le",
                "-c:v", "libx265", "-x265-params",
                "log-level=error:hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(40000000,50):max-cll=1600,400",
                "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc", "-color_range", "tv", clip
            ])
        let out = try convert(clip, frames: 1)
        let peak1000 = ColorReference.toSDR().replacingOccurrences(of: "desat=0", with: "desat=0:peak=10")
        let ours = try ColorReference.raw(out)
        let withPeak = try ColorReference.raw(clip, filter: ColorReference.toSDR())
        let without = try ColorReference.raw(clip, filter: peak1000)
        let p = ColorReference.psnr(ours, withPeak), q = ColorReference.psnr(ours, without)
        let shown = try ColorReference.rgb(out)
        let pf = ColorReference.flatPSNR(shown, try ColorReference.rgb(clip, filter: ColorReference.toSDR()), width: 640, height: 360)
        let qf = ColorReference.flatPSNR(shown, try ColorReference.rgb(clip, filter: peak1000), width: 640, height: 360)
        print("PQ MaxCLL 1600: where flat (\(pf.share) of the picture) \(pf.psnr) dB against tonemap with the clip's peak, \(qf.psnr) dB against peak 1000 nits; whole picture \(p) and \(q) dB")
        XCTAssertGreaterThan(pf.share, 0.4)
        XCTAssertGreaterThan(pf.psnr, 45)
        XCTAssertGreaterThan(pf.psnr, qf.psnr + 10, "the clip's own peak is used")
        XCTAssertGreaterThan(p, 28)
    }

    /// Other layouts of HDR: 12-bit (read directly), 4:2:2 and a scaled picture (through 12-bit
    /// first), each against zscale+tonemap: where the picture is flat, as shown (colour), and the
    /// whole picture's Y'CbCr (about 34 dB: testsrc2's saturated edges, as in `testPQWithItsOwnPeak`).
    func testTwelveBitFourTwoTwoAndScaledHLG() throws {
        for (name, format, size, canvas) in [
            ("12bit", "yuv420p12le", "640x360", nil as Size?), ("422", "yuv422p10le", "640x360", nil),
            ("scaled", "yuv420p10le", "1280x720", Size(width: 640, height: 360))
        ] {
            let clip = scratch.appendingPathComponent("\(name).mov").path
            _ = try Processes.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=\(size):r=30:d=0.2,format=gbrp",
                    "-vf", "zscale=tin=bt709:pin=bt709:t=arib-std-b67:p=bt2020:m=2020_ncl:r=tv:npl=300,format=\(format)",
                    "-c:v", "libx265", "-x265-params", "log-level=error", "-pix_fmt", format,
                    "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", "-color_range", "tv", clip
                ])
            let out = try convert(clip, frames: 1) { $0.size = canvas }
            let filter = ColorReference.toSDR() + (canvas.map { ",scale=\($0.width):\($0.height):flags=bicubic" } ?? "")
            let p = ColorReference.psnr(try ColorReference.raw(out), try ColorReference.raw(clip, filter: filter))
            let f = ColorReference.flatPSNR(try ColorReference.rgb(out), try ColorReference.rgb(clip, filter: filter), width: 640, height: 360)
            print("HLG \(name): PSNR \(p) dB against zscale+tonemap; where flat (\(f.share) of the picture) \(f.psnr) dB")
            XCTAssertGreaterThan(f.share, 0.4, name)
            XCTAssertGreaterThan(f.psnr, 45, name)
            XCTAssertGreaterThan(p, 32, name)
        }
    }

    /// 10-bit SDR BT.709 (a camera's 10-bit H.264): the same colours, to 8 bits.
    func testTenBitSDRIsOnlyReducedToEightBits() throws {
        let clip = scratch.appendingPathComponent("sdr10.mp4").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=0.2",
                "-vf", "scale=out_color_matrix=bt709:out_range=tv", "-c:v", "libx264", "-crf", "8", "-pix_fmt", "yuv420p10le",
                "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", clip
            ])
        let p = ColorReference.psnr(try ColorReference.raw(try convert(clip, frames: 1)), try ColorReference.raw(clip))
        print("10-bit SDR: PSNR \(p) dB against ffmpeg's 8-bit")
        XCTAssertGreaterThan(p, 45)
    }

    /// 1080i bottom field first at frame rate: ffmpeg's bwdif.
    func testBottomFieldFirstAtFrameRate() throws {
        let source = scratch.appendingPathComponent("s.y4m").path
        _ = try Processes.check("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=50", "-frames:v", "12", "-pix_fmt", "yuv420p", source])
        let clip = scratch.appendingPathComponent("bff.mp4").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-i", source, "-vf", "tinterlace=mode=interleave_bottom,setfield=bff",
                "-c:v", "libx264", "-crf", "12", "-flags", "+ildct+ilme", "-x264opts", "bff=1", "-pix_fmt", "yuv420p", "-r", "25", clip
            ])
        let out = try convert(clip)
        let p = ColorReference.psnr(
            try ColorReference.raw(out, frames: 6),
            try ColorReference.raw(clip, filter: "bwdif=mode=send_frame:parity=auto:deint=interlaced", frames: 6))
        print("1080i BFF at frame rate: PSNR \(p) dB against bwdif")
        XCTAssertGreaterThan(p, 40)
    }
}
