import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// `align`'s accuracy on cameras simulated from REAL recorded sound by scripts/fixtures/make-align-fixtures
/// (the shared GoPro clips' audio, cut, given their own clocks, rates, channels, gains,
/// microphones, noise and codecs by the ffmpeg CLI). The truth is the script's arguments: the cut
/// points (samples of the 48 kHz event) and the clock rates. Each line it prints is one row of
/// the README's accuracy table. Must hold: offsets within 1 ms, drifts within 25 ppm.
final class AlignAccuracySlowTests: ScratchTestCase {
    struct Camera {
        var start: Int, seconds: Int, clock: Int, audioRate: Int, channels: Int, gain: Double
        var lowpass: Int, noise: Double, fps: String, video: String, audio: String
        var k: Double { Double(clock) / 48_000 }
        var summary: String {
            "\(fps) fps \(video)/\(audio), \(audioRate / 1000).\(audioRate % 1000 / 100) kHz \(channels == 1 ? "mono" : "stereo"), gain \(gain), low-pass \(lowpass) Hz, noise \(noise), clock \(String(format: "%+.0f", (1 / k - 1) * 1e6)) ppm"
        }
    }

    static let script = Repository.root.appendingPathComponent("scripts/fixtures/make-align-fixtures").path

    func make(_ args: [String]) throws -> String {
        String(decoding: try Processes.check(Self.script, args), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func check(event: String, _ cameras: [Camera], label: String) throws {
        var paths: [String] = []
        for (i, c) in cameras.enumerated() {
            paths.append(
                try make([
                    "camera", event, scratch.appendingPathComponent("\(label)-\(i)").path, "\(c.start)", "\(c.seconds)", "\(c.clock)",
                    "\(c.audioRate)", "\(c.channels)", "\(c.gain)", "\(c.lowpass)", "\(c.noise)", "\(i + 1)", c.fps, c.video, c.audio
                ]))
        }
        let t0 = Date()
        let result = try AlignJob(options: AlignOptions(inputs: paths)).run()
        let elapsed = Date().timeIntervalSince(t0)
        let ref = cameras[0]
        print("| \(label) reference | \(ref.summary) | | | |")
        for i in 1..<cameras.count {
            let c = cameras[i], found = result.inputs[i]
            let offset = Double(c.start - ref.start) / 48_000 / ref.k, drift = (ref.k / c.k - 1) * 1e6
            let offsetError = (found.offset - offset) * 1000, driftError = found.driftPpm - drift
            print(
                String(
                    format: "| %@ camera %d | %@ | %+.6f s (%+.3f ms) | %+.1f ppm (%+.1f) | %.2f |",
                    label, i + 1, c.summary, found.offset, offsetError, found.driftPpm, driftError, found.confidence))
            XCTAssertEqual(offsetError, 0, accuracy: 1, "\(label) camera \(i + 1): offset \(found.offset) s, truth \(offset) s")
            XCTAssertEqual(driftError, 0, accuracy: 25, "\(label) camera \(i + 1): drift \(found.driftPpm) ppm, truth \(drift) ppm")
        }
        print("(\(label): \(cameras.count) cameras aligned in \(String(format: "%.1f", elapsed)) s)")
    }

    /// Three groups of four cameras over a 110 s event: every frame rate, both audio rates,
    /// mono and stereo, gains from 0.25 to 2.5, low-pass microphones with noise, clocks up to
    /// 500 ppm off either way, H.264, HEVC and ProRes pictures, AAC, PCM, FLAC and Opus sound.
    func testSweepOverCamerasOfOneEvent() throws {
        let event = scratch.appendingPathComponent("event.wav").path
        _ = try make(["event", event, "110"])
        try check(
            event: event,
            [
                Camera(start: 96_000, seconds: 90, clock: 48_000, audioRate: 48_000, channels: 2, gain: 1, lowpass: 0, noise: 0, fps: "30000/1001", video: "h264", audio: "aac"),
                Camera(start: 552_123, seconds: 80, clock: 47_976, audioRate: 44_100, channels: 1, gain: 0.3, lowpass: 3500, noise: 0.01, fps: "25", video: "hevc", audio: "aac"),
                Camera(start: 0, seconds: 70, clock: 48_024, audioRate: 48_000, channels: 2, gain: 2.5, lowpass: 5000, noise: 0.005, fps: "60000/1001", video: "prores", audio: "pcm"),
                Camera(start: 1_440_017, seconds: 60, clock: 48_012, audioRate: 48_000, channels: 1, gain: 1, lowpass: 4000, noise: 0.003, fps: "30", video: "h264", audio: "opus")
            ], label: "A")
        try check(
            event: event,
            [
                Camera(start: 240_000, seconds: 80, clock: 47_988, audioRate: 44_100, channels: 1, gain: 0.5, lowpass: 6000, noise: 0.004, fps: "25", video: "prores", audio: "pcm"),
                Camera(start: 48_000, seconds: 100, clock: 48_000, audioRate: 48_000, channels: 2, gain: 1, lowpass: 3000, noise: 0.02, fps: "60000/1001", video: "h264", audio: "flac"),
                Camera(start: 700_001, seconds: 75, clock: 48_005, audioRate: 44_100, channels: 2, gain: 0.25, lowpass: 4500, noise: 0.002, fps: "30", video: "hevc", audio: "flac"),
                Camera(start: 1_000_000, seconds: 85, clock: 47_990, audioRate: 48_000, channels: 1, gain: 2, lowpass: 0, noise: 0.01, fps: "30000/1001", video: "h264", audio: "aac")
            ], label: "B")
        try check(
            event: event,
            [
                Camera(start: 500_000, seconds: 60, clock: 48_024, audioRate: 48_000, channels: 1, gain: 1, lowpass: 3500, noise: 0.005, fps: "30", video: "hevc", audio: "opus"),
                Camera(start: 0, seconds: 100, clock: 47_976, audioRate: 44_100, channels: 2, gain: 1.5, lowpass: 5000, noise: 0.008, fps: "25", video: "h264", audio: "aac"),
                Camera(start: 1_700_000, seconds: 45, clock: 48_000, audioRate: 48_000, channels: 2, gain: 0.7, lowpass: 0, noise: 0.001, fps: "60000/1001", video: "prores", audio: "pcm"),
                Camera(start: 900_000, seconds: 90, clock: 48_017, audioRate: 44_100, channels: 1, gain: 1, lowpass: 4000, noise: 0.015, fps: "30000/1001", video: "hevc", audio: "aac")
            ], label: "C")
    }

    /// A clip of 10-12 s is all a shared file has: two cameras cut from karma.mp4's own sound,
    /// one 500 ppm fast, overlapping 8 s. The offset holds to 1 ms; the drift is reported with
    /// its standard error, and over 8 s it is within 25 ppm here too.
    func testShortRealClip() throws {
        let karma = Repository.shared("karma.mp4")
        let event = scratch.appendingPathComponent("karma.wav").path
        try Processes.check("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", karma, "-vn", "-ac", "1", "-ar", "48000", "-c:a", "pcm_f32le", event])
        try check(
            event: event,
            [
                Camera(start: 24_000, seconds: 10, clock: 48_000, audioRate: 48_000, channels: 2, gain: 1, lowpass: 0, noise: 0, fps: "30000/1001", video: "h264", audio: "aac"),
                Camera(start: 120_000, seconds: 7, clock: 47_976, audioRate: 44_100, channels: 1, gain: 0.5, lowpass: 4000, noise: 0.01, fps: "25", video: "h264", audio: "aac")
            ], label: "karma")
    }
}
