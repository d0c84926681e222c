import Compositor
import Foundation
import Media
import TestSupport
import XCTest

@testable import Lockstep

/// `lockstep reverse` end to end on the barcoded clips of scripts/fixtures/make-reverse-fixtures, each
/// output decoded by the ffmpeg CLI (the outside checker) and read frame by frame.
final class ReverseJobTests: ScratchTestCase {
    func fixture(_ name: String) -> String { Fixtures.url("reverse/\(name)").path }

    func reverse(_ name: String, _ configure: (inout ReverseOptions) -> Void = { _ in }) throws -> (URL, ReverseResult) {
        let out = scratch.appendingPathComponent("rev-\(UUID().uuidString.prefix(6)).mp4")
        var options = ReverseOptions(input: fixture(name), output: out.path)
        configure(&options)
        return (out, try ReverseJob(options: options).run())
    }

    /// Source frame index of every frame of `url`, read from the strip of band `band`.
    func identities(_ url: URL, band: Int) throws -> [Int] { try identities(try LumaVideo.decode(url), of: url, band: band) }

    /// `identities` of pictures already decoded (with the sound: `LumaVideo.decodeWithSound`).
    func identities(_ video: LumaVideo, of url: URL, band: Int) throws -> [Int] {
        try video.frames.enumerated().map { k, f in
            guard let id = Barcode.read(f, width: video.width, region: .band(band)), id.source == band else {
                throw Shell.Failure(description: "\(url.lastPathComponent): frame \(k) has no readable strip of source \(band)")
            }
            return id.index
        }
    }

    /// longgop.mp4 reversed through a pool of 16 with its sound, the run two tests look at (the
    /// frames and the pool; the sound against its frames): made once for the class, with the
    /// pool's peak measured around it and the frames read once; removed in the class tearDown.
    static let pooled = ClassFixture<Pooled>("ReverseJobTests-pooled")
    struct Pooled {
        var out: URL, result: ReverseResult, peak: Int
        /// The output's frames (the source frame each shows) and sound, from one ffmpeg run; its
        /// streams and frame times, from one ffprobe run.
        var frames: [Int], sound: [Float], streams: [ProbeStream], pts: [Double]
    }
    override class func tearDown() {
        pooled.removeAll()
        super.tearDown()
    }

    func longGOPThroughAPoolOf16() throws -> Pooled {
        try Self.pooled.value { folder in try reverseLongGOP(in: folder) }
    }

    func reverseLongGOP(in folder: URL) throws -> Pooled {
        let out = folder.appendingPathComponent("rev-pool16.mp4")
        var options = ReverseOptions(input: fixture("longgop.mp4"), output: out.path)
        options.poolFrames = 16
        let before = Frame.live
        Frame.resetPeak()
        let result = try ReverseJob(options: options).run()
        let peak = Frame.peak - before
        let (video, sound) = try LumaVideo.decodeWithSound(out)
        let (streams, pts) = try Probe.streamsAndVideoPTS(out)
        let done = Pooled(out: out, result: result, peak: peak, frames: try identities(video, of: out, band: 2), sound: sound, streams: streams, pts: pts)
        try assertVerifyClean(out)
        return done
    }

    func assertVerifyClean(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let report = try VerifyJob(options: VerifyOptions(movie: url.path)).run()
        XCTAssertEqual(report.violations.map(\.message), [], file: file, line: line)
    }

    /// A GOP of 60 read through a pool of 16: four passes from its keyframe, sub-range by
    /// sub-range; every frame shown once, backwards; the pool is all the pictures held.
    func testLongGOPThroughASmallPoolShowsEveryFrameBackwards() throws {
        let run = try longGOPThroughAPoolOf16(), result = run.result
        XCTAssertEqual(run.frames, Array((0..<100).reversed()))
        XCTAssertEqual(result.frames, 100)
        XCTAssertEqual(result.longestGOP, 60)
        XCTAssertEqual(result.poolFrames, 16)
        // GOP 60: passes of 16, 16, 16, 12; GOP 40: 16, 16, 8. Each is one seek.
        XCTAssertEqual(result.seeks, 7)
        XCTAssertGreaterThan(result.picturesDecoded, 100, "the sub-ranges decode parts of the GOP again")
        // The pool, the four fitted frames the loop may hold, the writer's three, the reader's
        // scratch and the audio pass's: never more.
        XCTAssertLessThanOrEqual(run.peak, 16 + 4 + 3 + 2)
        // verify accepted it (`longGOPThroughAPoolOf16`).
        let streams = run.streams
        XCTAssertEqual(streams.first?.nbReadFrames, 100)
        XCTAssertEqual(streams.first?.duration ?? 0, 100.0 / 30, accuracy: 0.0001)
        XCTAssertEqual(streams.last?.duration ?? 0, 100.0 / 30, accuracy: 0.001)
    }

    /// A pool as long as the GOP: one seek per GOP, every picture decoded once at most.
    func testWholeGOPsWhenThePoolHoldsThem() throws {
        let (out, result) = try reverse("longgop.mp4") {
            $0.poolFrames = 60; $0.audio = .none
        }
        XCTAssertEqual(try identities(out, band: 2), Array((0..<100).reversed()))
        XCTAssertEqual(result.seeks, 2)
        XCTAssertLessThanOrEqual(result.picturesDecoded, 100)
        XCTAssertNil(result.audioSamples)
        XCTAssertEqual(try Probe.streams(out).map(\.codecType), ["video"])
    }

    func testBoomerangWithLoopsTurnsOnceAtEachEnd() throws {
        let (out, result) = try reverse("longgop.mp4") {
            $0.boomerang = true; $0.loops = 2; $0.poolFrames = 16
        }
        // Written out here, not from ReversePlan: 0...99, 98...0, 1...99, 98...0.
        let expected = Array(0...99) + Array((0...98).reversed()) + Array(1...99) + Array((0...98).reversed())
        XCTAssertEqual(expected.count, 397)
        XCTAssertEqual(try identities(out, band: 2), expected)
        XCTAssertEqual(result.frames, 397)
        try assertVerifyClean(out)
    }

    /// vfr.mp4's frames: 20 of 1/30 s, 20 of 1/15 s, 20 of 1/60 s (scripts/fixtures/make-reverse-fixtures).
    static let vfrStarts: [Double] = {
        var t = 0.0, starts: [Double] = []
        for d in Array(repeating: 1.0 / 30, count: 20) + Array(repeating: 1.0 / 15, count: 20) + Array(repeating: 1.0 / 60, count: 20) {
            starts.append(t); t += d
        }
        return starts
    }()
    static let vfrEnd = 7.0 / 3

    /// The source frame on screen at source time u going forward (the last starting at or
    /// before u), or going backward (the one whose span (start, end] holds u): written here from
    /// the clip's known frame times, not from the job's timeline.
    static func forward(_ u: Double, _ starts: [Double]) -> Int { starts.lastIndex { $0 <= u + 1e-9 } ?? 0 }
    static func backward(_ u: Double, _ starts: [Double]) -> Int { starts.lastIndex { $0 < u - 1e-9 } ?? 0 }

    func testLoopsRepeatTheReversedClip() throws {
        let (out, _) = try reverse("vfr.mp4") {
            $0.loops = 3; $0.poolFrames = 8
        }
        // 7/3 s at 30 fps: 70 frames a loop.
        let once = (0..<70).map { Self.backward(Self.vfrEnd - Double($0) / 30, Self.vfrStarts) }
        XCTAssertEqual(try identities(out, band: 1), once + once + once)
        try assertVerifyClean(out)
    }

    /// Variable frame rate, reversed at its nominal 30 fps: the timeline kept, so the 1/60 s
    /// frames that now come first show every other one, the 1/15 s ones twice each, the
    /// 1/30 s ones once; 7/3 s as the source lasts, and verify proves each frame by its time.
    func testVariableFrameRateKeepsTheReversedTimeline() throws {
        let (out, result) = try reverse("vfr.mp4") { $0.poolFrames = 8 }
        XCTAssertEqual(result.frameRate, Rational(30, 1))
        let expected = (0..<10).map { 59 - 2 * $0 } + (10..<50).map { 39 - ($0 - 10) / 2 } + (50..<70).map { 19 - ($0 - 50) }
        XCTAssertEqual(expected, (0..<70).map { Self.backward(Self.vfrEnd - Double($0) / 30, Self.vfrStarts) })
        XCTAssertEqual(try identities(out, band: 1), expected)
        let pts = try VideoTimestamps.pts(out)
        XCTAssertEqual(pts.count, 70)
        for (k, t) in pts.enumerated() { XCTAssertEqual(t, Double(k) / 30, accuracy: 0.0001) }
        try assertVerifyClean(out)
    }

    /// `--keep-frames`: every frame once at the output's rate, backwards (the old behaviour),
    /// with the notice every command gives.
    func testKeepFramesShowsEveryFrameOnce() throws {
        let (out, result) = try reverse("vfr.mp4") {
            $0.sync = .index; $0.poolFrames = 8
        }
        XCTAssertEqual(result.frames, 60)
        XCTAssertEqual(try identities(out, band: 1), Array((0..<60).reversed()))
        XCTAssertEqual(result.notices.count, 1)
        XCTAssertTrue(result.notices.first?.hasPrefix("--keep-frames shows every frame once at 30 fps: input 1 (") ?? false, "\(result.notices)")
        try assertVerifyClean(out)
    }

    /// A variable-rate boomerang: forward over the whole timeline, then back from where the
    /// last frame starts (it is not shown twice), each way keeping time; verify clean.
    func testVariableFrameRateBoomerangVerifiesClean() throws {
        let (out, result) = try reverse("vfr.mp4") {
            $0.boomerang = true; $0.poolFrames = 8
        }
        let top = Self.vfrStarts.last!
        // 7/3 s forward, then 139/60 s back: 279/60 s, 139.5 frames at 30 fps.
        let frames = Int((30 * (Self.vfrEnd + top)).rounded(.up))
        XCTAssertEqual(frames, 140)
        let expected = (0..<frames).map { k -> Int in
            let t = Double(k) / 30
            return t < Self.vfrEnd - 1e-9 ? Self.forward(t, Self.vfrStarts) : Self.backward(top - (t - Self.vfrEnd), Self.vfrStarts)
        }
        XCTAssertEqual(Int(result.frames), frames)
        XCTAssertEqual(try identities(out, band: 1), expected)
        try assertVerifyClean(out)
    }

    /// `--from 1 --to 2` on a 30 fps clip: source frames 30...59 cut first, then reversed; the
    /// sound is the cut's, reversed (one second of it); verify accepts the cut.
    func testACutOfTheSourceIsReversed() throws {
        let (out, result) = try reverse("longgop.mp4") {
            $0.cut = TimeCut(from: Rational(1, 1), to: Rational(2, 1)); $0.poolFrames = 16
        }
        XCTAssertEqual(result.frames, 30)
        XCTAssertEqual(result.audioSamples, 48000)
        XCTAssertEqual(try identities(out, band: 2), Array((30...59).reversed()))
        try assertVerifyClean(out)
        let boomerang = try reverse("longgop.mp4") {
            $0.cut = TimeCut(from: Rational(1, 1), to: Rational(2, 1)); $0.boomerang = true; $0.poolFrames = 16
        }
        XCTAssertEqual(try identities(boomerang.0, band: 2), Array(30...59) + Array((30...58).reversed()))
        try assertVerifyClean(boomerang.0)
        // A cut past the end: composite's sentence.
        XCTAssertThrowsError(try reverse("longgop.mp4") { $0.cut = TimeCut(from: Rational(5, 1), to: nil) }) { error in
            XCTAssertEqual("\(error)", "--from 5: input 1 (\(fixture("longgop.mp4"))) ends the output at 3.333 s (100 frames); the cut must lie within 0-3.333 s.")
        }
    }

    /// `--frames 30:60` is `--from 1 --to 2` in frames (source frames 30...59, reversed): the
    /// same pictures as that cut and as frames 40..<70 of the uncut reverse of the 100 frames,
    /// compared losslessly (x264 at crf 0; identical luma, not just the barcode). An end past
    /// the source's 100 frames is refused with every command's sentence.
    func testFramesAreTheCutByTimeAndASliceOfTheWholeReverse() throws {
        func lossless(_ o: inout ReverseOptions) { o.encode.crf = 0; o.poolFrames = 16; o.audio = .none }
        let (byFrames, result) = try reverse("longgop.mp4") {
            lossless(&$0); $0.frames = FrameRange(start: 30, end: 60)
        }
        let (byTime, _) = try reverse("longgop.mp4") {
            lossless(&$0); $0.cut = TimeCut(from: Rational(1, 1), to: Rational(2, 1))
        }
        let (whole, _) = try reverse("longgop.mp4") { lossless(&$0) }
        XCTAssertEqual(result.frames, 30)
        let a = try LumaVideo.decode(byFrames), b = try LumaVideo.decode(byTime), w = try LumaVideo.decode(whole)
        XCTAssertEqual(try identities(a, of: byFrames, band: 2), Array((30...59).reversed()))
        XCTAssertEqual(a.frames.count, 30)
        XCTAssertEqual(w.frames.count, 100)
        XCTAssertTrue(a.frames == b.frames, "--frames 30:60 and --from 1 --to 2 differ")
        guard w.frames.count == 100 else { return }
        XCTAssertTrue(a.frames == Array(w.frames[40..<70]), "--frames 30:60 differs from the whole reverse's frames 40..<70")
        try assertVerifyClean(byFrames)
        XCTAssertThrowsError(try reverse("longgop.mp4") { $0.frames = FrameRange(start: 90, end: 101) }) { error in
            XCTAssertEqual("\(error)", "--frames 90:101: input 1 (\(fixture("longgop.mp4"))) ends the output after 100 frames; the range must lie within 0:100.")
        }
        XCTAssertThrowsError(
            try reverse("longgop.mp4") {
                $0.frames = FrameRange(start: 0, end: 10); $0.cut = TimeCut(from: Rational(1, 1), to: nil)
            }
        ) { error in
            XCTAssertEqual("\(error)", "--frames and --from/--to both choose the output's frames; give one.")
        }
    }

    /// The second encoding path (MPEG-4 part 2 in MOV, no B-frames, 25 fps, PCM at 44.1 kHz),
    /// with the audio kept as it was.
    func testSecondEncodingPathWithAudioKept() throws {
        let (out, result) = try reverse("mpeg4.mov") {
            $0.audio = .keep; $0.poolFrames = 10
        }
        let (video, audio) = try LumaVideo.decodeWithSound(out)
        XCTAssertEqual(try identities(video, of: out, band: 3), Array((0..<70).reversed()))
        XCTAssertEqual(result.audioSamples, 2 * 48000 * 70 / 50)
        // Kept: the burst still sounds in source frame 21's place, [0.84, 0.88) s.
        let onset = try XCTUnwrap(burstOnset(audio, frequency: 1500))
        XCTAssertEqual(Double(onset) / 48000, 0.84, accuracy: 0.001)
        try assertVerifyClean(out)
    }

    /// The clip of scripts/fixtures/make-reverse-fixtures-2 (numpy's own pictures and noise, Matroska
    /// times rounded to 1 ms, PCM at 32 kHz): every frame backwards at exactly 24 fps, and the
    /// noise reversed sample for sample (the correlation peaks at lag 0).
    func testIndependentClipReversesFramesAndNoise() throws {
        let (out, result) = try reverse("numpy.mkv") { $0.poolFrames = 20 }
        let (video, sound) = try LumaVideo.decodeWithSound(out)
        XCTAssertEqual(try identities(video, of: out, band: 0), Array((0..<72).reversed()))
        XCTAssertEqual(result.frameRate, Rational(24, 1))
        XCTAssertEqual(result.audioSamples, 144_000)
        let source = try AudioAnalysis.decodeMono(URL(fileURLWithPath: fixture("numpy.mkv")))
        let output = Array(sound.prefix(144_000))
        XCTAssertEqual(source.count, 144_000)
        let reversed = Array(source.reversed())
        let c = (-2...2).map { lag in normalizedCorrelation(output, reversed, lag: lag, range: 2000..<142_000) }
        XCTAssertGreaterThan(c[2], 0.95)
        XCTAssertEqual(c.firstIndex(of: c.max()!), 2, "\(c)")
        try assertVerifyClean(out)
    }

    func normalizedCorrelation(_ a: [Float], _ b: [Float], lag: Int, range: Range<Int>) -> Double {
        var xy = 0.0, xx = 0.0, yy = 0.0
        for i in range {
            let x = Double(a[i]), y = Double(b[i + lag])
            xy += x * y; xx += x * x; yy += y * y
        }
        return xy / (xx * yy).squareRoot()
    }

    /// The reversed audio is the source's reversed, sample for sample (the correlation peaks at
    /// lag 0, not one sample either side), and the one-frame burst of source frame 37 sounds
    /// exactly while output frame 62 (which shows source frame 37) is on screen.
    func testReversedAudioIsTheSourceReversedAndStaysWithItsFrame() throws {
        // The first test's run (the same options; made once for the class).
        let run = try longGOPThroughAPoolOf16(), result = run.result, frames = run.frames
        XCTAssertEqual(result.audioSamples, 160_000)
        let source = try AudioAnalysis.decodeMono(URL(fileURLWithPath: fixture("longgop.mp4")))
        // The CLI decodes the last AAC frame whole (157 x 1024 = 160768 samples); the file's
        // length, which ffprobe reports, is 160000 (checked in the first test).
        let decoded = run.sound
        XCTAssertGreaterThanOrEqual(decoded.count, 160_000)
        let output = Array(decoded.prefix(160_000))
        let reversed = Array(source.prefix(160_000).reversed())
        func correlation(_ lag: Int) -> Double { normalizedCorrelation(output, reversed, lag: lag, range: 2000..<158_000) }
        let c0 = correlation(0)
        XCTAssertGreaterThan(c0, 0.99)
        for lag in [-3, -2, -1, 1, 2, 3] { XCTAssertLessThan(correlation(lag), c0, "lag \(lag)") }
        // Output frame 62 shows source frame 37 and is on screen over [62/30, 63/30).
        XCTAssertEqual(frames[62], 37)
        let pts = run.pts
        let onset = try XCTUnwrap(burstOnset(output, frequency: 2000))
        let end = try XCTUnwrap(burstOnset(Array(output.reversed()), frequency: 2000))
        XCTAssertEqual(Double(onset) / 48000, pts[62], accuracy: 0.001)
        XCTAssertEqual(Double(output.count - end) / 48000, pts[63], accuracy: 0.001)
    }

    /// First sample at which a tone of `frequency` is present: 1 ms windows slid by 0.25 ms,
    /// the middle of the first window over half the burst's power.
    func burstOnset(_ s: [Float], frequency: Double) -> Int? {
        let window = 48, step = 12
        var levels: [(Int, Double)] = []
        var i = 0
        while i + window <= s.count {
            levels.append((i, AudioAnalysis.goertzelPower(s[i..<(i + window)], frequency: frequency, rate: 48000)))
            i += step
        }
        guard let peak = levels.map(\.1).max(), peak > 0.01 else { return nil }
        guard let first = levels.first(where: { $0.1 > peak / 2 }) else { return nil }
        return first.0 + window / 2
    }
}
