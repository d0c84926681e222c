import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// `concat --from` seeks in the first clip (the keyframe before the cut, then decoding forward to
/// the exact frame) instead of decoding every frame before the cut. The clip (made by the ffmpeg
/// CLI, B-frames on, a keyframe every 5 s) has flat frames that say their number in their luma
/// (16 + 2 (n mod 100)) and chroma (16 + 8 floor(n / 100)); the cut must show the very frames
/// the uncut join shows at its ticks, its sound must be the uncut join's samples, and far fewer
/// pictures are decoded than the frames before the cut. The sound is white noise: a shift of one
/// sample leaves nothing of its correlation with the uncut join's.
final class ConcatSeekTests: ScratchTestCase {
    func numberedClip() throws -> String {
        let path = scratch.appendingPathComponent("numbered.mp4").path
        _ = try Processes.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i",
                "color=c=gray:size=160x96:rate=30:duration=10,format=yuv420p,geq=lum='16+2*mod(N,100)':cb='16+8*floor(N/100)':cr=128",
                "-f", "lavfi", "-i", "anoisesrc=duration=10:sample_rate=48000:amplitude=0.3", "-c:v", "libx264", "-preset", "ultrafast", "-g", "150", "-bf", "2",
                "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", path
            ])
        return path
    }

    /// Each frame's mean luma and blue chroma, as the ffmpeg CLI decodes `path` (signalstats).
    func means(_ path: String) throws -> [[Double]] {
        let out = try Processes.check(
            "ffprobe", ["-v", "error", "-f", "lavfi", "-i", "movie=\(path),signalstats", "-show_entries", "frame_tags=lavfi.signalstats.YAVG,lavfi.signalstats.UAVG", "-of", "csv=p=0"])
        return String(decoding: out, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }
    }

    /// The left channel as the ffmpeg CLI decodes it, 48 kHz float.
    func sound(_ path: String) throws -> [Float] {
        let data = try Processes.check("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-ac", "1", "-ar", "48000", "-f", "f32le", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    func concat(_ clip: String, _ name: String, cut: TimeCut?) throws -> (String, ConcatResult) {
        let out = scratch.appendingPathComponent(name).path
        var options = ConcatOptions(clips: [clip, clip], output: out)
        options.cut = cut
        return (out, try ConcatJob(options: options).run())
    }

    func testACutInTheFirstClipSeeksAndShowsTheUncutFramesAtItsTicks() throws {
        let clip = try numberedClip()
        let keys = String(decoding: try Processes.check("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "csv=p=0", clip]), as: UTF8.self)
        XCTAssertEqual(keys.split(separator: "\n").filter { $0.contains("K") }.count, 2, "keyframes at 0 and 5 s")
        let (whole, all) = try concat(clip, "whole.mp4", cut: nil)
        // 8.3 s to 11.3 s: frames [249, 339), across the join at 10 s (frame 300).
        let (part, cut) = try concat(clip, "cut.mp4", cut: TimeCut(from: Rational(83, 10), to: Rational(113, 10)))
        XCTAssertEqual(all.frames, 600)
        XCTAssertEqual(cut.frames, 90)
        XCTAssertEqual(cut.clipFrames, [51, 39])
        // The uncut join decodes every picture; the cut, those from the keyframe at 5 s (frame
        // 150) on in the first clip and the second clip's first 39 and what its reader decoded
        // ahead: not the 249 before the cut.
        XCTAssertEqual(all.picturesDecoded, 600)
        XCTAssertLessThan(cut.picturesDecoded, 150 + 39 + 40, "the first clip was decoded from its start")
        XCTAssertGreaterThanOrEqual(cut.picturesDecoded, 150 + 39)
        let wholeMeans = try means(whole), partMeans = try means(part)
        XCTAssertEqual(wholeMeans.count, 600)
        XCTAssertEqual(partMeans.count, 90)
        for (i, m) in partMeans.enumerated() {
            XCTAssertEqual(m[0], wholeMeans[249 + i][0], accuracy: 0.5, "frame \(i) of the cut: luma")  // a frame off: 2
            XCTAssertEqual(m[1], wholeMeans[249 + i][1], accuracy: 0.5, "frame \(i) of the cut: chroma")
        }
        // The sound: the uncut join's samples from 8.3 s (sample 398400) on, 3 s of them, to the
        // sample: of the shifts -3...3 against the uncut join, 0 matches best, and closely.
        let a = try sound(whole), b = try sound(part)
        XCTAssertEqual(cut.audioSamples, 144_000)
        XCTAssertGreaterThanOrEqual(b.count, 144_000)
        func correlation(_ lag: Int) -> Double {
            var ab = 0.0, aa = 0.0, bb = 0.0
            for i in 2048..<(144_000 - 2048) {
                let x = Double(b[i]), y = Double(a[398_400 + i + lag])
                ab += x * y; aa += y * y; bb += x * x
            }
            return ab / (aa * bb).squareRoot()
        }
        let scores = (-3...3).map { ($0, correlation($0)) }
        XCTAssertEqual(scores.max { $0.1 < $1.1 }?.0, 0, "\(scores)")
        XCTAssertGreaterThan(correlation(0), 0.9, "\(scores)")
        let v = try Processes.lockstep(["verify", part], timeout: 300)
        XCTAssertEqual(v.status, 0, v.stdout)
    }
}
