import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Media

/// The rate a clip was recorded at: on the shared phone clips (what ffprobe states beside what
/// their frames show) and on clips the ffmpeg CLI makes at known rates.
final class NominalRateTests: MediaTestCase {
    func testThePhoneClipsNominalRatesNeverTheirAverage() throws {
        // ffprobe: avg 51600/1841 (28.03, the edit list's hidden frames counted), r 30000/1001.
        let iphone = try MovieReader(path: Repository.shared("phones/sample_edit_list.mp4"))
        XCTAssertEqual(iphone.video.frameRate, Rational(51600, 1841))
        XCTAssertEqual(iphone.video.nominalFrameRate, Rational(30000, 1001))
        // ffprobe: avg 810000/13487 (60.06), r 60; steps of 16.06-17.24 ms.
        let android = try MovieReader(path: Repository.shared("phones/portrait_4k60.mp4"))
        XCTAssertEqual(android.video.nominalFrameRate, Rational(60, 1))
        // 1 fps, a rate no camera standard has: the stream's own.
        let oneFps = try MovieReader(path: Repository.shared("phones/iibbibb_editlist_videoonly.mp4"))
        XCTAssertEqual(oneFps.video.nominalFrameRate, Rational(1, 1))
        XCTAssertFalse(iphone.video.isStill || android.video.isStill || oneFps.video.isStill)
    }

    func testClipsMadeAtKnownRates() throws {
        // Constant rates, an MKV (no sample table: the stream's average), a 240 fps clip (slow
        // motion stored at its capture rate) and a variable-rate clip whose every tenth frame was
        // dropped (average 27 fps, nominal 30).
        let cases: [(String, [String], Rational)] = [
            ("r2997.mp4", ["-f", "lavfi", "-i", "testsrc2=s=64x48:r=30000/1001:d=1"], Rational(30000, 1001)),
            ("r25.mkv", ["-f", "lavfi", "-i", "testsrc2=s=64x48:r=25:d=1"], Rational(25, 1)),
            ("r5994.mov", ["-f", "lavfi", "-i", "testsrc2=s=64x48:r=60000/1001:d=1"], Rational(60000, 1001)),
            ("r240.mp4", ["-f", "lavfi", "-i", "testsrc2=s=64x48:r=240:d=1"], Rational(240, 1)),
            ("drops.mp4", ["-f", "lavfi", "-i", "testsrc2=s=64x48:r=30:d=2", "-vf", "select='mod(n\\,10)'", "-fps_mode", "vfr"], Rational(30, 1))
        ]
        for (name, args, expected) in cases {
            try ffmpeg(args + ["-c:v", "libx264", "-preset", "ultrafast", path(name)])
            let r = try MovieReader(path: path(name), audio: false)
            XCTAssertEqual(r.video.nominalFrameRate, expected, name)
        }
    }

    func testAStillPictureIsAStill() throws {
        for name in ["p.jpg", "p.png", "p.webp"] {
            try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=64x48:d=1", "-frames:v", "1", path(name)])
            XCTAssertTrue(try MovieReader(path: path(name)).video.isStill, name)
        }
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=64x48:d=1", "-frames:v", "1", "-c:v", "libx264", path("one.mp4")])
        XCTAssertTrue(try MovieReader(path: path("one.mp4")).video.isStill, "a one-frame movie")
        XCTAssertFalse(try MovieReader(path: fixture("bg.mp4")).video.isStill)
    }

    func testTheRuleOnTables() {
        func r(_ fps: Double) -> Rational { Rational(Int64((fps * 1_000_000).rounded()), 1_000_000) }
        // The 1/600 mix of 20 and 21 averages 29.98: mean kept (agrees with the median 30 within 0.2%).
        let apple = Array(repeating: Rational(20, 600), count: 49) + [Rational(21, 600)]
        XCTAssertEqual(NominalRate.measured(steps: apple), Rational(600 * 50, 20 * 49 + 21))
        XCTAssertEqual(NominalRate.of(measured: NominalRate.measured(steps: apple), stated: nil), Rational(30000, 1001))
        // Every tenth frame dropped: the median (30) wins over the mean (27.3).
        let drops = (0..<100).map { $0 % 10 == 9 ? Rational(2, 30) : Rational(1, 30) }
        XCTAssertEqual(NominalRate.measured(steps: drops), Rational(30, 1))
        // The stream's standard rate tells 29.97 from 30 when the frames cannot.
        XCTAssertEqual(NominalRate.of(measured: r(30.0), stated: Rational(30000, 1001)), Rational(30000, 1001))
        XCTAssertEqual(NominalRate.of(measured: r(29.87), stated: Rational(90000, 1)), Rational(30000, 1001))
        XCTAssertEqual(NominalRate.of(measured: r(239.6), stated: Rational(240, 1)), Rational(240, 1))
        XCTAssertEqual(NominalRate.of(measured: r(12.34), stated: Rational(90000, 1)), Rational(12340, 1000))
        XCTAssertEqual(NominalRate.of(measured: nil, stated: Rational(25, 1)), Rational(25, 1))
        XCTAssertEqual(NominalRate.of(measured: r(24.5), stated: nil), Rational(49, 2), "between 24 and 25, within 1.5% of neither")
    }
}
