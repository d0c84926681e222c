import Compositor
import Foundation
import Media
import TestSupport
import Verify
import XCTest

@testable import Lockstep

/// Issue 21: a clip keeps its duration and its sync. Clips made here by the ffmpeg CLI at 25,
/// 29.97, 30 and 59.94 fps, each with flashes and beeps at times of its own (`FlashBeep`); every
/// expected value is what ffmpeg/ffprobe measure on those clips, and every result is what they
/// measure on the output: each flash lands on the first output frame at or after its time (so
/// within one output frame of its beep, less the source's own flash-to-beep gap), each beep
/// within 2 ms of its time, and the output lasts what the clips last.
final class TimeSyncEndToEndTests: ScratchTestCase {
    static let rates = ["25", "30000/1001", "30", "60000/1001"]
    static let tones: [Double] = [500, 1000, 1500, 2000]

    /// The four clips of four rates (2 s, two flashes and beeps each, at times of their own),
    /// made once for the class: the quad and the concat both take them; their folder is removed
    /// in the class tearDown.
    nonisolated(unsafe) static var madeClips: [FlashBeep.Clip]?
    nonisolated(unsafe) static var madeFolder: URL?
    override class func tearDown() {
        if let folder = madeFolder { try? FileManager.default.removeItem(at: folder) }
        madeFolder = nil
        madeClips = nil
        super.tearDown()
    }

    func fourRates() throws -> [FlashBeep.Clip] {
        if let made = Self.madeClips { return made }
        let folder = try Scratch.makeFolder("lockstep-TimeSyncEndToEndTests-clips")
        Self.madeFolder = folder
        let times: [[Double]] = [[0.5, 1.3], [0.7, 1.45], [0.9, 1.6], [1.1, 1.75]]
        let clips = try (0..<4).map { i in
            try FlashBeep.make(folder.appendingPathComponent("clip\(i).mp4").path, rate: Self.rates[i], seconds: 2, at: times[i], tone: Self.tones[i])
        }
        Self.madeClips = clips
        return clips
    }

    /// Each source event (flash, beep) at output time `shift + t`: the beep within 2 ms, the flash
    /// on the first output frame at or after its own time (1 ms of slack for stored times).
    func assertLands(
        source: FlashBeep.Clip, shift: Double, flashes: [Double], beeps: [Double], frame: Double, _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(flashes.count, source.flashes.count, "\(what): flashes \(flashes) for \(source.flashes)", file: file, line: line)
        XCTAssertEqual(beeps.count, source.beeps.count, "\(what): beeps \(beeps) for \(source.beeps)", file: file, line: line)
        for (got, want) in zip(flashes, source.flashes) {
            XCTAssertGreaterThanOrEqual(got - (shift + want), -0.001, "\(what): flash at \(got), source \(want) + \(shift)", file: file, line: line)
            XCTAssertLessThan(got - (shift + want), frame + 0.001, "\(what): flash at \(got), source \(want) + \(shift)", file: file, line: line)
        }
        for (got, want) in zip(beeps, source.beeps) {
            XCTAssertEqual(got, shift + want, accuracy: 0.002, "\(what): beep", file: file, line: line)
        }
        // What the README quotes: flash lateness (0 to one output frame) and beep error.
        print(
            String(
                format: "%@: flashes late by %@ ms, beeps off by %@ ms", what,
                zip(flashes, source.flashes).map { String(format: "%.1f", ($0 - shift - $1) * 1000) }.joined(separator: ", "),
                zip(beeps, source.beeps).map { String(format: "%+.3f", ($0 - shift - $1) * 1000) }.joined(separator: ", ")))
    }

    func cell(_ i: Int, of size: (Int, Int)) -> (x: Int, y: Int, w: Int, h: Int) {
        (i % 2 * size.0 / 2, i / 2 * size.1 / 2, size.0 / 2, size.1 / 2)
    }

    func testAQuadOfFourRatesKeepsEveryFlashWithItsBeep() throws {
        let clips = try fourRates()
        let (out, r) = try compose(.quad, clips.map(\.path))
        // The first input's nominal rate; the output as long as the shortest (25 fps and 30 fps: 2 s).
        XCTAssertEqual(r.frameRate, Rational(25, 1))
        XCTAssertEqual(r.frames, 50)
        XCTAssertEqual(r.notices, [])
        // The four cells' flashes and the four tones' beeps from one decode of the output.
        let m = try FlashBeep.measure(out, regions: (0..<4).map { cell($0, of: (160, 120)) }, tones: Self.tones)
        XCTAssertEqual(try XCTUnwrap(m.streams.first { $0.codecType == "video" }?.duration), 2.0, accuracy: 1e-3)
        XCTAssertEqual(try XCTUnwrap(m.streams.first { $0.codecType == "audio" }?.duration), 2.0, accuracy: 1e-3)
        for i in 0..<4 {
            assertLands(
                source: clips[i], shift: 0, flashes: m.flashes[i],
                beeps: m.beeps[i], frame: 1.0 / 25, "input \(i + 1) at \(Self.rates[i])")
        }
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [])

        // Index sync, named: one line says who changes speed, and the 59.94 fps cell's flashes
        // fall 0.3-0.7 s after their beeps (what the measure above would catch).
        let (indexed, ri) = try compose(.quad, clips.map(\.path)) { $0.sync = .index }
        XCTAssertEqual(
            ri.notices,
            [
                "--keep-frames shows every frame once at 25 fps: "
                    + "input 2 (\(clips[1].path), 29.97 fps) at 0.8342x speed, input 3 (\(clips[2].path), 30 fps) at 0.8333x speed, "
                    + "input 4 (\(clips[3].path), 59.94 fps) at 0.4171x speed; the sound keeps its own time, so the picture drifts from it (without --keep-frames every input keeps its timeline and its sync)"
            ])
        let late = try FlashBeep.flashes(indexed, region: cell(3, of: (160, 120)))
        XCTAssertTrue(late.isEmpty || late[0] - clips[3].flashes[0] > 0.3, "index sync shows 59.94 fps at 25: \(late)")
    }

    /// The quad's four clips joined (two flashes and beeps each: 8 in all, clip i's at 2i and 2i + 1).
    func testAConcatOfFourRatesKeepsEachClipsDurationAndSync() throws {
        let clips = try fourRates()
        let out = scratch.appendingPathComponent("joined.mp4")
        let result = try ConcatJob(options: ConcatOptions(clips: clips.map(\.path), output: out.path)).run()
        XCTAssertEqual(result.frameRate, Rational(25, 1))
        // Each clip starts where the ones before it end, as ffprobe measures their lengths.
        var starts: [Double] = [0]
        for c in clips.dropLast() { starts.append(starts.last! + c.duration) }
        let total = starts.last! + clips.last!.duration
        let m = try FlashBeep.measure(out)
        let v = try XCTUnwrap(m.streams.first { $0.codecType == "video" }?.duration), a = try XCTUnwrap(m.streams.first { $0.codecType == "audio" }?.duration)
        XCTAssertGreaterThanOrEqual(v, total - 0.001, "the clips' \(total) s are all there")
        XCTAssertLessThan(v, total + 1.0 / 25, "and no more than a frame past them")
        XCTAssertEqual(a, v, accuracy: 0.001)
        let flashes = m.flashes[0], beeps = m.beeps[0]
        XCTAssertEqual(flashes.count, 8); XCTAssertEqual(beeps.count, 8)
        for i in 0..<min(4, flashes.count / 2, beeps.count / 2) {
            assertLands(
                source: clips[i], shift: starts[i], flashes: Array(flashes[(2 * i)..<(2 * i + 2)]), beeps: Array(beeps[(2 * i)..<(2 * i + 2)]),
                frame: 1.0 / 25, "clip \(i + 1) at \(Self.rates[i])")
        }
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [])

        // --keep-frames, named: every frame once, so the 59.94 fps clip plays at 0.42x and its
        // first flash comes long after its own beep.
        let kept = scratch.appendingPathComponent("kept.mp4")
        var options = ConcatOptions(clips: clips.map(\.path), output: kept.path)
        options.keepFrames = true
        let k = try ConcatJob(options: options).run()
        XCTAssertEqual(k.notices.count, 1)
        let km = try FlashBeep.measure(kept), kf = km.flashes[0], kb = km.beeps[0]
        XCTAssertEqual(kf.count, 8); XCTAssertEqual(kb.count, 8)
        XCTAssertGreaterThan(kf[6] - kb[6], 0.3, "flash \(kf[6]), beep \(kb[6])")
    }

    /// Three cameras film one scene (the same flash and beep times): camera 2 started 1.25 s
    /// after camera 1 and its clock runs 500 ppm fast, camera 3 started 0.4 s before and runs
    /// 300 ppm slow, at 25 and 29.97 fps. Each is made by ffmpeg sampling the scene at its own
    /// clock's times (scene time = offset + own time / (1 + ppm 1e-6)), so the truth is known.
    /// With the offsets and drifts given, every cell flashes at the same output frame and each
    /// camera's audio (taken alone with --gain) beeps at the same sample, to 1 ms.
    func testKnownOffsetsAndDriftsAlignThreeCameras() throws {
        let scene = [0.6, 1.9, 3.1, 4.4, 5.6]
        let cams: [(rate: String, offset: Double, ppm: Double, seconds: Double)] = [("30", 0, 0, 6.2), ("25", 1.25, 500, 5.0), ("30000/1001", -0.4, -300, 6.4)]
        let clips = try cams.enumerated().map { i, c in
            try FlashBeep.make(
                scratch.appendingPathComponent("cam\(i).mp4").path, rate: c.rate, seconds: c.seconds, at: scene, tone: 1000,
                time: "\(FlashBeep.fmt(c.offset))+t/\(FlashBeep.fmt(1 + c.ppm * 1e-6))")
        }
        func run(_ gains: [Double], drift: Bool = true) throws -> URL {
            try compose(.quad, clips.map(\.path)) { o in
                o.clocks = cams.map { InputClock(offset: Rational(parsing: FlashBeep.fmt($0.offset))!, driftPpm: drift ? $0.ppm : 0) }
                o.gains = gains
            }.0
        }
        let outs = try [[1.0, 0, 0], [0, 1, 0], [0, 0, 1]].map { try run($0) }
        // The first output's cells and sound from one decode; the other two outputs' sound.
        let first = try FlashBeep.measure(outs[0], regions: (0..<3).map { cell($0, of: (160, 120)) })
        // The output covers what all three saw: from camera 2's start (1.25 s on camera 1's clock).
        let beeps = try [first.beeps[0]] + outs.dropFirst().map { try FlashBeep.beeps($0) }
        XCTAssertEqual(beeps[0].count, 4, "\(beeps[0])")  // 1.9, 3.1, 4.4, 5.6 on camera 1's clock, less 1.25
        for (i, b) in beeps.enumerated() {
            XCTAssertEqual(b.count, beeps[0].count, "camera \(i + 1): \(b)")
            for (x, y) in zip(b, beeps[0]) { XCTAssertEqual(x, y, accuracy: 0.001, "camera \(i + 1)'s beep against camera 1's") }
        }
        for (x, t) in zip(beeps[0], scene.dropFirst()) { XCTAssertEqual(x, t - 1.25, accuracy: 0.002) }
        for i in 1..<3 {
            print(
                String(
                    format: "camera %d against camera 1: beeps off by %@ ms", i + 1,
                    zip(beeps[i], beeps[0]).map { String(format: "%+.3f", ($0 - $1) * 1000) }.joined(separator: ", ")))
        }
        let flashes = first.flashes
        for (i, f) in flashes.enumerated() {
            XCTAssertEqual(f.count, 4, "camera \(i + 1)")
            for (x, y) in zip(f, flashes[0]) { XCTAssertEqual(x, y, accuracy: 1.0 / 30 + 0.001, "camera \(i + 1)'s flash against camera 1's") }
        }
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: outs[0].path)).run().violations, [])
        // Without the drift, camera 2's last beep lands off by 500 ppm of its 4.35 s: more than 1 ms.
        let undrifted = try FlashBeep.beeps(try run([0, 1, 0], drift: false))
        print(String(format: "camera 2 without --drift: beeps off by %@ ms", zip(undrifted, beeps[0]).map { String(format: "%+.3f", ($0 - $1) * 1000) }.joined(separator: ", ")))
        XCTAssertGreaterThan(abs(undrifted.last! - beeps[0].last!), 0.0015, "\(undrifted) against \(beeps[0])")
    }

    /// The brief's way: a clip cut from another with ffmpeg (-ss 2) and retimed as a clock 500
    /// ppm fast would stamp it (setpts stretched, the audio relabelled 47976 Hz and resampled:
    /// 48000 / 47976 - 1 = 500.25 ppm). --offsets 0,2 --drift 0,500.25 puts it back: its beeps on
    /// the original's to 1 ms, over 4 s where the drift alone would move them 2 ms.
    func testAClipCutAndRetimedByFFmpegGoesBackOnItsSource() throws {
        let a = try FlashBeep.make(scratch.appendingPathComponent("a.mp4").path, rate: "30", seconds: 6.5, at: [1.0, 2.6, 3.9, 5.2, 6.1], tone: 1000)
        let b = scratch.appendingPathComponent("b.mp4").path
        _ = try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-ss", "2", "-i", a.path,
                "-vf", "setpts=(PTS-STARTPTS)*48000/47976", "-af", "asetrate=47976,aresample=48000,asetpts=N/SR/TB",
                "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", b
            ])
        func run(_ gains: [Double]) throws -> URL {
            try compose(.mix, [a.path, b]) { o in
                o.clocks = [.identity, InputClock(offset: Rational(2, 1), driftPpm: 500.25)]
                o.gains = gains
            }.0
        }
        let first = try FlashBeep.beeps(try run([1, 0])), second = try FlashBeep.beeps(try run([0, 1]))
        XCTAssertEqual(first.count, 4)
        XCTAssertEqual(second.count, first.count)
        for (x, y) in zip(second, first) { XCTAssertEqual(x, y, accuracy: 0.001) }
        print(String(format: "cut and retimed clip against its source: beeps off by %@ ms", zip(second, first).map { String(format: "%+.3f", ($0 - $1) * 1000) }.joined(separator: ", ")))
        for (x, t) in zip(first, a.beeps.dropFirst()) { XCTAssertEqual(x, t - 2, accuracy: 0.001) }
    }
}

/// The long cases (run by `scripts/test --all`): drift over a minute, where it moves whole frames.
final class TimeSyncSlowTests: ScratchTestCase {
    func cell(_ i: Int) -> (x: Int, y: Int, w: Int, h: Int) { (i % 2 * 80, i / 2 * 60, 80, 60) }

    /// Two cameras over 60 s, the second 500 ppm fast and started 2.5 s late: with --drift its
    /// flashes stay on the first's frames to the end, its beeps within 1 ms; without it, they
    /// wander 30 ms (a frame) by the end.
    func testAMinuteOfDriftStaysOnTheFrame() throws {
        let scene = stride(from: 3.1, to: 60.0, by: 4.3).map { $0 }
        let a = try FlashBeep.make(scratch.appendingPathComponent("a.mp4").path, rate: "30", seconds: 61, at: scene, tone: 1000)
        let b = try FlashBeep.make(
            scratch.appendingPathComponent("b.mp4").path, rate: "30000/1001", seconds: 58, at: scene, tone: 1000,
            time: "2.5+t/1.0005")
        func run(_ gains: [Double], drift: Double) throws -> URL {
            try compose(.quad, [a.path, b.path]) { o in
                o.clocks = [.identity, InputClock(offset: Rational(5, 2), driftPpm: drift)]
                o.gains = gains
            }.0
        }
        let withDrift = try run([1, 0], drift: 500)
        let fa = try FlashBeep.flashes(withDrift, region: cell(0)), fb = try FlashBeep.flashes(withDrift, region: cell(1))
        XCTAssertEqual(fa.count, fb.count)
        XCTAssertGreaterThan(fa.count, 10)
        for (x, y) in zip(fa, fb) { XCTAssertEqual(x, y, accuracy: 1.0 / 30 + 0.001) }
        let ba = try FlashBeep.beeps(withDrift), bb = try FlashBeep.beeps(try run([0, 1], drift: 500))
        XCTAssertEqual(ba.count, bb.count)
        let worst = zip(ba, bb).map { abs($0 - $1) }.max() ?? 1
        print(String(format: "a minute at 500 ppm, corrected: worst beep %.3f ms over %d beeps", worst * 1000, ba.count))
        XCTAssertLessThan(worst, 0.001)
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: withDrift.path)).run().violations, [])
        let off = try FlashBeep.beeps(try run([0, 1], drift: 0))
        let wander = abs(off.last! - ba.last!)
        print(String(format: "a minute at 500 ppm, uncorrected: the last beep %.1f ms off", wander * 1000))
        XCTAssertGreaterThan(wander, 0.02)
    }
}
