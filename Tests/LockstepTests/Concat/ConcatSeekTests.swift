import Compositor
import Foundation
import TestSupport
import Verify
import XCTest

@testable import Lockstep

/// What the concat seek tests share: the numbered clip, the sound as ffmpeg decodes it, the
/// best-matching sample shift, and the phone clips' cuts against their uncut joins.
class ConcatSeekTestCase: ScratchTestCase {
    func numberedClip() throws -> String {
        let path = scratch.appendingPathComponent("numbered.mp4").path
        try NumberedClip.make(path, seconds: 10, size: "160x96", gop: 150, sound: "anoisesrc=sample_rate=48000:amplitude=0.3")
        return path
    }

    func means(_ path: String) throws -> [[Double]] { try NumberedClip.means(path) }

    /// The left channel as the ffmpeg CLI decodes it, 48 kHz float.
    func sound(_ path: String) throws -> [Float] {
        let data = try Processes.check("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-ac", "1", "-ar", "48000", "-f", "f32le", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    func concat(_ clip: String, _ name: String, cut: TimeCut?, copies: Int = 2) throws -> (String, ConcatResult) {
        let out = scratch.appendingPathComponent(name).path
        var options = ConcatOptions(clips: Array(repeating: clip, count: copies), output: out)
        options.cut = cut
        return (out, try ConcatJob(options: options).run())
    }

    /// Of the sample shifts -3...3 of `b` against `a` from `offset` on, the one that matches best,
    /// and the correlation at shift 0 (over `count` samples less 2048 at each end).
    func bestShift(_ a: [Float], _ b: [Float], offset: Int, count: Int) -> (shift: Int, atZero: Double, scores: [(Int, Double)]) {
        func correlation(_ lag: Int) -> Double {
            var ab = 0.0, aa = 0.0, bb = 0.0
            for i in 2048..<(count - 2048) {
                let x = Double(b[i]), y = Double(a[offset + i + lag])
                ab += x * y; aa += y * y; bb += x * x
            }
            return ab / (aa * bb).squareRoot()
        }
        let scores = (-3...3).map { ($0, correlation($0)) }
        return (scores.max { $0.1 < $1.1 }!.0, correlation(0), scores)
    }

    static let iphone = Repository.shared("phones/sample_edit_list.mp4")
    static let openGOP = Repository.shared("phones/iibbibb_editlist_videoonly.mp4")

    /// Each clip twice, whole and cut at each (from, to): the checks above.
    func phoneCuts(_ cases: [(clip: String, size: Size, keepFrames: Bool, cuts: [(Rational, Rational)])]) throws {
        for (n, c) in cases.enumerated() {
            func run(_ name: String, _ cut: TimeCut?) throws -> (String, ConcatResult) {
                let out = scratch.appendingPathComponent("\(n)-\(name).mp4").path
                var options = ConcatOptions(clips: [c.clip, c.clip], output: out)
                options.size = c.size
                options.keepFrames = c.keepFrames
                options.cut = cut
                return (out, try ConcatJob(options: options).run())
            }
            let (whole, all) = try run("whole", nil)
            let wholeRecords = Dictionary(try VerifyJob.scan(whole).frames.compactMap(\.provenance).map { ($0.k, $0) }) { a, _ in a }
            XCTAssertEqual(Int64(wholeRecords.count), all.frames)
            let wholeSound = all.audioSamples != nil ? try sound(whole) : []
            for (from, to) in c.cuts {
                let label = "\(c.clip) keep-frames \(c.keepFrames) from \(from.seconds)"
                let (part, cut) = try run("cut-\(from.num)", TimeCut(from: from, to: to))
                let first = FrameRange(TimeCut(from: from, to: to), frameRate: all.frameRate).start
                let records = try VerifyJob.scan(part).frames.compactMap(\.provenance)
                XCTAssertEqual(Int64(records.count), cut.frames, label)
                XCTAssertEqual(records.first?.k, first, label)
                for r in records {
                    let w = wholeRecords[r.k]
                    XCTAssertEqual(r.clip, w?.clip, "\(label): frame \(r.k)")
                    XCTAssertEqual(r.src, w?.src, "\(label): frame \(r.k)")
                }
                XCTAssertEqual(records.first?.clip, 1, label)
                XCTAssertLessThan(cut.picturesDecoded, all.picturesDecoded / 2 + 5, "\(label): the first copy was decoded")
                if let samples = cut.audioSamples {
                    let offset = Int(AudioTimeline.samples(coveringFrames: first, frameRate: all.frameRate, sampleRate: 48_000))
                    let match = bestShift(wholeSound, try sound(part), offset: offset, count: Int(samples))
                    XCTAssertEqual(match.shift, 0, "\(label): \(match.scores)")
                    XCTAssertGreaterThan(match.atZero, 0.9, "\(label): \(match.scores)")
                }
                let v = try Processes.lockstep(["verify", part], timeout: 300)
                XCTAssertEqual(v.status, 0, "\(label): \(v.stdout)")
            }
        }
    }
}

/// `concat --from` seeks in the clip holding the cut (the keyframe before the cut, then decoding
/// forward to the exact frame) instead of decoding every frame before the cut; the clips before
/// that one are not decoded at all (their places on the joined timeline come from their
/// frames' times, `ConcatStart`). The clip (made by the ffmpeg
/// CLI, B-frames on, a keyframe every 5 s) has flat frames that say their number in their luma
/// (16 + 2 (n mod 100)) and chroma (16 + 8 floor(n / 100)); the cut must show the very frames
/// the uncut join shows at its ticks, its sound must be the uncut join's samples, and far fewer
/// pictures are decoded than the frames before the cut. The sound is white noise: a shift of one
/// sample leaves nothing of its correlation with the uncut join's.
final class ConcatSeekTests: ConcatSeekTestCase {
    /// A cut that starts in the third of three copies: the first two are not decoded at all, the
    /// third from its keyframe at 5 s (its frame 150) to the cut's last frame, 279. The frames
    /// and the sound are the uncut join's.
    func testACutInALaterClipDecodesNoClipBeforeIt() throws {
        let clip = try numberedClip()
        let (whole, all) = try concat(clip, "whole3.mp4", cut: nil, copies: 3)
        // 26.3 s to 29.3 s: frames [789, 879), the third clip's 189-278.
        let (part, cut) = try concat(clip, "cut3.mp4", cut: TimeCut(from: Rational(263, 10), to: Rational(293, 10)), copies: 3)
        XCTAssertEqual(all.frames, 900)
        XCTAssertEqual(cut.frames, 90)
        XCTAssertEqual(cut.clipFrames, [90])
        // Decoded: the third clip's 150...278 and what its reader decoded ahead (a pool of 4),
        // against the 789 before the cut (and 300 in the first clip alone) of the old way.
        XCTAssertEqual(all.picturesDecoded, 900)
        XCTAssertGreaterThanOrEqual(cut.picturesDecoded, 129)
        XCTAssertLessThan(cut.picturesDecoded, 150, "a clip before the cut was decoded, or the third from its start")
        let wholeMeans = try means(whole), partMeans = try means(part)
        XCTAssertEqual(partMeans.count, 90)
        for (i, m) in partMeans.enumerated() {
            XCTAssertEqual(m[0], wholeMeans[789 + i][0], accuracy: 0.5, "frame \(i) of the cut: luma")
            XCTAssertEqual(m[1], wholeMeans[789 + i][1], accuracy: 0.5, "frame \(i) of the cut: chroma")
        }
        // The sound from 26.3 s (sample 1_262_400) on, to the sample.
        XCTAssertEqual(cut.audioSamples, 144_000)
        let a = try sound(whole), b = try sound(part)
        XCTAssertGreaterThanOrEqual(b.count, 144_000)
        let match = bestShift(a, b, offset: 1_262_400, count: 144_000)
        XCTAssertEqual(match.shift, 0, "\(match.scores)")
        XCTAssertGreaterThan(match.atZero, 0.9, "\(match.scores)")
        let v = try Processes.lockstep(["verify", part], timeout: 300)
        XCTAssertEqual(v.status, 0, v.stdout)
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

    /// The phone clips with edit lists (phones/README.md), twice each, cut in the second copy:
    /// every frame of the cut is the uncut join's at its tick (its provenance names the same
    /// clip, source frame and pts); the sound matches the uncut join's best at shift 0. The
    /// iPhone clip's cut starts after its last keyframe; the open-GOP clip's leading B-frames
    /// are hidden by its edit list (its seek lands past the keyframe unless checked).
    /// `ConcatSeekSlowTests` adds a cut before the iPhone clip's first shown keyframe and one
    /// with `--keep-frames` (each a 10-bit HEVC join decoded again).
    func testACutInALaterPhoneClipShowsTheUncutJoinsFrames() throws {
        try phoneCuts([
            (Self.iphone, Size(width: 180, height: 320), false, [(Rational(44, 10), Rational(5, 1))]),
            (Self.openGOP, Size(width: 176, height: 144), false, [(Rational(15, 1), Rational(20, 1))])
        ])
    }
}

/// The slower phone cuts (`*SlowTests`: left out of the default tier): the iPhone clip twice cut
/// in the second copy before its first shown keyframe (decoded from the copy's start, its hidden
/// pre-roll dropped), and after its last with `--keep-frames`.
final class ConcatSeekSlowTests: ConcatSeekTestCase {
    func testMorePhoneCuts() throws {
        try phoneCuts([
            (Self.iphone, Size(width: 180, height: 320), false, [(Rational(3, 1), Rational(45, 10))]),
            (Self.iphone, Size(width: 180, height: 320), true, [(Rational(44, 10), Rational(5, 1))])
        ])
    }
}
