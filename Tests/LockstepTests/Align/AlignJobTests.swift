import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// `align` end to end on short clips, the truth from how ffmpeg cut them (sample counts), never
/// from Lockstep: the real GoPro sound, and a generated event. The long sweep is in
/// `AlignAccuracySlowTests`.
final class AlignJobTests: ScratchTestCase {
    func ffmpeg(_ args: [String]) throws {
        try Processes.check("ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + args)
    }

    /// Real sound: hero7.mp4 as it is, and a second camera made from its sound from sample
    /// 120,000 (2.5 s), resampled to 44.1 kHz mono, a low-pass microphone with noise, as FLAC in
    /// Matroska beside a 25 fps HEVC picture.
    func testRealSoundOfTwoCameras() throws {
        let hero = Repository.shared("gopro-hero7/hero7.mp4")
        let second = scratch.appendingPathComponent("second.mkv").path
        try ffmpeg([
            "-i", hero, "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-filter_complex",
            "[0:a]atrim=start_sample=120000,asetpts=N/SR/TB,aresample=44100,highpass=f=120,lowpass=f=4000,volume=0.5[s];"
                + "anoisesrc=color=pink:amplitude=0.002:seed=5:sample_rate=44100[n];[s][n]amix=inputs=2:duration=first:normalize=0[a]",
            "-map", "1:v", "-map", "[a]", "-t", "8", "-ac", "1", "-c:v", "libx265", "-preset", "ultrafast",
            "-x265-params", "log-level=error", "-c:a", "flac", second
        ])
        let result = try AlignJob(options: AlignOptions(inputs: [hero, second])).run()
        XCTAssertEqual(result.inputs[0].offset, 0); XCTAssertEqual(result.inputs[0].scale, 1); XCTAssertNil(result.inputs[0].details)
        let b = result.inputs[1]
        XCTAssertEqual(b.offset, 2.5, accuracy: 0.001)
        XCTAssertEqual(b.driftPpm, 0, accuracy: 25)
        XCTAssertGreaterThan(b.confidence, 0.9)
        XCTAssertEqual(b.firstTime(ofInputTime: 1), 3.5, accuracy: 0.001)
        XCTAssertEqual(result.soundSeconds[1], 8, accuracy: 0.05)
    }

    /// Generated sound (not from any camera): brown noise gated on and off by ffmpeg's own
    /// generators; the second camera from sample 84,000 (1.75 s), its sound relabelled at 48015
    /// Hz (a clock 312 ppm slow: each of its seconds holds 48015 samples of the event), stereo,
    /// half as loud.
    func testGeneratedEvent() throws {
        let event = scratch.appendingPathComponent("event.wav").path
        try ffmpeg([
            "-f", "lavfi", "-i", "anoisesrc=color=brown:amplitude=0.5:seed=11:sample_rate=48000:duration=14",
            "-af", "volume='0.2+0.8*gt(sin(7*t)*sin(2.3*t+1)*sin(0.71*t),0.05)':eval=frame,highpass=f=200", "-c:a", "pcm_f32le", event
        ])
        let first = scratch.appendingPathComponent("first.mp4").path, second = scratch.appendingPathComponent("second.mp4").path
        try ffmpeg([
            "-i", event, "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-map", "1:v", "-map", "0:a", "-t", "12",
            "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", first
        ])
        // Its picture starts 0.5 s after its sound (ffprobe: video start_time 0.5).
        try ffmpeg([
            "-i", event, "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-filter_complex",
            "[0:a]atrim=start_sample=84000,asetpts=N/SR/TB,asetrate=48015,aresample=48000,volume=0.5,pan=stereo|c0=c0|c1=c0[a];"
                + "[1:v]setpts=PTS+0.5/TB[v]", "-fps_mode", "passthrough",
            "-map", "[v]", "-map", "[a]", "-t", "10", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", second
        ])
        let b = try AlignJob(options: AlignOptions(inputs: [first, second])).run().inputs[1]
        // One second of the second camera holds 48015 event samples: scale 48015/48000.
        XCTAssertEqual(b.offset, 1.75, accuracy: 0.001)
        XCTAssertEqual(b.scale, 48015.0 / 48000, accuracy: 25e-6)
        XCTAssertEqual(b.driftPpm, (48000.0 / 48015 - 1) * 1e6, accuracy: 25)
        // What time sync's per-input clock takes: the first frames' offset (its picture 0.5 s of
        // its own clock later).
        XCTAssertEqual(try XCTUnwrap(b.firstFrameOffset), 1.75 + 0.5 * 48015.0 / 48000, accuracy: 0.002)
    }

    /// Another event's sound, digital silence and music heard in no event are refused with a
    /// sentence naming the input; no offset is made up.
    func testRefusesWhatDoesNotMatch() throws {
        let hero = Repository.shared("gopro-hero7/hero7.mp4"), karma = Repository.shared("karma.mp4")
        let make = Repository.root.appendingPathComponent("scripts/fixtures/make-align-fixtures").path
        XCTAssertThrowsError(try AlignJob(options: AlignOptions(inputs: [hero, karma])).run()) { e in
            XCTAssertTrue("\(e)".hasPrefix("input 2 (\(karma)): its sound matches no part of input 1 (\(hero))"), "\(e)")
            XCTAssertTrue("\(e)".hasSuffix("another event, music or noise only, or no sound in common; no offset is given."), "\(e)")
        }
        for kind in ["silence", "music"] {
            let path = String(decoding: try Processes.check(make, ["other", scratch.appendingPathComponent(kind).path, "6", kind]), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertThrowsError(try AlignJob(options: AlignOptions(inputs: [hero, path])).run()) { e in
                let expected =
                    kind == "silence"
                    ? "input 2 (\(path)) is silent (no sound above -70 dBFS): there is nothing to align it by; no offset is given."
                    : "input 2 (\(path)): its sound matches no part of input 1 (\(hero))"
                XCTAssertTrue("\(e)".hasPrefix(expected), "\(e)")
            }
        }
    }

    func testJSONHasTheDocumentedKeysFirst() {
        let r = AlignResult(
            inputs: [.reference("a \"b\".mp4"), AlignedInput(path: "c.mov", offset: -1.25, scale: 1 / 1.0005, confidence: 0.75)],
            soundSeconds: [1, 1])
        XCTAssertEqual(
            r.json,
            #"{"inputs":[{"path":"a \"b\".mp4","offset":0.000000,"driftPpm":0.0,"confidence":1.000,"scale":1.000000000},"#
                + #"{"path":"c.mov","offset":-1.250000,"driftPpm":500.0,"confidence":0.750,"scale":0.999500250}]}"#)
    }
}

/// Three cameras in a row, the third starting after the first stopped: it is placed through the
/// second, which heard both.
final class AlignThroughAnotherInputTests: ScratchTestCase {
    func testPlacedThroughTheInputThatOverlapsBoth() throws {
        let event = scratch.appendingPathComponent("event.wav").path
        func ffmpeg(_ args: [String]) throws { try Processes.check("ffmpeg", ["-nostdin", "-loglevel", "error", "-y"] + args) }
        try ffmpeg([
            "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.5:seed=3:sample_rate=48000:duration=30",
            "-af", "volume='0.1+0.9*gt(sin(5*t)*sin(1.9*t+2)*sin(0.53*t),0.02)':eval=frame", "-c:a", "pcm_f32le", event
        ])
        // a: event 0-12 s; b: 9-21 s; c: 18-30 s, its clock 200 ppm fast (relabelled at 47990.4... 47990 Hz).
        let cuts: [(String, Int, String)] = [("a", 0, "48000"), ("b", 432_000, "48000"), ("c", 864_000, "47990")]
        var paths: [String] = []
        for (name, start, clock) in cuts {
            let path = scratch.appendingPathComponent("\(name).mp4").path
            try ffmpeg([
                "-i", event, "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-filter_complex",
                "[0:a]atrim=start_sample=\(start),asetpts=N/SR/TB,asetrate=\(clock),aresample=48000[a]",
                "-map", "1:v", "-map", "[a]", "-t", "12", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", path
            ])
            paths.append(path)
        }
        let r = try AlignJob(options: AlignOptions(inputs: paths)).run()
        XCTAssertNil(r.inputs[1].via)
        XCTAssertEqual(r.inputs[1].offset, 9, accuracy: 0.001)
        let c = r.inputs[2]
        XCTAssertEqual(c.via, 1)
        XCTAssertEqual(c.offset, 18, accuracy: 0.001)
        XCTAssertEqual(c.scale, 47990.0 / 48000, accuracy: 25e-6)
        XCTAssertTrue(r.json.contains(#""via":2"#))
    }
}
