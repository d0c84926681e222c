import Compositor
import Verify
import XCTest

/// Each check on hand-made scans: it fires where it should, with the frame number, and not elsewhere.
final class ChecksTests: XCTestCase {
    let tb = Rational(1, 15360)  // 30 fps = 512 ticks

    func frames(
        _ n: Int, pts: ((Int) -> Int64)? = nil, luma: (Int) -> Double = { 100 + Double($0 % 7) },
        provenance: ((Int) -> Provenance?)? = nil
    ) -> [ScannedFrame] {
        (0..<n).map { k in
            ScannedFrame(
                pts: Timestamp(pts?(k) ?? Int64(k) * 512, tb), meanLuma: luma(k), lumaDeviation: 30,
                difference: k == 0 ? nil : abs(luma(k) - luma(k - 1)), provenance: provenance?(k))
        }
    }
    func scan(_ f: [ScannedFrame], audio: ScannedAudio? = nil) -> Scan {
        Scan(path: "x.mp4", frames: f, videoDuration: Double(f.count) / 30, audio: audio)
    }
    func kinds(_ r: VerifyReport) -> [Violation.Kind] { r.violations.map(\.kind) }

    func testACleanScanHasNoViolations() {
        let r = Checks.run(scan(frames(60), audio: ScannedAudio(start: 0, end: 2, tailLevel: -20, overallLevel: -20)))
        XCTAssertEqual(r.violations, [])
        XCTAssertEqual(r.frameStep!, 1.0 / 30, accuracy: 1e-12)
    }

    func testTimingViolationsNameTheFrame() {
        // Frame 30 missing (a gap of two steps), frame 40 repeats 39's timestamp, first at 512.
        let pts: (Int) -> Int64 = { k in k < 30 ? Int64(k + 1) * 512 : k == 40 ? Int64(40) * 512 : Int64(k + 1) * 512 + 512 }
        let r = Checks.run(Scan(path: "x", frames: frames(60, pts: pts), videoDuration: nil, audio: nil))
        XCTAssertEqual(r.violations[0], Violation(.firstTimestamp, frame: 0, time: 512.0 / 15360, "the first frame is at 0.033 s, not 0"))
        let missing = r.violations.first { $0.kind == .missingFrames }
        XCTAssertEqual(missing?.frame, 30)
        XCTAssertEqual(missing?.message, "1 frame missing before frame 30: it comes 66.7 ms after frame 29, the step is 33.3 ms")
        XCTAssertTrue(r.violations.contains { $0.kind == .repeatedTimestamp && $0.frame == 40 } || r.violations.contains { $0.kind == .reorderedTimestamp && $0.frame == 40 })
    }

    func testIndexSyncProvenanceNamesDroppedAndDuplicatedSourceFrames() {
        let header = Provenance(
            k: 0, src: [[0, 0], [0, 0]], sync: "index", blend: "chromakey", fps: "30/1",
            inputs: [.init(name: "fg.mp4", timeBase: "1/15360", audio: true), .init(name: "bg.mp4", timeBase: "1/15360", audio: true)])
        // Input 2 skips source frame 3 and shows frame 7 twice.
        let second: [Int64] = [0, 1, 2, 4, 5, 6, 7, 7, 8, 9]
        let f = frames(
            10,
            provenance: { k in
                var p = k == 0 ? header : Provenance(k: Int64(k), src: [])
                p.k = Int64(k); p.src = [[Int64(k), Int64(k) * 512], [second[k], second[k] * 512]]
                return p
            })
        let r = Checks.run(scan(f))
        XCTAssertEqual(
            r.violations.filter { $0.kind != .audioMissing }.map(\.message),
            [
                "output frame 3: input 2 (bg.mp4) jumps from source frame 2 to 4: source frame 3 was dropped",
                "output frame 7: input 2 (bg.mp4) shows source frame 7 again"
            ])
        XCTAssertEqual(r.violations.first?.frame, 3)
        XCTAssertTrue(kinds(r).contains(.audioMissing), "inputs had audio, the scan has none")
    }

    func testTimeSyncProvenanceChecksTheFrameOnScreen() {
        // A 25 fps input (1/12800, 512 per frame) under 30 fps: tick k shows floor(k * 25 / 30).
        let header = Provenance(
            k: 0, src: [[0, 0]], sync: "time", blend: "mix", fps: "30/1",
            inputs: [.init(name: "r25.mp4", timeBase: "1/12800", audio: false)])
        func make(_ chosen: @escaping (Int) -> Int64) -> [ScannedFrame] {
            frames(
                30,
                provenance: { k in
                    var p = k == 0 ? header : Provenance(k: 0, src: [])
                    p.k = Int64(k); p.src = [[chosen(k), chosen(k) * 512]]
                    return p
                })
        }
        XCTAssertEqual(Checks.run(scan(make { Int64($0 * 25 / 30) })).violations, [])
        // Showing the frame one ahead: from the future. One behind: stale.
        let ahead = Checks.run(scan(make { $0 == 10 ? 9 : Int64($0 * 25 / 30) }))  // tick 10 (0.333 s): frame 8 is due; 9 is at 0.36 s
        XCTAssertEqual(ahead.violations.first { $0.kind == .sourceFromTheFuture }?.frame, 10)
        let stale = Checks.run(scan(make { $0 == 20 ? 15 : Int64($0 * 25 / 30) }))  // tick 20 wants frame 16
        XCTAssertEqual(stale.violations.first { $0.kind == .staleSource }?.frame, 20)
    }

    func testFrozenBlackAndRepeatedPictures() {
        // Frames 0-2 black, frame 20 the same picture as 19, frames 57-59 black.
        let luma: (Int) -> Double = { k in k < 3 || k >= 57 ? 16 : k == 20 ? 100 + Double(19 % 7) : 100 + Double(k % 7) }
        var f = frames(60, luma: luma)
        for k in [0, 1, 2, 57, 58, 59] { f[k].lumaDeviation = 1 }
        let r = Checks.run(scan(f))
        XCTAssertEqual(r.violations.first { $0.kind == .blackStart }?.message, "frames 0-2 are black")
        XCTAssertEqual(r.violations.first { $0.kind == .blackEnd }?.message, "frames 57-59 at the end are black")
        XCTAssertEqual(r.violations.filter { $0.kind == .repeatedPicture }.map(\.frame), [20])
    }

    func testARunOfRepeatedPicturesIsOneViolationNamedByItsFirstFrame() {
        // Without provenance: frames 10-12 repeat frame 9, frame 30 repeats 29, 50-59 frozen to the end.
        let luma: (Int) -> Double = { k in
            let shown = (10...12).contains(k) ? 9 : k == 30 ? 29 : k >= 50 ? 49 : k
            return 100 + Double(shown % 7)
        }
        let r = Checks.run(scan(frames(60, luma: luma)))
        XCTAssertEqual(
            r.violations,
            [
                Violation(.repeatedPicture, frame: 10, time: 10.0 / 30, "frames 10-12 repeat the picture of frame 9"),
                Violation(.repeatedPicture, frame: 30, time: 30.0 / 30, "frame 30 repeats the picture of frame 29"),
                Violation(.repeatedPicture, frame: 50, time: 50.0 / 30, "frames 50-59 repeat the picture of frame 49 (to the end)")
            ])
    }

    func testFrozenFramesAreThoseWhoseSourceAdvancedUnderProvenance() {
        // The picture stops changing at frame 6. Input 2 is a still (its source frame stays 0):
        // only input 1 advancing makes frames 6-9 frozen.
        let header = Provenance(
            k: 0, src: [], sync: "index", blend: "mix", fps: "30/1",
            inputs: [.init(name: "a.mp4", timeBase: "1/15360", audio: false), .init(name: "b.mp4", timeBase: "1/15360", audio: false)])
        func make(advancing: Bool) -> [ScannedFrame] {
            frames(
                10, luma: { 100 + Double(min($0, 5)) },
                provenance: { k in
                    var p = k == 0 ? header : Provenance(k: 0, src: [])
                    let i = advancing || k < 6 ? Int64(k) : 5
                    p.k = Int64(k); p.src = [[i, i * 512], [Int64(k), Int64(k) * 512]]
                    return p
                })
        }
        XCTAssertEqual(
            Checks.run(scan(make(advancing: true))).violations,
            [
                Violation(
                    .frozenFrame, frame: 6, time: 6.0 / 30,
                    "output frames 6-9 are the same picture as frame 5 (to the end) although input 1 advanced from source frame 5 to 9")
            ])
        // The same pictures with input 1 showing source frame 5 again (a duplicate, named as such)
        // and input 2 advancing: frozen names input 2.
        let kinds = Checks.run(scan(make(advancing: false))).violations.map(\.kind)
        XCTAssertEqual(kinds, [.duplicatedSource, .duplicatedSource, .duplicatedSource, .duplicatedSource, .frozenFrame])
    }

    func testAudioAgainstVideoToTheMillisecond() {
        let f = frames(60)
        XCTAssertEqual(Checks.run(scan(f, audio: ScannedAudio(start: 0, end: 2.0009, tailLevel: -20, overallLevel: -20))).violations, [])
        let long = Checks.run(scan(f, audio: ScannedAudio(start: 0, end: 2.3, tailLevel: -20, overallLevel: -20)))
        XCTAssertEqual(long.violations.map(\.message), ["audio ends 300 ms after the video (2.300 s against 2.000 s)"])
        // A quiet end is no fault (nothing in a file tells padding from a quiet room).
        let short = Checks.run(scan(f, audio: ScannedAudio(start: 0.021, end: 1.0, tailLevel: -90, overallLevel: -20)))
        XCTAssertEqual(kinds(short), [.audioStart, .audioEnd])
    }

    /// Where the container cannot trim the last codec frame (a camera's AAC: whole frames of
    /// 21.3 ms), the end is judged to a frame; where it can (Lockstep's MP4s), to the millisecond.
    func testTheAudioEndIsJudgedToWhatTheContainerCanExpress() {
        let f = frames(60)  // 2.000 s of video
        let frame = 1024.0 / 48_000
        for end in [2.0 - 0.004, 2.0 + 0.007, 2.0 - 0.012, 2.0 + 0.021] {
            XCTAssertEqual(Checks.run(scan(f, audio: ScannedAudio(start: 0, end: end, tailLevel: -20, overallLevel: -20, endResolution: frame))).violations, [], "\(end)")
        }
        let late = Checks.run(scan(f, audio: ScannedAudio(start: 0, end: 2.03, tailLevel: -20, overallLevel: -20, endResolution: frame)))
        XCTAssertEqual(late.violations.map(\.message), ["audio ends 30 ms after the video (2.030 s against 2.000 s); its codec ends on a frame of 21.3 ms"])
        let trimmed = Checks.run(scan(f, audio: ScannedAudio(start: 0, end: 2.0 - 0.004, tailLevel: -20, overallLevel: -20)))
        XCTAssertEqual(trimmed.violations.map(\.message), ["audio ends 4 ms before the video (1.996 s against 2.000 s)"])
    }

    /// AAC in Matroska: the muxer moves every stream later by the priming it cannot mark, so the
    /// first frame is at 0.021 s and the audio's first (discarded) samples at 0: in sync.
    func testPrimingTheContainerCannotMarkIsNoFault() {
        let priming = 1024.0 / 48_000
        let tb = Rational(1, 1000)
        let f = (0..<60).map { k in
            ScannedFrame(
                pts: Timestamp(21 + Int64((Double(k) * 1000 / 30).rounded()), tb), meanLuma: 100,
                lumaDeviation: 30, difference: k == 0 ? nil : 5, provenance: nil)
        }
        let audio = ScannedAudio(start: 0, end: 2.021 + 0.017, tailLevel: -20, overallLevel: -20, endResolution: priming, priming: priming)
        XCTAssertEqual(Checks.run(Scan(path: "x.mkv", frames: f, videoDuration: 2.0, audio: audio)).violations, [])
        // Without the priming it is what it looks like: the first frame late, the audio early.
        let plain = ScannedAudio(start: 0, end: 2.021, tailLevel: -20, overallLevel: -20)
        XCTAssertEqual(
            Checks.run(Scan(path: "x.mkv", frames: f, videoDuration: 2.0, audio: plain)).violations.map(\.kind),
            [.firstTimestamp, .audioStart])
    }
}
