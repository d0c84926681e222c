import Compositor
import Foundation
import Media
import TestSupport
import Verify
import XCTest

@testable import Lockstep

/// Issue 21 on the shared phone clips (made by phones and other tools; what ffprobe shows of them
/// is in ../shared/media/phones/README.md): edit lists, a variable rate, jittery timestamps.
final class PhoneTimingTests: ScratchTestCase {
    var iphone: String { Repository.shared("phones/sample_edit_list.mp4") }
    var openGOP: String { Repository.shared("phones/iibbibb_editlist_videoonly.mp4") }
    var android: String { Repository.shared("phones/portrait_4k60.mp4") }

    /// ffprobe's frames of the first video stream: (pts in the stream's time base), decoded.
    func ffprobeFrames(_ path: String) throws -> [Int64] {
        let data = try Shell.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts", "-of", "csv=p=0", path])
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Int64($0.split(separator: ",").first ?? "") }
    }

    func provenance(_ url: URL) throws -> [Provenance] { try VerifyJob.scan(url.path).frames.compactMap(\.provenance) }

    /// The case: concat of the iPhone clip (an edit list, starting mid-GOP) twice wrote a
    /// file its own verify rejected ("ended after 77 of its 86 frames"). Now: the 77 frames ffprobe
    /// shows, counted so in the header; the nominal 29.97 fps, not the 28.03 average; verify ok.
    func testConcatOfTheIPhoneClipTwicePassesItsOwnVerify() throws {
        let out = scratch.appendingPathComponent("twice.mp4")
        var options = ConcatOptions(clips: [iphone, iphone], output: out.path)
        options.size = Size(width: 180, height: 320)
        let r = try ConcatJob(options: options).run()
        XCTAssertEqual(r.frameRate, Rational(30000, 1001))
        let report = try VerifyJob(options: VerifyOptions(movie: out.path)).run()
        XCTAssertEqual(report.violations, [])
        let records = try provenance(out)
        XCTAssertEqual(records.first?.inputs?.map(\.frames), [77, 77])
        // By time: each copy lasts its 2.548333 s (ffprobe's stream duration, the edit list's end).
        let d = try Self.videoDuration(iphone)
        XCTAssertEqual(d, 2.548333, accuracy: 1e-6)
        let v = try Self.videoDuration(out.path)
        XCTAssertGreaterThanOrEqual(v, 2 * d - 0.001); XCTAssertLessThan(v, 2 * d + 1001.0 / 30000)
        XCTAssertEqual(records.filter { $0.clipStart != nil }.map(\.clipStart), ["0/1", "1529/600"])
    }

    /// ffprobe's duration of the first video stream (no frame count: quick).
    static func videoDuration(_ path: String) throws -> Double {
        let data = try Shell.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration", "-of", "default=nw=1:nk=1", path])
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Double($0) }.first ?? -1
    }

    /// Open GOP: two B-frames shown before the first I (whose own packet the edit list hides):
    /// the 12 frames ffprobe shows, with its pts, in every command (keep-frames concat, a
    /// composite by time at its 1 fps, verify).
    func testTheOpenGOPClipShowsTheFramesFFprobeShows() throws {
        let shown = try ffprobeFrames(openGOP)
        XCTAssertEqual(shown, (0..<12).map { Int64($0) * 16384 })
        let out = scratch.appendingPathComponent("gop.mp4")
        var options = ConcatOptions(clips: [openGOP], output: out.path)
        options.keepFrames = true
        _ = try ConcatJob(options: options).run()
        XCTAssertEqual(try provenance(out).map { $0.src[0][1] }, shown)
        let (mixed, r) = try compose(.mix, [openGOP, openGOP])
        XCTAssertEqual(r.frameRate, Rational(1, 1))
        XCTAssertEqual(r.frames, 12)
        XCTAssertEqual(try provenance(mixed).map { $0.src[0][0] }, Array(0..<12))
        XCTAssertEqual(try provenance(mixed).map { $0.src[0][1] }, shown)
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: mixed.path)).run().violations, [])
        XCTAssertEqual(try VerifyJob.scan(openGOP).frames.count, 12, "verify counts what the edit list shows")
    }

    /// A thumbnail from inside the open-GOP clip is the frame asked for, not one from before it
    /// (a seek there decodes nothing: FFmpeg will not start from its I-frames).
    func testAThumbnailInsideTheOpenGOPClipIsTheFrameAskedFor() throws {
        for at in [10.0] {
            let png = scratch.appendingPathComponent("t\(Int(at)).png").path
            let r = try ThumbnailJob(options: ThumbnailOptions(inputs: [openGOP], output: png, at: at)).run()
            XCTAssertEqual(r.picks.first?.time ?? -1, at, accuracy: 1e-6)
        }
    }

    /// The Android clip's pts jitter (16.06-17.24 ms a frame): the default rate is its nominal
    /// 60, not 810000/13487; time sync repeats or skips where the jitter crosses a tick, each
    /// declared and checked by verify.
    func testTheJitteryAndroidClipIsWrittenAtItsNominalRate() throws {
        let (out, r) = try compose(.mix, [android, android]) { $0.size = Size(width: 270, height: 480) }
        XCTAssertEqual(r.frameRate, Rational(60, 1))
        XCTAssertEqual(r.frames, 18, "its 0.2997 s at 60 fps")
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [])
    }
}

/// The longer phone cases (a few decodes of the 10-bit HEVC iPhone clip each).
final class PhoneTimingSlowTests: ScratchTestCase {
    var iphone: String { Repository.shared("phones/sample_edit_list.mp4") }
    var android: String { Repository.shared("phones/portrait_4k60.mp4") }

    /// --keep-frames: every frame ffprobe shows, once, with ffprobe's pts, both times.
    func testKeepFramesJoinsEveryFrameFFprobeShows() throws {
        let data = try Shell.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts", "-of", "csv=p=0", iphone])
        let shown = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Int64($0.split(separator: ",").first ?? "") }
        XCTAssertEqual(shown.count, 77)
        let kept = scratch.appendingPathComponent("kept.mp4")
        var options = ConcatOptions(clips: [iphone, iphone], output: kept.path)
        options.size = Size(width: 180, height: 320)
        options.keepFrames = true
        let k = try ConcatJob(options: options).run()
        XCTAssertEqual(k.clipFrames, [77, 77])
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: kept.path)).run().violations, [])
        XCTAssertEqual(try VerifyJob.scan(kept.path).frames.compactMap(\.provenance).map { $0.src[0][1] }, shown + shown)
    }

    /// Two phones in one composite: the first's nominal rate, both placed by time, verify ok.
    func testAnIPhoneAndAnAndroidClipTogether() throws {
        let (out, r) = try compose(.mix, [iphone, android]) { $0.size = Size(width: 180, height: 320) }
        XCTAssertEqual(r.frameRate, Rational(30000, 1001), "the first input's nominal rate")
        XCTAssertEqual(r.frames, 9, "the Android clip's 0.2997 s at 29.97 fps")
        XCTAssertEqual(try VerifyJob(options: VerifyOptions(movie: out.path)).run().violations, [])
    }
}
