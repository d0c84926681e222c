import Compositor
import Foundation
import Media
import Verify
import XCTest

@testable import Lockstep

/// The checker is shown to fail: movies broken on purpose with the ffmpeg CLI (from bg.mp4: 90
/// frames, 3 s, 440 Hz), and one written with provenance that skips a source frame. `verify` must
/// flag each, with the right frame number.
final class VerifyCatchesBrokenMoviesTests: ScratchTestCase {

    /// ffmpeg -i bg.mp4 ARGS out.mp4
    func broken(_ name: String, _ args: [String]) throws -> String {
        let out = scratch.appendingPathComponent(name).path
        _ = try Shell.check(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-y", "-i", Fixtures.url("bg.mp4").path] + args
                + ["-c:v", "libx264", "-preset", "veryfast", "-crf", "18", out])
        return out
    }

    func violations(_ path: String) throws -> [Violation] { try VerifyJob(options: VerifyOptions(movie: path)).run().violations }

    func testTheCleanSourceVerifies() throws {
        XCTAssertEqual(try violations(Fixtures.url("bg.mp4").path), [])
    }

    func testADroppedFrameIsNamed() throws {
        let path = try broken("dropped.mp4", ["-vf", "select='not(eq(n,30))'", "-fps_mode", "passthrough", "-c:a", "copy"])
        let v = try violations(path)
        XCTAssertEqual(v.first { $0.kind == .missingFrames }?.frame, 30, "\(v)")
        XCTAssertEqual(v.first { $0.kind == .missingFrames }?.message, "1 frame missing before frame 30: it comes 66.7 ms after frame 29, the step is 33.3 ms")
    }

    func testADuplicatedFrameIsNamed() throws {
        // One frame shown twice (ffmpeg's loop filter), timestamps kept regular. The barcodes say
        // which output frame is the repeat; verify must name the same one, and only it.
        let path = try broken("duplicated.mp4", ["-vf", "loop=loop=1:size=1:start=20,setpts=N/FRAME_RATE/TB", "-an"])
        let video = try LumaVideo.decode(URL(fileURLWithPath: path))
        let ids = video.frames.map { Barcode.read($0, width: video.width, region: .band(0))?.index }
        let repeats = ids.indices.dropFirst().filter { ids[$0] == ids[$0 - 1] }
        XCTAssertEqual(repeats.count, 1, "\(ids)")
        let v = try violations(path)
        XCTAssertEqual(v.filter { $0.kind == .repeatedPicture }.map(\.frame), repeats.map { Optional($0) }, "\(v)")
    }

    func testAPictureFrozenToTheEndIsOneRun() throws {
        // The last picture held for one more second (tpad clones frame 89 thirty times).
        let path = try broken("frozen.mp4", ["-vf", "tpad=stop=30:stop_mode=clone", "-an"])
        let v = try violations(path)
        XCTAssertEqual(v, [Violation(.repeatedPicture, frame: 90, time: 3.0, "frames 90-119 repeat the picture of frame 89 (to the end)")])
    }

    func testFramesFrozenAlthoughTheirSourceAdvancedAreNamed() throws {
        // Written like Lockstep writes: the provenance is right, but from output frame 5 on the
        // picture no longer changes (a stuck blender, say).
        let path = scratch.appendingPathComponent("frozen-provenance.mp4").path
        try Self.writeFrozenFromFrame5(path)
        let report = try VerifyJob(options: VerifyOptions(movie: path)).run()
        XCTAssertEqual(
            report.violations,
            [
                Violation(
                    .frozenFrame, frame: 5, time: 5.0 / 30,
                    "output frames 5-7 are the same picture as frame 4 (to the end) although input 1 advanced from source frame 4 to 7")
            ])
    }

    /// 8 frames, provenance advancing input 1 every frame, the picture changing until frame 4
    /// and repeated from frame 5 on; `change`: the provenance's rendered change (frames 1-7).
    static func writeFrozenFromFrame5(_ path: String, change: Double? = nil) throws {
        let writer = try MovieWriter(
            path: path, container: "mp4", canvas: Size(width: 64, height: 48), frameRate: Rational(30, 1),
            settings: EncodeSettings(), withAudio: false)
        let frame = try Frame(width: 64, height: 48)
        for k in 0..<8 {
            try frame.makeWritable()  // the encoder may still hold the last picture
            frame.withImage { PlaneKernels.fill($0, YUVColor(y: UInt8(60 + 20 * min(k, 4)), u: 128, v: 128)) }
            var p = Provenance(k: Int64(k), src: [[Int64(k), Int64(k) * 512]])
            if k == 0 { p.sync = "index"; p.blend = "mix"; p.fps = "30/1"; p.inputs = [.init(name: "a.mp4", timeBase: "1/15360", audio: false)] }
            if k > 0 { p.change = change }
            try frame.setUserDataSEI(p.payload())
            try writer.writeVideo(frame, index: Int64(k))
        }
        try writer.finish()
    }

    /// A clip whose sound ends in silence is an ordinary good file (issue 26: every such clip
    /// failed with silentEnd): the tone muted for the last 150 ms, the video running to 3 s.
    func testSilenceAtTheEndIsNoFault() throws {
        let path = try broken("muted.mp4", ["-af", "volume=volume=0:enable='gte(t,2.85)',atrim=end=3", "-c:a", "aac"])
        XCTAssertEqual(try violations(path), [])
    }

    func testALockstepOutputStrippedOfItsAudioIsNamed() throws {
        // A clean composite of two inputs with audio, remuxed without its audio track: the
        // provenance (kept by -c copy) says there should be some.
        let (out, _) = try compose(.chromakey, ["fg.mp4", "bg.mp4"])
        let stripped = scratch.appendingPathComponent("stripped.mp4").path
        _ = try Shell.check("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", out.path, "-an", "-c", "copy", stripped])
        let report = try VerifyJob(options: VerifyOptions(movie: stripped)).run()
        XCTAssertTrue(report.provenance)
        XCTAssertEqual(report.violations, [Violation(.audioMissing, "the file has no audio, but fg.mp4, bg.mp4 had audio")])
    }

    func testATimeSyncCompositeOfMixedRatesVerifies() throws {
        // 25 fps under a 30 fps clock: some source frames are shown twice, as time sync wants;
        // neither those nor the ticks between them may be flagged.
        let (out, _) = try compose(.mix, ["bg.mp4", "r25.mp4"]) { $0.sync = .time }
        let report = try VerifyJob(options: VerifyOptions(movie: out.path)).run()
        XCTAssertEqual(report.sync, "time")
        XCTAssertEqual(report.violations, [])
    }

    func testTheLastSecondCutIsNamed() throws {
        let path = try broken("cut.mp4", ["-filter_complex", "[0:v]trim=end=2[v]", "-map", "[v]", "-map", "0:a", "-c:a", "copy"])
        let v = try violations(path)
        XCTAssertEqual(v.first { $0.kind == .audioEnd }?.message, "audio ends 1000 ms after the video (3.000 s against 2.000 s)", "\(v)")
    }

    func testBlackFramesPrependedAreNamed() throws {
        let path = try broken("black.mp4", ["-vf", "tpad=start=5:color=black", "-an"])
        let v = try violations(path)
        XCTAssertEqual(v.first { $0.kind == .blackStart }?.message, "frames 0-4 are black", "\(v)")
    }

    func testAudioLongerThanVideoBy300msIsMeasured() throws {
        let path = try broken("long.mp4", ["-filter_complex", "[0:v]trim=end=2.7[v]", "-map", "[v]", "-map", "0:a", "-c:a", "copy"])
        let v = try violations(path)
        XCTAssertEqual(v.first { $0.kind == .audioEnd }?.message, "audio ends 300 ms after the video (3.000 s against 2.700 s)", "\(v)")
    }

    func testProvenanceThatSkipsASourceFrameIsNamed() throws {
        // Written like Lockstep writes, but output frame 3 claims source frame 4 of input 2.
        let path = scratch.appendingPathComponent("skips.mp4").path
        let writer = try MovieWriter(
            path: path, container: "mp4", canvas: Size(width: 64, height: 48), frameRate: Rational(30, 1),
            settings: EncodeSettings(), withAudio: false)
        let frame = try Frame(width: 64, height: 48)
        let sources: [Int64] = [0, 1, 2, 4, 5, 6]
        for k in 0..<6 {
            try frame.makeWritable()  // the encoder may still hold the last picture
            frame.withImage { PlaneKernels.fill($0, YUVColor(y: UInt8(60 + 20 * k), u: 128, v: 128)) }
            var p = Provenance(k: Int64(k), src: [[Int64(k), Int64(k) * 512], [sources[k], sources[k] * 512]])
            if k == 0 {
                p.sync = "index"; p.blend = "mix"; p.fps = "30/1"
                p.inputs = [.init(name: "a.mp4", timeBase: "1/15360", audio: false), .init(name: "b.mp4", timeBase: "1/15360", audio: false)]
            }
            try frame.setUserDataSEI(p.payload())
            try writer.writeVideo(frame, index: Int64(k))
        }
        try writer.finish()
        let report = try VerifyJob(options: VerifyOptions(movie: path)).run()
        XCTAssertTrue(report.provenance)
        XCTAssertEqual(report.violations.map(\.message), ["output frame 3: input 2 (b.mp4) jumps from source frame 2 to 4: source frame 3 was dropped"])
        XCTAssertEqual(report.violations.first?.frame, 3)
        // The provenance survives a remux.
        let remuxed = scratch.appendingPathComponent("remuxed.mp4").path
        _ = try Shell.check("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", path, "-c", "copy", remuxed])
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: remuxed)).run().violations, report.violations)
    }

    func testTheCommandExitsZeroOneOrTwo() throws {
        let products = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL.deletingLastPathComponent() ?? Bundle.main.bundleURL
        let exe = products.appendingPathComponent("lockstep").path
        XCTAssertEqual(try Shell.run(exe, ["verify", Fixtures.url("bg.mp4").path]).status, 0)
        // A clean Lockstep output, provenance and all.
        let (composite, _) = try compose(.chromakey, ["fg.mp4", "bg.mp4"])
        let clean = try Shell.run(exe, ["verify", composite.path])
        XCTAssertEqual(clean.status, 0, String(decoding: clean.stdout, as: UTF8.self))
        XCTAssertEqual(
            String(decoding: clean.stdout, as: UTF8.self),
            "\(composite.path): 60 frames, step 33.333 ms, provenance: time sync of fg.mp4, bg.mp4, audio\nok\n")  // time: composite's default since issue 21
        let black = try broken("black2.mp4", ["-vf", "tpad=start=2:color=black", "-an"])
        let r = try Shell.run(exe, ["verify", black])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(String(decoding: r.stdout, as: UTF8.self).contains("  blackStart: frames 0-1 are black\n"), String(decoding: r.stdout, as: UTF8.self))
        let j = try Shell.run(exe, ["verify", "--json", black])
        XCTAssertEqual(j.status, 1)
        let doc = try JSONDecoder().decode(VerifyReport.self, from: j.stdout)
        XCTAssertEqual(doc.violations.first?.kind, .blackStart)
        let unreadable = try Shell.run(exe, ["verify", Fixtures.url("notmovie.mp4").path])
        XCTAssertEqual(unreadable.status, 2)
        XCTAssertEqual(unreadable.stderr, "Error: \(Fixtures.url("notmovie.mp4").path): not a movie FFmpeg can read (Invalid data found when processing input)\n")
    }
}
