import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// Interlaced inputs: 720-line interlaced clips made by the ffmpeg CLI from a 50p source (each
/// field from its own progressive picture, so the truth at field rate is known), in both field
/// orders. (1280x720, not 1080i: weaving, field order and bwdif work line by line whatever the
/// size, and 720 lines are under half the pixels to make, decode and compare; still HD, so the
/// untagged clips are read as BT.709 as 1080i was, where 576i would be converted from BT.601.)
final class DeinterlaceTests: ScratchTestCase {
    static let width = 1280, height = 720

    /// The clips made for the class, by field order: the top-field-first one serves two tests.
    static let made = ClassFixtures<Bool, (clip: String, source: [UInt8])>("DeinterlaceTests-clips")
    override class func tearDown() {
        made.removeAll()
        super.tearDown()
    }

    /// 720i25 from testsrc2 at 50p: the 50p source (raw, for the truth) and the interlaced clip
    /// (H.264 coded interlaced, tagged with its field order). Made once per class and order.
    func interlaced(topFirst: Bool, frames: Int = 6) throws -> (clip: String, source: [UInt8]) {
        try Self.made.value(topFirst) { folder in try makeInterlaced(topFirst: topFirst, frames: frames, in: folder) }
    }

    func makeInterlaced(topFirst: Bool, frames: Int, in folder: URL) throws -> (clip: String, source: [UInt8]) {
        let source = folder.appendingPathComponent("source-\(topFirst).y4m").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=\(Self.width)x\(Self.height):r=50",
                "-frames:v", "\(2 * frames)", "-pix_fmt", "yuv420p", source
            ])
        let clip = folder.appendingPathComponent("i720-\(topFirst ? "tff" : "bff").mp4").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-i", source, "-vf",
                "tinterlace=mode=\(topFirst ? "interleave_top" : "interleave_bottom"),setfield=\(topFirst ? "tff" : "bff")",
                "-c:v", "libx264", "-crf", "12", "-flags", "+ildct+ilme", "-x264opts", topFirst ? "tff=1" : "bff=1",
                "-pix_fmt", "yuv420p", "-r", "25", clip
            ])
        let order = String(
            decoding: try Processes.check(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries",
                    "stream=field_order", "-of", "csv=p=0", clip
                ]), as: UTF8.self)
        XCTAssertEqual(order.trimmingCharacters(in: .whitespacesAndNewlines), topFirst ? "tt" : "bb", "ffprobe's field order")
        return (clip, try ColorReference.raw(source, frames: 2 * frames))
    }

    func render(_ clip: String, _ mode: DeinterlaceMode) throws -> (String, CompositeResult) {
        let out = scratch.appendingPathComponent("\(mode.rawValue)-\(UUID().uuidString.prefix(4)).mp4").path
        var options = CompositeOptions.filter(input: clip, output: out, schedule: FilterSchedule(initial: .none))
        options.deinterlace = mode
        options.audio = false
        return (out, try CompositeJob(options: options).run())
    }

    static let frameBytes = width * height * 3 / 2
    func frame(_ bytes: [UInt8], _ k: Int) -> [UInt8] { Array(bytes[(k * Self.frameBytes)..<((k + 1) * Self.frameBytes)]) }

    func testFieldRateGivesEachFieldsPictureInBothFieldOrders() throws {
        for topFirst in [true, false] {
            let (clip, truth) = try interlaced(topFirst: topFirst)
            let (out, result) = try render(clip, .field)
            XCTAssertEqual(result.frameRate, Rational(50, 1), "two pictures a frame")
            XCTAssertEqual(result.frames, 12)
            let ours = try ColorReference.raw(out, frames: 12)
            // Picture k is field k, the source's picture k (its other lines interpolated): near
            // it, and nearer it than its neighbour.
            for k in 1..<11 {
                let here = ColorReference.psnr(frame(ours, k), frame(truth, k))
                let next = ColorReference.psnr(frame(ours, k), frame(truth, k + 1))
                XCTAssertGreaterThan(here, 27, "\(topFirst ? "tff" : "bff") picture \(k): \(here) dB")
                XCTAssertGreaterThan(here, next + 3, "\(topFirst ? "tff" : "bff") picture \(k) shows its own field's time")
            }
            // And it is what ffmpeg's bwdif makes.
            let reference = try ColorReference.raw(clip, filter: "bwdif=mode=send_field:parity=auto:deint=interlaced", frames: 12)
            XCTAssertGreaterThan(ColorReference.psnr(ours, reference), 40, topFirst ? "tff" : "bff")
        }
    }

    func testFrameRateByDefaultAndOffLeavesTheCombing() throws {
        let (clip, truth) = try interlaced(topFirst: true)
        let (framed, a) = try render(clip, .frame)
        XCTAssertEqual(a.frameRate, Rational(25, 1))
        XCTAssertEqual(a.frames, 6)
        let reference = try ColorReference.raw(clip, filter: "bwdif=mode=send_frame:parity=auto:deint=interlaced", frames: 6)
        let ours = try ColorReference.raw(framed, frames: 6)
        let p = ColorReference.psnr(ours, reference)
        XCTAssertGreaterThan(p, 40, "frame rate: ffmpeg's bwdif")
        // Woven fields against the first field's picture: combing on everything that moves.
        let (woven, _) = try render(clip, .off)
        let off = try ColorReference.raw(woven, frames: 6)
        var deinterlaced = 0.0, combed = 0.0
        for k in 1..<5 {
            deinterlaced += ColorReference.psnr(frame(ours, k), frame(truth, 2 * k))
            combed += ColorReference.psnr(frame(off, k), frame(truth, 2 * k))
        }
        print("720i: frame rate \(deinterlaced / 4) dB from the first field's picture, off \(combed / 4) dB; against bwdif \(p) dB")
        XCTAssertGreaterThan(deinterlaced, combed + 4 * 3)
    }

    func testAProgressiveInputIsNotTouched() throws {
        // The default (frame) on a progressive clip: its own pictures (x264 re-encoded), no filter.
        let clip = scratch.appendingPathComponent("p.mp4").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=\(Self.width)x\(Self.height):r=25:d=0.2",
                "-c:v", "libx264", "-crf", "10", "-pix_fmt", "yuv420p", clip
            ])
        let (out, _) = try render(clip, .field)
        XCTAssertGreaterThan(ColorReference.psnr(try ColorReference.raw(out, frames: 5), try ColorReference.raw(clip, frames: 5)), 45)
        let reader = try MovieReader(path: clip, audio: false)
        reader.deinterlace(.field)
        XCTAssertEqual(reader.video.frameRate, Rational(25, 1), "field rate only for an interlaced stream")
    }

    /// `reverse` deinterlaces (`--deinterlace frame`, the default) each pass forward with a frame
    /// of context on each side: its pictures are the forward pass's (`filter --deinterlace
    /// frame`), last first, bit for bit through x264 at crf 0, with a pool of 4 so the clip's one
    /// 12-frame GOP is read in three passes, each needing the frames across its edges. With
    /// `--deinterlace off` the fields stay woven: other pictures (the test can fail).
    func testReverseShowsTheForwardPassDeinterlacedPicturesLastFirst() throws {
        let (clip, _) = try makeInterlaced(topFirst: true, frames: 12, in: scratch)
        var forward = CompositeOptions.filter(input: clip, output: scratch.appendingPathComponent("forward.mp4").path, schedule: FilterSchedule(initial: .none))
        forward.deinterlace = .frame
        forward.audio = false
        forward.encode.crf = 0
        _ = try CompositeJob(options: forward).run()
        func reversed(_ mode: DeinterlaceMode) throws -> LumaVideo {
            var options = ReverseOptions(input: clip, output: scratch.appendingPathComponent("reverse-\(mode.rawValue).mp4").path)
            options.deinterlace = mode
            options.audio = .none
            options.encode.crf = 0
            options.poolFrames = 4
            let result = try ReverseJob(options: options).run()
            XCTAssertEqual(result.frames, 12)
            return try LumaVideo.decode(URL(fileURLWithPath: options.output))
        }
        let ahead = try LumaVideo.decode(URL(fileURLWithPath: forward.output))
        let back = try reversed(.frame), woven = try reversed(.off)
        XCTAssertEqual(ahead.frames.count, 12)
        XCTAssertEqual(back.frames.count, 12)
        let differing = zip(back.frames, ahead.frames.reversed()).enumerated().filter { $1.0 != $1.1 }.map(\.offset)
        XCTAssertEqual(differing, [], "reversed frames that differ from the forward pass's")
        XCTAssertFalse(woven.frames == back.frames, "--deinterlace off should leave the fields woven")
        var field = ReverseOptions(input: clip, output: scratch.appendingPathComponent("field.mp4").path)
        field.deinterlace = .field
        XCTAssertThrowsError(try ReverseJob(options: field).run()) {
            XCTAssertEqual(
                "\($0)",
                "reverse cannot honour --deinterlace field: it deinterlaces one picture per frame (--deinterlace frame, the default); make one picture per field with composite or concat first.")
        }
    }

    func testFieldRateAndSegmentsAreRefusedInOneSentence() {
        var options = CompositeOptions.filter(input: "in.mp4", output: "out.mp4", schedule: FilterSchedule(initial: .none))
        options.deinterlace = .field
        options.frames = FrameRange(start: 0, end: 10)
        XCTAssertThrowsError(try options.check()) {
            XCTAssertEqual(
                ($0 as? any JobFailure)?.description,
                "--deinterlace field cannot be combined with --frames or --segments: a segment would not start on the field the single pass shows there.")
        }
    }
}
