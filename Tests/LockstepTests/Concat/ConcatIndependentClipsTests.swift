import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// Clips made here, independently of scripts/fixtures/make-concat-fixtures and with other conventions:
/// one 24 fps 640x360 recording in a MOV with a 44.1 kHz stereo 700 Hz tone (aevalsrc, not
/// sine), cut by frame number (select, not trim) into pieces of 20, 30 and 18 frames with their
/// audio cut at the same instants (atrim by time, not by sample); the middle one in Matroska with
/// FLAC. (Not AAC in Matroska: FFmpeg 5.1 stores no codec delay there, so the AAC priming sits at
/// pts 0 and the video is moved to 23 ms, rounded to Matroska's 1 ms: the file itself puts the
/// audio 0.22 ms, 10.5 samples at 48 kHz, off its truth, which a fit of the tone sees as a
/// 55 degree jump at 700 Hz. Measured; a limit of that container, not of the join.) The truth: one unbroken picture sequence (ffmpeg's frame counter drawn in) and
/// one unbroken sine.
final class ConcatIndependentClipsTests: ScratchTestCase {
    // Even counts: 44100 / 24 = 1837.5 samples a frame, so every cut falls on a whole sample.
    static let frameCounts = [20, 30, 18]

    func makeClips() throws -> [String] {
        var clips: [String] = []
        var first = 0
        for (i, n) in Self.frameCounts.enumerated() {
            let t0 = Double(first) / 24, t1 = Double(first + n) / 24
            let name = scratch.appendingPathComponent("piece\(i).\(i == 1 ? "mkv" : "mov")").path
            try Shell.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-y",
                    "-f", "lavfi", "-i",
                    "testsrc=s=640x360:r=24:d=3,drawtext=text='%{frame_num}':fontsize=8:x=2:y=2,"
                        + "select='between(n,\(first),\(first + n - 1))',setpts=N/24/TB",
                    "-f", "lavfi", "-i",
                    "aevalsrc=0.3*sin(2*PI*700*t):s=44100:c=stereo:d=3,"
                        + String(format: "atrim=start=%.9f:end=%.9f,asetpts=N/SR/TB", t0, t1),
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"
                ] + (i == 1 ? ["-c:a", "flac"] : ["-c:a", "aac", "-b:a", "160k"]) + [name])
            clips.append(name)
            first += n
        }
        return clips
    }

    func testPiecesOfOneRecordingJoinBackIntoIt() throws {
        let clips = try makeClips()
        // What ffprobe says each piece is: its frames, and video and audio of the same length.
        for (clip, n) in zip(clips, Self.frameCounts) {
            let s = try Probe.streams(URL(fileURLWithPath: clip))
            XCTAssertEqual(s.first { $0.codecType == "video" }?.nbReadFrames, n, clip)
        }
        let out = scratch.appendingPathComponent("joined.mp4")
        let result = try ConcatJob(options: ConcatOptions(clips: clips, output: out.path)).run()
        XCTAssertEqual(result.clipFrames, [20, 30, 18])
        XCTAssertEqual(result.frameRate, Rational(24, 1))
        XCTAssertEqual(result.canvas, Size(width: 640, height: 360))
        let streams = try Probe.streams(out)
        let v = try XCTUnwrap(streams.first { $0.codecType == "video" }), a = try XCTUnwrap(streams.first { $0.codecType == "audio" })
        XCTAssertEqual(v.nbReadFrames, 68)
        XCTAssertEqual(try XCTUnwrap(v.duration), 68.0 / 24, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(a.duration), 68.0 / 24, accuracy: 1e-6)
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [])
        // The joined pictures equal the uncut recording's frames 0-67 (same source, re-encoded
        // twice: compared by mean luma difference, far below the next frame's). The pieces are
        // untagged 640x360, BT.601 by convention, and the output BT.709: the recording's luma
        // is taken the same way (FFmpeg's colorspace filter).
        let whole = scratch.appendingPathComponent("whole.mov")
        try Shell.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "testsrc=s=640x360:r=24:d=4,drawtext=text='%{frame_num}':fontsize=8:x=2:y=2",
                "-frames:v", "68", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", whole.path
            ])
        let truth = try LumaVideo.decode(whole, filter: "colorspace=all=bt709:iall=bt601-6-525:fast=1"), joined = try LumaVideo.decode(out)
        XCTAssertEqual(joined.frames.count, 68)
        // Every 5th pixel is plenty (and keeps a debug build quick).
        func difference(_ a: [UInt8], _ b: [UInt8]) -> Double {
            Double(PixelDifference.absoluteSum(a, b, stride: 5)) / Double((min(a.count, b.count) + 4) / 5)
        }
        for k in 0..<68 {
            let same = difference(joined.frames[k], truth.frames[k])
            let neighbour = difference(joined.frames[k], truth.frames[k == 67 ? 66 : k + 1])
            XCTAssertLessThan(same, neighbour / 2, "output frame \(k) is not frame \(k) of the recording (\(same) against \(neighbour))")
        }
        // The tone: no phase jump at either join (44.1 kHz pieces resampled to 48 kHz).
        let s = try AudioAnalysis.decodeMono(out)
        for joinFrame in [20, 50] {
            let j = joinFrame * 2000  // 48000 / 24
            let w = 2 * Double.pi * 700 / 48000
            func phase(_ r: Range<Int>) -> Double {
                var sx = 0.0, cx = 0.0
                for n in r { sx += Double(s[n]) * sin(w * Double(n)); cx += Double(s[n]) * cos(w * Double(n)) }
                return atan2(cx, sx)
            }
            var d = (phase((j - 960)..<j) - phase(j..<(j + 960))) * 180 / .pi
            while d > 180 { d -= 360 }
            while d < -180 { d += 360 }
            XCTAssertGreaterThan(AudioAnalysis.goertzelPower(s[(j - 960)..<(j + 960)], frequency: 700, rate: 48000), 0.01)
            print(String(format: "independent pieces, join at sample %d: phase jump %.3f degrees (one sample: 5.25)", j, abs(d)))
            XCTAssertLessThan(abs(d), 2, "phase jump at the join after frame \(joinFrame)")
        }
    }
}
