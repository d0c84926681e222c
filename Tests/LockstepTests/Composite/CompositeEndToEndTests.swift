import Compositor
import Foundation
import Media
import TestSupport
import XCTest

@testable import Lockstep

/// Frame-perfect, proved from the outside: every output is decoded back with the ffmpeg CLI, and
/// every frame's barcodes must name the right source frame of every input; ffprobe must see
/// first pts 0, a constant step, the right frame count, and audio as long as video to 1 ms.
final class CompositeEndToEndTests: ScratchTestCase {

    /// A quad cell's copy of band `s`: the 320x240 fixture scaled by 1/2 into cell i.
    func quadBand(_ s: Int, cell i: Int) -> BarcodeRegion {
        BarcodeRegion.band(s).scaled(by: 0.5, offsetX: Double(i % 2) * 160, offsetY: Double(i / 2) * 120)
    }

    /// For every output frame k, every (region, source) must read (source, expected(k)).
    /// Returns the decoded pictures, for a test's further looks.
    @discardableResult
    func assertIdentities(
        _ url: URL, frames: Int, _ expectations: [(BarcodeRegion, Int, (Int) -> Int)],
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> LumaVideo {
        try assertIdentities(try LumaVideo.decode(url), frames: frames, expectations, file: file, line: line)
    }

    /// `assertIdentities` on pictures already decoded (with the sound, `LumaVideo.decodeWithSound`).
    @discardableResult
    func assertIdentities(
        _ video: LumaVideo, frames: Int, _ expectations: [(BarcodeRegion, Int, (Int) -> Int)],
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> LumaVideo {
        XCTAssertEqual(video.frames.count, frames, "decoded frame count", file: file, line: line)
        var wrong: [String] = []
        for (k, picture) in video.frames.enumerated() {
            for (region, source, index) in expectations {
                let got = Barcode.read(picture, width: video.width, region: region)
                if got?.source != source || got?.index != index(k) {
                    wrong.append("output \(k): source \(source) should show frame \(index(k)), reads \(got.map { "(\($0.source), \($0.index))" } ?? "nothing")")
                }
            }
        }
        XCTAssertEqual(wrong.prefix(8).joined(separator: "\n"), "", file: file, line: line)
        return video
    }

    /// First pts 0, step exactly 1/fps, count as expected; audio (if any) as long as video to 1 ms.
    func assertTiming(
        _ url: URL, frames: Int, fps: Double = 30, audio expectAudio: Bool,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        // One ffprobe run for the frame times and the streams (it decodes the file once).
        let (streams, pts) = try Probe.streamsAndVideoPTS(url)
        XCTAssertEqual(pts.count, frames, "frames with timestamps", file: file, line: line)
        for (k, t) in pts.enumerated() where abs(t - Double(k) / fps) > 1e-4 {
            XCTFail("frame \(k) has pts \(t), expected \(Double(k) / fps)", file: file, line: line); break
        }
        let v = streams.first { $0.codecType == "video" }
        let a = streams.first { $0.codecType == "audio" }
        XCTAssertEqual(v?.nbReadFrames, frames, file: file, line: line)
        XCTAssertEqual(v?.duration ?? 0, Double(frames) / fps, accuracy: 1e-3, file: file, line: line)
        if expectAudio {
            XCTAssertNotNil(a, "an audio stream", file: file, line: line)
            XCTAssertEqual(a?.duration ?? -1, v?.duration ?? 0, accuracy: 0.001, "audio as long as video", file: file, line: line)
            XCTAssertEqual(a?.sampleRate, 48000, file: file, line: line)
            XCTAssertEqual(a?.channels, 2, file: file, line: line)
        } else {
            XCTAssertNil(a, "no audio stream", file: file, line: line)
        }
    }

    /// Each frequency's level relative to the loudest, in dB; all given ones must be audible.
    func assertTones(_ url: URL, present: [Double], absent: [Double] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        assertTones(try AudioAnalysis.decodeMono(url), present: present, absent: absent, file: file, line: line)
    }

    /// `assertTones` on the sound already decoded (mono at 48 kHz: `AudioAnalysis.toneLevels`'s).
    func assertTones(_ sound: [Float], present: [Double], absent: [Double] = [], file: StaticString = #filePath, line: UInt = #line) {
        var levels: [Double: Double] = [:]
        for f in present + absent { levels[f] = AudioAnalysis.goertzelPower(sound[...], frequency: f, rate: 48000) }
        let loudest = levels.values.max() ?? 0
        for f in present {
            XCTAssertGreaterThan(levels[f] ?? 0, loudest / 1000, "the \(f) Hz input is audible (> -30 dB)", file: file, line: line)
        }
        for f in absent {
            XCTAssertLessThan(levels[f] ?? 0, loudest / 10_000, "\(f) Hz must not be there", file: file, line: line)
        }
    }

    // MARK: the cases

    func testChromaKeyOfAShorterForegroundOverALongerBackground() throws {
        let (out, r) = try compose(.chromakey, ["fg.mp4", "bg.mp4"])
        XCTAssertEqual(r.frames, 60); XCTAssertEqual(r.endedBy, 0)
        let (video, sound) = try LumaVideo.decodeWithSound(out)
        try assertIdentities(video, frames: 60, [(.band(1), 1, { $0 }), (.band(0), 0, { $0 })])
        try assertTiming(out, frames: 60, audio: true)
        assertTones(sound, present: [660, 440])
    }

    func testQuadOfFourInputsOfFourLengthsRatesAndLayouts() throws {
        let (out, r) = try compose(.quad, ["q0.mp4", "q1.mp4", "q2.mp4", "q3.mp4"])
        XCTAssertEqual(r.frames, 48); XCTAssertEqual(r.endedBy, 3)
        let (video, sound) = try LumaVideo.decodeWithSound(out)
        try assertIdentities(video, frames: 48, (0..<4).map { (quadBand($0, cell: $0), $0, { $0 }) })
        try assertTiming(out, frames: 48, audio: true)
        assertTones(sound, present: [440, 660, 880, 1100])
    }

    func testStackOfKeyedLayers() throws {
        let (out, r) = try compose(.stack, ["q0.mp4", "l1.mp4", "l2.mp4", "l3.mp4"])
        XCTAssertEqual(r.frames, 45)
        let (video, sound) = try LumaVideo.decodeWithSound(out)
        try assertIdentities(video, frames: 45, (0..<4).map { (.band($0), $0, { $0 }) })
        try assertTiming(out, frames: 45, audio: true)
        assertTones(sound, present: [440], absent: [660, 880, 1100])
    }

    func testTimeSyncOfA25fpsInputUnderA30fpsOutput() throws {
        let (out, r) = try compose(.quad, ["q0.mp4", "r25.mp4"]) { $0.sync = .time }
        // r25 lasts 50/25 = 2 s: ticks k/30 < 2 → 60 frames; tick k shows its frame floor(k*25/30).
        XCTAssertEqual(r.frames, 60); XCTAssertEqual(r.endedBy, 1)
        try assertIdentities(out, frames: 60, [(quadBand(0, cell: 0), 0, { $0 }), (quadBand(1, cell: 1), 1, { $0 * 25 / 30 })])
        try assertTiming(out, frames: 60, audio: true)
    }

    func testIndexSyncOfA25fpsInputTakesOneFrameEachTick() throws {
        // Index sync named (time sync is the default since issue 21).
        let (out, r) = try compose(.quad, ["q0.mp4", "r25.mp4"]) { $0.sync = .index }
        XCTAssertEqual(
            r.notices,
            [
                "--keep-frames shows every frame once at 30 fps: input 2 (\(Fixtures.url("r25.mp4").path), 25 fps) at 1.2x speed; the sound keeps its own time, so the picture drifts from it (without --keep-frames every input keeps its timeline and its sync)"
            ])
        XCTAssertEqual(r.frames, 50)
        try assertIdentities(out, frames: 50, [(quadBand(0, cell: 0), 0, { $0 }), (quadBand(1, cell: 1), 1, { $0 })])
    }

    func testAnInputWhoseTimestampsStartAtHalfASecond() throws {
        for sync in SyncMode.allCases {
            let (out, r) = try compose(.quad, ["q0.mp4", "late.mkv"]) { $0.sync = sync }
            XCTAssertEqual(r.frames, 45, "\(sync)")
            try assertIdentities(out, frames: 45, [(quadBand(0, cell: 0), 0, { $0 }), (quadBand(1, cell: 1), 1, { $0 })])
            try assertTiming(out, frames: 45, audio: true)
        }
    }

    func testTheLateInputsAudioKeepsItsSyncWithItsVideo() throws {
        // late.mkv's audio starts with its video at 0.5 s: in the output it must start at 0.
        let (out, _) = try compose(.quad, ["noaudio.mp4", "late.mkv"])
        let samples = try AudioAnalysis.decodeMono(out)
        let head = samples.prefix(4800)  // the first 100 ms
        XCTAssertGreaterThan(AudioAnalysis.goertzelPower(head, frequency: 660, rate: 48000), 0.001)
    }

    func testInputsWithoutAudioAndAnOddSizedInput() throws {
        let (out, r) = try compose(.quad, ["noaudio.mp4", "odd.mkv"])
        XCTAssertEqual(r.frames, 40); XCTAssertNil(r.audioSamples)
        // odd.mkv is 321x241: it fits its 160x120 cell at 160/321 across, 120/241 down.
        let oddBand = BarcodeRegion.band(3).scaled(by: 120.0 / 241.0, offsetX: 160, offsetY: 0)
        try assertIdentities(out, frames: 40, [(quadBand(2, cell: 0), 2, { $0 }), (oddBand, 3, { $0 })])
        try assertTiming(out, frames: 40, audio: false)
    }

    func testAnOddSizedFirstInputMakesAnEvenCanvas() throws {
        let (out, r) = try compose(.mix, ["odd.mkv", "noaudio.mp4"]) { $0.weights = [1, 0] }
        XCTAssertEqual(r.canvas, Size(width: 320, height: 240))
        try assertIdentities(out, frames: 40, [(BarcodeRegion.band(3).scaled(by: 240.0 / 241.0, offsetX: 0, offsetY: 0), 3, { $0 })])
    }

    func testMixWeightsDecideWhatIsSeen() throws {
        let (out, r) = try compose(.mix, ["q0.mp4", "q1.mp4"]) { $0.weights = [1, 0] }
        XCTAssertEqual(r.frames, 66)
        let video = try assertIdentities(out, frames: 66, [(.band(0), 0, { $0 })])
        // With q1 weighted out, its barcode is not in the picture.
        XCTAssertNil(Barcode.read(video.frames[10], width: video.width, region: .band(1)))
    }

    func testEqualMixIsTheAverageOfTheSameFrameIndexOfEachInput() throws {
        let (out, _) = try compose(.mix, ["q0.mp4", "q1.mp4"])
        let mixed = try LumaVideo.decode(out), a = try LumaVideo.decode(Fixtures.url("q0.mp4")), b = try LumaVideo.decode(Fixtures.url("q1.mp4"))
        XCTAssertEqual(mixed.frames.count, 66)
        func mean(_ f: [UInt8]) -> Double { Double(PixelStatistics.sum(f)) / Double(f.count) }
        for k in [0, 17, 33, 65] {
            XCTAssertEqual(mean(mixed.frames[k]), (mean(a.frames[k]) + mean(b.frames[k])) / 2, accuracy: 2.0, "frame \(k)")
        }
    }

    func testAShortInputUnderHalfASecondKeepsItsLastFrameAndExactAudio() throws {
        let (out, r) = try compose(.chromakey, ["short.mp4", "bg.mp4"])
        XCTAssertEqual(r.frames, 12)
        try assertIdentities(out, frames: 12, [(.band(1), 1, { $0 }), (.band(0), 0, { $0 })])
        try assertTiming(out, frames: 12, audio: true)
        XCTAssertEqual(r.audioSamples, 19200)  // 12 / 30 * 48000
    }

    func testAudioNoneWritesNoAudioStream() throws {
        let (out, r) = try compose(.chromakey, ["fg.mp4", "bg.mp4"]) { $0.audio = false }
        XCTAssertNil(r.audioSamples)
        try assertTiming(out, frames: 60, audio: false)
    }

    func testAGainOfZeroSilencesThatInputOnly() throws {
        let (out, _) = try compose(.chromakey, ["fg.mp4", "bg.mp4"]) { $0.gains = [0, 1] }
        try assertTones(out, present: [440], absent: [660])
    }

    func testAnOutputFrameRateOverridesTheFirstInputs() throws {
        // Index sync at 15 fps: still one frame of each input per tick, now 1/15 s apart.
        // (Index sync named: time sync is the default since issue 21; its case follows.)
        let (out, r) = try compose(.chromakey, ["fg.mp4", "bg.mp4"]) {
            $0.frameRate = Rational(15, 1); $0.sync = .index
        }
        XCTAssertEqual(r.frames, 60)
        try assertIdentities(out, frames: 60, [(.band(1), 1, { $0 }), (.band(0), 0, { $0 })])
        try assertTiming(out, frames: 60, fps: 15, audio: true)
    }

    func testAnOutputFrameRateUnderTimeSyncKeepsTheInputsDuration() throws {
        // Time sync (the default) at 15 fps: the 2 s foreground lasts 2 s, 30 frames, tick k
        // showing each input's frame 2k (on screen at k/15).
        let (out, r) = try compose(.chromakey, ["fg.mp4", "bg.mp4"]) { $0.frameRate = Rational(15, 1) }
        XCTAssertEqual(r.frames, 30)
        try assertIdentities(out, frames: 30, [(.band(1), 1, { 2 * $0 }), (.band(0), 0, { 2 * $0 })])
        try assertTiming(out, frames: 30, fps: 15, audio: true)
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [])
    }

    func testACanvasSizeScalesEveryInputToFit() throws {
        let (out, r) = try compose(.chromakey, ["fg.mp4", "bg.mp4"]) { $0.size = Size(width: 640, height: 480) }
        XCTAssertEqual(r.canvas, Size(width: 640, height: 480))
        try assertIdentities(
            out, frames: 60,
            [
                (BarcodeRegion.band(1).scaled(by: 2, offsetX: 0, offsetY: 0), 1, { $0 }),
                (BarcodeRegion.band(0).scaled(by: 2, offsetX: 0, offsetY: 0), 0, { $0 })
            ])
    }

    func testFramesComeFromBoundedPoolsWhateverTheInputsLength() throws {
        // Reader threads let go of their frames just after they signal the end: wait for that.
        func settled(at baseline: Int) -> Int {
            let deadline = Date().addingTimeInterval(3)
            while Frame.live > baseline && Date() < deadline { usleep(10_000) }
            return Frame.live
        }
        let baseline = settled(at: 0)
        Frame.resetPeak()
        _ = try compose(.chromakey, ["short.mp4", "bg.mp4"])
        let shortPeak = Frame.peak - baseline
        XCTAssertEqual(settled(at: baseline), baseline, "every frame is freed when the job ends")
        Frame.resetPeak()
        _ = try compose(.chromakey, ["bg.mp4", "bg.mp4"])
        let longPeak = Frame.peak - baseline
        XCTAssertEqual(settled(at: baseline), baseline)
        XCTAssertEqual(shortPeak, longPeak, "the same frames serve 12 or 90 output frames")
        // Per input: a pool of 4, a spare, the decoder's two; the writer's 3 and its audio frame.
        XCTAssertEqual(longPeak, 2 * 7 + 4)
    }

    func testARotatedInputIsTurnedAsFFmpegTurnsIt() throws {
        // bg.mp4 with a display matrix: ffmpeg's decoder output (autorotate) is the reference,
        // re-expressed from BT.601 (an untagged SD clip) in BT.709 as the output is (FFmpeg's
        // colorspace filter: swscale's matrix options clip bg.mp4's footroom).
        let rotated = scratch.appendingPathComponent("rotated.mp4")
        let made = try Shell.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-y", "-i", Fixtures.url("bg.mp4").path, "-c", "copy",
                "-metadata:s:v:0", "rotate=90", rotated.path
            ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let reference = try LumaVideo.decode(rotated, filter: "colorspace=all=bt709:iall=bt601-6-525:fast=1")
        XCTAssertEqual(reference.width, 240, "ffmpeg shows it 240 wide")
        var options = CompositeOptions(inputs: [rotated.path, rotated.path], output: scratch.appendingPathComponent("r.mp4").path, blend: .mix)
        options.weights = [1, 0]
        let result = try CompositeJob(options: options).run()
        XCTAssertEqual(result.canvas, Size(width: 240, height: 320), "the canvas is the display size")
        let ours = try LumaVideo.decode(URL(fileURLWithPath: options.output))
        XCTAssertEqual(ours.frames.count, reference.frames.count)
        for k in [0, 45, 89] {
            let diff = PixelDifference.absoluteSum(ours.frames[k], reference.frames[k])
            XCTAssertLessThan(Double(diff) / Double(ours.frames[k].count), 3, "frame \(k) matches ffmpeg's turned picture")
        }
    }
}
