import Compositor
import Foundation
import Media
import TestSupport
import Verify
import XCTest

@testable import Lockstep

/// Stills are held for the whole output (one line says so); an input that ends early ends the
/// output unless --hold-last; --longest covers every input's time with black where one has none;
/// slow motion is read as its container times it. Fixtures: the barcoded q0-q3 (30 fps, 2.5 to
/// 1.6 s); pictures and clips made here by the ffmpeg CLI.
final class StillsAndEndsTests: ScratchTestCase {
    func quadBand(_ s: Int, cell i: Int) -> BarcodeRegion {
        BarcodeRegion.band(s).scaled(by: 0.5, offsetX: Double(i % 2) * 160, offsetY: Double(i / 2) * 120)
    }

    func picture(_ name: String, _ extra: [String] = []) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        _ = try Shell.check("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=320x240:d=1", "-frames:v", "1"] + extra + [path])
        return path
    }

    func testAStillIsShownForTheWholeOutputAndSaidSo() throws {
        for name in ["still.png", "still.jpg", "still.webp"] {
            let still = try picture(name)
            let (out, r) = try compose(.quad, ["q0.mp4", still])
            XCTAssertEqual(r.frames, 75, "\(name): q0's 2.5 s, not one frame")
            XCTAssertEqual(r.notices, ["input 2 (\(still)) is a still picture: it is shown for the whole output"])
            let video = try LumaVideo.decode(out)
            XCTAssertEqual(video.frames.count, 75)
            // The still's cell (top right) is white in every frame, q0's strip counts on.
            for (k, f) in video.frames.enumerated() {
                XCTAssertGreaterThan(Barcode.mean(f, width: video.width, x: (200, 280), y: (40, 80)) ?? 0, 200, "\(name) frame \(k)")
                XCTAssertEqual(Barcode.read(f, width: video.width, region: quadBand(0, cell: 0))?.index, k)
            }
            XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [], name)
        }
        // A one-frame movie is a still too; stills alone make one frame.
        let oneFrame = try picture("one.mp4", ["-c:v", "libx264"])
        let (_, r) = try compose(.quad, ["q3.mp4", oneFrame]) { $0.sync = .index }
        XCTAssertEqual(r.frames, 48)
        XCTAssertEqual(r.notices, ["input 2 (\(oneFrame)) is a still picture: it is shown for the whole output"])
        let (_, only) = try compose(.mix, [oneFrame, try picture("b.png")])
        XCTAssertEqual(only.frames, 1)
    }

    func testAnInputThatEndsEarlyEndsTheOutputUnlessHoldLast() throws {
        // q3 (48 frames) ends the quad at 48; with --hold-last its frame 47 stays until q0's 75.
        let (short, r) = try compose(.quad, ["q0.mp4", "q3.mp4"])
        XCTAssertEqual(r.frames, 48); XCTAssertEqual(r.endedBy, 1)
        for sync in SyncMode.allCases {
            let (held, h) = try compose(.quad, ["q0.mp4", "q3.mp4"]) {
                $0.holdLast = true; $0.sync = sync
            }
            XCTAssertEqual(h.frames, 75, "\(sync)"); XCTAssertEqual(h.endedBy, 0)
            let video = try LumaVideo.decode(held)
            for (k, f) in video.frames.enumerated() {
                XCTAssertEqual(Barcode.read(f, width: video.width, region: quadBand(3, cell: 1))?.index, min(k, 47), "\(sync) frame \(k)")
            }
            XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: held.path)).run().violations, [], "\(sync): the held frames are declared")
        }
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: short.path)).run().violations, [])
    }

    func testLongestCoversEveryInputsTimeWithBlackAndSilence() throws {
        // q3 (1.6 s, 1100 Hz) placed 1.5 s after q0 (2.5 s, 440 Hz): 3.1 s in all; q3's cell black
        // before 1.5 s, q0's after 2.5 s; each tone only where its input is.
        let (out, r) = try compose(.quad, ["q0.mp4", "q3.mp4"]) {
            $0.clocks = [.identity, InputClock(offset: Rational(3, 2))]
            $0.coverage = .longest
        }
        XCTAssertEqual(r.frames, 93)
        let video = try LumaVideo.decode(out)
        for (k, f) in video.frames.enumerated() {
            XCTAssertEqual(Barcode.read(f, width: video.width, region: quadBand(0, cell: 0))?.index, k < 75 ? k : nil, "frame \(k)")
            XCTAssertEqual(Barcode.read(f, width: video.width, region: quadBand(3, cell: 1))?.index, k >= 45 ? k - 45 : nil, "frame \(k)")
        }
        let s = try AudioAnalysis.decodeMono(out)
        func level(_ f: Double, _ a: Double, _ b: Double) -> Double { AudioAnalysis.goertzelPower(s[Int(a * 48000)..<Int(b * 48000)], frequency: f, rate: 48000) }
        XCTAssertLessThan(level(1100, 0.1, 1.45), 1e-7, "q3 silent before it starts")
        XCTAssertGreaterThan(level(1100, 1.55, 3.0), 1e-4)
        XCTAssertGreaterThan(level(440, 0.1, 2.45), 1e-4)
        XCTAssertLessThan(level(440, 2.55, 3.05), 1e-7, "q0 silent after it ends")
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [], "absent inputs are declared")
    }

    /// Slow motion as phones store it. 240 fps stored at 240 (an iPhone's Slo-Mo: the slowing
    /// is an edit kept outside the stream): read at its container's 240 fps, 1 s lasts 1 s, the
    /// default output rate its stated 240; --fps 30 shows every eighth frame. Stored at the
    /// playback rate (a Samsung's: 240 captured frames as 8 s of 30 fps): 8 s, as its times say.
    func testSlowMotionIsReadAsItsContainerTimesIt() throws {
        let fast = try FlashBeep.make(scratch.appendingPathComponent("240.mp4").path, rate: "240", seconds: 1, at: [0.5], tone: 1000)
        XCTAssertEqual(fast.flashes, [0.5])
        let (out, r) = try compose(.mix, [fast.path, fast.path])
        XCTAssertEqual(r.frameRate, Rational(240, 1)); XCTAssertEqual(r.frames, 240)
        let (thirty, t) = try compose(.mix, [fast.path, fast.path]) { $0.frameRate = Rational(30, 1) }
        XCTAssertEqual(t.frames, 30)
        let m = try FlashBeep.measure(thirty)  // its flashes and beeps from one decode
        XCTAssertEqual(m.flashes[0], [0.5])
        XCTAssertEqual(m.beeps[0].first ?? 0, 0.5, accuracy: 0.002)
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [])
        let slow = scratch.appendingPathComponent("slow.mp4").path
        _ = try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-i", fast.path, "-an", "-vf", "setpts=8*PTS", "-r", "30",
                "-c:v", "libx264", "-preset", "ultrafast", slow
            ])
        let joined = scratch.appendingPathComponent("slow-joined.mp4")
        let c = try ConcatJob(options: ConcatOptions(clips: [slow], output: joined.path)).run()
        XCTAssertEqual(c.frameRate, Rational(30, 1)); XCTAssertEqual(c.frames, 240)
        XCTAssertEqual(try FlashBeep.flashes(joined), [4.0])
    }
}
