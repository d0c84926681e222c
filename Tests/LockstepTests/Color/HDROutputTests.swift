import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// `--hdr hlg|pq` (10-bit HEVC, BT.2020) and keying across dynamic ranges, against zscale's
/// conversions of the same inputs.
final class HDROutputTests: ScratchTestCase {
    /// 10-bit samples of the first `frames` pictures of `path` after `filter`.
    func raw10(_ path: String, filter: String? = nil, frames: Int = 1) throws -> [UInt16] {
        var args = ["-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-frames:v", "\(frames)"]
        if let filter { args += ["-vf", filter] }
        let data = try Processes.check("ffmpeg", args + ["-pix_fmt", "yuv420p10le", "-f", "rawvideo", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
    }

    func psnr10(_ a: [UInt16], _ b: [UInt16]) -> Double {
        XCTAssertEqual(a.count, b.count)
        return PixelDifference.psnr(meanSquaredError: PixelDifference.squaredSum(a, b) / Double(max(1, min(a.count, b.count))), peak: 1023)
    }

    func stream(_ path: String, _ entries: String) throws -> String {
        String(
            decoding: try Processes.check(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries", entries,
                    "-of", "default=nw=1", path
                ]), as: UTF8.self)
    }

    /// `inputs` composited with `blend` (input 1 alone for `mix`, weights 1 and 0) into an HDR output.
    func hdr(_ signal: WorkingSignal, _ blend: BlendMode, _ inputs: [String], _ configure: (inout CompositeOptions) -> Void = { _ in }) throws -> (String, CompositeResult) {
        let (url, result) = try compose(blend, inputs) { o in
            o.signal = signal
            if blend == .mix { o.weights = [1, 0] }
            configure(&o)
        }
        return (url.path, result)
    }

    /// The plain HLG clip, made once for the tests that read it (removed in the class tearDown).
    nonisolated(unsafe) static var madeHLG: (folder: URL, path: String)?
    override class func tearDown() {
        if let made = madeHLG { try? FileManager.default.removeItem(at: made.folder) }
        madeHLG = nil
        super.tearDown()
    }
    func hlgClip() throws -> String {
        if let made = Self.madeHLG { return made.path }
        let folder = try Scratch.makeFolder("lockstep-HDROutputTests-hlg")
        let path = try hdrClip("hlg.mp4", transfer: "arib-std-b67", in: folder)
        Self.madeHLG = (folder, path)
        return path
    }

    /// A 320x240 HLG or PQ clip (libx265, 10-bit, tagged) of testsrc2 with its white at `nits`,
    /// `x265` extra parameters (mastering metadata).
    func hdrClip(_ name: String, transfer: String, nits: Int = 300, x265: String = "", in folder: URL? = nil) throws -> String {
        let path = (folder ?? scratch).appendingPathComponent(name).path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=0.5,format=gbrp",
                "-vf", "zscale=tin=bt709:pin=bt709:t=\(transfer):p=bt2020:m=2020_ncl:r=tv:npl=\(nits),format=yuv420p10le",
                "-c:v", "libx265", "-x265-params", "log-level=error" + (x265.isEmpty ? "" : ":" + x265),
                "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc", "-color_range", "tv", path
            ])
        return path
    }

    func testAnHLGOutputIsTaggedHEVCAndVerifies() throws {
        let hlg = try hlgClip()
        let (out, result) = try hdr(.hlg, .chromakey, ["fg.mp4", hlg])
        XCTAssertEqual(result.frames, 15)
        XCTAssertEqual(
            try stream(out, "stream=codec_name,codec_tag_string,pix_fmt,color_range,color_space,color_transfer,color_primaries"),
            "codec_name=hevc\ncodec_tag_string=hvc1\npix_fmt=yuv420p10le\ncolor_range=tv\ncolor_space=bt2020nc\ncolor_transfer=arib-std-b67\ncolor_primaries=bt2020\n")
        let verify = try Processes.lockstep(["verify", out])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertTrue(verify.stdout.contains("provenance: time sync of fg.mp4, hlg.mp4"), verify.stdout)
        let probe = try Processes.lockstep(["probe", out])
        XCTAssertTrue(probe.stdout.contains("yuv420p10le(tv, bt2020nc/bt2020/arib-std-b67)"), probe.stdout)
    }

    func testAnHLGInputPassesThroughAnHLGOutput() throws {
        let hlg = try hlgClip()
        let (out, _) = try hdr(.hlg, .mix, [hlg, hlg])
        let p = psnr10(try raw10(out, frames: 5), try raw10(hlg, frames: 5))
        print("HLG through --hdr hlg: PSNR \(p) dB (10-bit)")
        XCTAssertGreaterThan(p, 45)
    }

    /// SDR into HDR: its white at 203 nits (BT.2408), its primaries into BT.2020, as zscale
    /// converts it with `npl=203` (SDR light 1.0 is then 203 nits).
    func testAnSDRPlateIsBroughtUpAsZscaleBringsIt() throws {
        let plate = scratch.appendingPathComponent("plate.mp4").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-y", "-v", "error", "-f", "lavfi", "-i", "smptehdbars=s=640x360:r=30:d=0.2",
                "-vf", "scale=out_color_matrix=bt709:out_range=tv", "-color_primaries", "bt709", "-color_trc", "bt709",
                "-colorspace", "bt709", "-c:v", "libx264", "-crf", "4", "-pix_fmt", "yuv420p", plate
            ])
        for (signal, transfer) in [(WorkingSignal.hlg, "arib-std-b67"), (.pq, "smpte2084")] {
            let (out, _) = try hdr(signal, .mix, [plate, plate])
            let reference = try raw10(plate, filter: "zscale=tin=709:min=709:pin=709:rin=limited:t=\(transfer):m=2020_ncl:p=2020:r=limited:npl=203,format=yuv420p10le")
            let p = psnr10(try raw10(out), reference)
            print("SDR plate into --hdr \(signal.rawValue): PSNR \(p) dB (10-bit) against zscale npl=203")
            XCTAssertGreaterThan(p, 40, signal.rawValue)
        }
    }

    /// A PQ input's mastering display and light levels reach the PQ output: in the container
    /// (ffprobe's stream side data) as given to x265.
    func testAPQInputsMasteringMetadataIsPassedOn() throws {
        let pq = try hdrClip(
            "pq.mp4", transfer: "smpte2084", nits: 400,
            x265: "hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(40000000,50):max-cll=1600,400")
        let theirs = try stream(pq, "stream_side_data")
        let hasBoxes = theirs.contains("Mastering display metadata")
        let (out, _) = try hdr(.pq, .mix, [pq, pq])
        let side = try stream(out, "stream_side_data")
        print("PQ output side data:\n\(side)")
        XCTAssertTrue(side.contains("Mastering display metadata"), side)
        XCTAssertTrue(side.contains("max_luminance=40000000/10000"), side)
        XCTAssertTrue(side.contains("min_luminance=50/10000"), side)
        XCTAssertTrue(side.contains("max_content=1600"), side)
        XCTAssertTrue(side.contains("max_average=400"), side)
        // (The input, made by the ffmpeg CLI, has them in its SEI; in its container only if the
        // muxer wrote boxes.)
        print("input has mdcv/clli boxes: \(hasBoxes)")
        let frames = String(
            decoding: try Processes.check(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1",
                    "-show_frames", "-show_entries", "frame=side_data_list", out
                ]), as: UTF8.self)
        XCTAssertTrue(frames.contains("Mastering display metadata"), "and in the HEVC SEI: \(frames)")
    }

    /// Keying across dynamic ranges: an HLG green-screen foreground (a coloured box on green)
    /// over an SDR plate, into SDR and into HLG: where the box is, the foreground as zscale
    /// converts it; elsewhere the plate as zscale converts it. Both in one signal, so neither
    /// side is washed out or too bright next to the other.
    func testAnHDRForegroundKeyedOverAnSDRPlateMatchesBoth() throws {
        let fg = scratch.appendingPathComponent("hlg-green.mp4").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                "color=c=0x00FF00:s=320x240:r=30:d=0.2,format=gbrp,drawbox=x=80:y=60:w=160:h=120:color=0xC06030:t=fill",
                "-vf", "zscale=tin=bt709:pin=bt709:t=arib-std-b67:p=bt2020:m=2020_ncl:r=tv:npl=300,format=yuv420p10le",
                "-c:v", "libx265", "-x265-params", "log-level=error", "-color_primaries", "bt2020",
                "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", "-color_range", "tv", fg
            ])
        let plate = Fixtures.url("bg.mp4").path
        // Into SDR (the default).
        let (sdr, _) = try compose(.chromakey, [fg, plate])
        let ours = try ColorReference.raw(sdr.path)
        let fgRef = try ColorReference.raw(fg, filter: ColorReference.toSDR())
        let plateRef = try ColorReference.raw(plate, filter: "colorspace=all=bt709:iall=bt601-6-525:fast=1,format=yuv420p")
        func region(_ b: [UInt8], _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> [UInt8] {
            var out: [UInt8] = []
            for y in y0..<y1 { out += b[(y * 320 + x0)..<(y * 320 + x1)] }
            return out
        }
        let inBox = ColorReference.psnr(region(ours, 96, 76, 224, 164), region(fgRef, 96, 76, 224, 164))
        let outside = ColorReference.psnr(region(ours, 0, 190, 320, 240), region(plateRef, 0, 190, 320, 240))
        print("HLG foreground over SDR plate into SDR: box \(inBox) dB against zscale+tonemap, plate \(outside) dB against colorspace")
        XCTAssertGreaterThan(inBox, 38); XCTAssertGreaterThan(outside, 38)
        // Into HLG.
        let (hlg, _) = try hdr(.hlg, .chromakey, [fg, plate])
        let ours10 = try raw10(hlg), fg10 = try raw10(fg)
        let plate10 = try raw10(plate, filter: "zscale=tin=709:min=170m:pin=709:rin=limited:t=arib-std-b67:m=2020_ncl:p=2020:r=limited:npl=203,format=yuv420p10le")
        func region10(_ b: [UInt16], _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> [UInt16] {
            var out: [UInt16] = []
            for y in y0..<y1 { out += b[(y * 320 + x0)..<(y * 320 + x1)] }
            return out
        }
        let inBox10 = psnr10(region10(ours10, 96, 76, 224, 164), region10(fg10, 96, 76, 224, 164))
        let outside10 = psnr10(region10(ours10, 0, 190, 320, 240), region10(plate10, 0, 190, 320, 240))
        print("HLG foreground over SDR plate into HLG: box \(inBox10) dB against the foreground, plate \(outside10) dB against zscale npl=203")
        // (zscale resamples chroma through 4:4:4: on testsrc2's sharp colour edges that alone is
        // about 7 dB from a 4:2:0 conversion; measured on the SD clip of ColorEndToEndTests.)
        XCTAssertGreaterThan(inBox10, 40); XCTAssertGreaterThan(outside10, 34)
    }

    func testWhatTheHDROutputDoesNotDoIsRefusedInOneSentence() {
        var options = CompositeOptions.filter(input: "in.mp4", output: "out.mp4", schedule: FilterSchedule(initial: .none))
        options.signal = .hlg
        XCTAssertThrowsError(try options.check()) {
            XCTAssertEqual(
                ($0 as? any JobFailure)?.description,
                "--hdr hlg cannot be combined with filters: they work on the SDR working signal (8-bit BT.709); filter in SDR, or composite without them.")
        }
        var segment = CompositeOptions(inputs: ["a.mp4", "b.mp4"], output: "out.mp4", blend: .mix)
        segment.signal = .pq
        segment.frames = FrameRange(start: 0, end: 10)
        XCTAssertThrowsError(try segment.check()) {
            XCTAssertEqual(($0 as? any JobFailure)?.description, "--hdr pq cannot be combined with --frames or --segments: segment renders are H.264 only.")
        }
    }
}
