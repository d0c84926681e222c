import SyncCode
import XCTest

@testable import Verify

/// The coded analysis on hand-made scans: no movie, no decoding.
final class CodedAnalysisTests: XCTestCase {
    /// Frames at 30 fps showing `codes` (nil: unreadable); audio blocks every 15 frames at
    /// `offset` ms (plus `drift` ms per second of video time).
    func scan(_ codes: [Int?], offset: Double = 0, drift: Double = 0, audio: Bool = true, blocks: [Int]? = nil) -> CodedScan {
        let frames = codes.enumerated().map { (time: Double($0.offset) / 30, code: $0.element) }
        let hitFrames = blocks ?? Array(stride(from: 0, to: (codes.compactMap { $0 }.max() ?? 0) + 1, by: 15))
        let hits = hitFrames.map { c in AudioCodeHit(frame: c, time: Double(c) / 30 + (offset + drift * Double(c) / 30) / 1000, score: 0.9) }
        return CodedScan(path: "x.mp4", frames: frames, hasAudio: audio, audioHits: audio ? hits : [])
    }

    func testRunsOfMissingRepeatedAndReorderedCodesAreCollapsed() throws {
        var codes: [Int?] = Array(0..<20)
        codes.removeSubrange(5...7)  // 5-7 missing
        codes.insert(10, at: 8)  // 10 twice (after 10)
        codes.insert(10, at: 8)  // and a third time
        codes.append(contentsOf: [30, 25, 31])  // 20-29 missing but 25 comes late
        let r = try CodedAnalysis.run(scan(codes))
        XCTAssertEqual(r.missing.map { [$0.from, $0.to] }, [[5, 7], [20, 24], [26, 29]])
        XCTAssertEqual(r.repeated, [.init(code: 10, from: 8, to: 9)])
        XCTAssertEqual(r.reordered, [.init(code: 25, outputFrame: 20, after: 30)])
        XCTAssertFalse(r.ok)
    }

    func testTheCodedSpanIgnoresUncodedFootageAroundIt() throws {
        let codes: [Int?] = Array(repeating: nil, count: 10) + (100..<130).map { $0 } + Array(repeating: nil, count: 5)
        let r = try CodedAnalysis.run(scan(codes, blocks: [105, 120]))
        XCTAssertEqual(r.span, 10...39)
        XCTAssertEqual(r.firstCode, 100); XCTAssertEqual(r.lastCode, 129)
        XCTAssertTrue(r.missing.isEmpty && r.unreadable.isEmpty)
        // Code 105 is shown at output frame 15 (0.5 s); its audio block is at 105/30 = 3.5 s.
        XCTAssertEqual(r.offset?.mean ?? 0, 3000, accuracy: 1e-6)
    }

    func testNoCodeIsAnErrorSayingSo() {
        XCTAssertThrowsError(try CodedAnalysis.run(scan([nil, nil], audio: false))) { e in
            XCTAssertEqual("\(e)", "x.mp4: no frame carries a frame code (not a `lockstep testsrc` movie, or its code was destroyed)")
        }
    }

    func testVerdictsUseAudioLateAsPositiveAndNameTheWorstSecond() throws {
        let codes = Array(0..<300).map { Optional($0) }
        let late = try CodedAnalysis.run(scan(codes, offset: 50))
        XCTAssertEqual(late.verdictStrings, ["atscIS191": "fail", "ebuR37": "pass", "bt1359Detectable": "pass", "bt1359Acceptable": "pass"])
        let early = try CodedAnalysis.run(scan(codes, offset: -41))
        XCTAssertEqual(early.verdictStrings["ebuR37"], "fail", "EBU R37 allows audio 40 ms early")
        XCTAssertEqual(early.verdictStrings["bt1359Detectable"], "pass")
        // Drifting 6 ms per second from 0: the worst is the last second.
        let drifting = try CodedAnalysis.run(scan(codes, drift: 6))
        XCTAssertEqual(drifting.offset?.driftMsPerMin ?? 0, 360, accuracy: 1e-6)
        let atsc = drifting.verdicts.first { $0.limit.key == "atscIS191" }!
        XCTAssertFalse(atsc.passed)
        XCTAssertEqual(atsc.worstSecond, 9)
    }

    func testAudioGapsCutsAndRepeatsAreFound() throws {
        let codes = Array(0..<300).map { Optional($0) }
        var s = scan(codes)
        // 30 ms of silence inserted before block 150, the block of 225 played twice.
        s.audioHits = s.audioHits.map { $0.frame >= 150 ? AudioCodeHit(frame: $0.frame, time: $0.time + 0.03, score: 1) : $0 }
        s.audioHits.append(AudioCodeHit(frame: 225, time: 8.5, score: 1))
        let r = try CodedAnalysis.run(s)
        XCTAssertEqual(r.audioGaps.map(\.frame), [150])
        XCTAssertEqual(r.audioGaps.first?.ms ?? 0, 30, accuracy: 1e-6)
        XCTAssertEqual(r.audioRepeats.map(\.frame), [225])
    }

    func testJUnitEscapesAndCountsFailures() throws {
        var s = scan([0, 1, 3], audio: false)
        s.path = "a<b>&\"c\".mp4"
        let x = try CodedAnalysis.run(s).junit()
        XCTAssertTrue(x.contains("name=\"verify --coded a&lt;b&gt;&amp;&quot;c&quot;.mp4\" tests=\"5\" failures=\"1\" skipped=\"1\""), x)
        XCTAssertTrue(x.contains("<failure message=\"missing codes 2 (before output frame 2)\">"), x)
    }
}
