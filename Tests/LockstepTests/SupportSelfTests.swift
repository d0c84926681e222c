import Foundation
import XCTest

/// The fixtures and the helpers that read them check each other: every fixture frame decodes
/// to its own identity, in order, and every fixture's tone is where it should be. If a
/// fixture or a helper were wrong, every end-to-end test would prove nothing.
final class SupportSelfTests: XCTestCase {
    let table: [(name: String, source: Int, frames: Int, tone: Double?)] = [
        ("bg.mp4", 0, 90, 440), ("fg.mp4", 1, 60, 660), ("q0.mp4", 0, 75, 440), ("q1.mp4", 1, 66, 660),
        ("q2.mp4", 2, 57, 880), ("q3.mp4", 3, 48, 1100), ("l1.mp4", 1, 60, nil), ("l2.mp4", 2, 54, nil),
        ("l3.mp4", 3, 45, nil), ("r25.mp4", 1, 50, 660), ("late.mkv", 1, 45, 660), ("noaudio.mp4", 2, 40, nil),
        ("odd.mkv", 3, 40, nil), ("short.mp4", 1, 12, 660),
    ]

    func testEveryFixtureFrameCarriesItsOwnIdentityInOrder() throws {
        for f in table {
            let video = try LumaVideo.decode(Fixtures.url(f.name))
            XCTAssertEqual(video.frames.count, f.frames, f.name)
            for (k, frame) in video.frames.enumerated() {
                let id = Barcode.read(frame, width: video.width, region: .band(f.source))
                if id?.source != f.source || id?.index != k {
                    XCTFail("\(f.name) frame \(k) reads \(String(describing: id))"); break
                }
            }
            // Another band holds no barcode (the reader does not see one everywhere).
            XCTAssertNil(Barcode.read(video.frames[0], width: video.width, region: .band((f.source + 1) % 4)), f.name)
        }
    }

    func testEachFixtureSoundsItsOwnToneOnly() throws {
        let tones = [440.0, 660, 880, 1100]
        for f in table {
            guard let tone = f.tone else {
                XCTAssertFalse(try Probe.streams(Fixtures.url(f.name)).contains { $0.codecType == "audio" }, "\(f.name) has no audio")
                continue
            }
            let levels = try AudioAnalysis.toneLevels(Fixtures.url(f.name), frequencies: tones)
            for other in tones where other != tone {
                XCTAssertGreaterThan(levels[tone]!, 100 * levels[other]!, "\(f.name): \(tone) Hz over \(other) Hz by more than 20 dB")
            }
            XCTAssertGreaterThan(levels[tone]!, 0.005, "\(f.name): ffmpeg's sine is 1/8 of full scale, power 0.0078")
        }
    }

    func testTheLateFixtureStartsAtHalfASecondAndTheOddOneIsOdd() throws {
        XCTAssertEqual(try VideoTimestamps.pts(Fixtures.url("late.mkv")).first ?? -1, 0.5, accuracy: 1e-6)
        let odd = try Probe.streams(Fixtures.url("odd.mkv")).first { $0.codecType == "video" }
        XCTAssertEqual(odd?.width, 321); XCTAssertEqual(odd?.height, 241)
        let r25 = try VideoTimestamps.pts(Fixtures.url("r25.mp4"))
        XCTAssertEqual(r25[1] - r25[0], 0.04, accuracy: 1e-6)
    }

    func testGoertzelIsNormalisedAndSelective() {
        let s = (0..<48000).map { Float(sin(2 * Double.pi * 440 * Double($0) / 48000)) }
        XCTAssertEqual(AudioAnalysis.goertzelPower(s[...], frequency: 440, rate: 48000), 0.5, accuracy: 0.01)
        XCTAssertLessThan(AudioAnalysis.goertzelPower(s[...], frequency: 660, rate: 48000), 0.001)
    }
}
