import Compositor
import Foundation
import Verify
import XCTest

/// The frozen-frame rule with the rendered picture's own change in the provenance ("change"):
/// a still source is no violation, a picture lost after rendering still is, and files without
/// the field are checked as before.
final class RenderedChangeCheckTests: XCTestCase {
    let header = Provenance(
        k: 0, src: [], sync: "index", blend: "mix", fps: "30/1",
        inputs: [.init(name: "a.mp4", timeBase: "1/15360", audio: false)])

    /// 10 frames whose decoded picture stops changing at frame 6 while input 1 advances every
    /// frame; `rendered(k)` is the provenance's "change" of frame k.
    func scan(rendered: (Int) -> Double?) -> Scan {
        let luma: (Int) -> Double = { 100 + Double(min($0, 5)) }
        let frames = (0..<10).map { k in
            var p = k == 0 ? header : Provenance(k: 0, src: [])
            p.k = Int64(k); p.src = [[Int64(k), Int64(k) * 512]]; p.change = rendered(k)
            return ScannedFrame(
                pts: Timestamp(Int64(k) * 512, Rational(1, 15360)), meanLuma: luma(k), lumaDeviation: 30,
                difference: k == 0 ? nil : abs(luma(k) - luma(k - 1)), provenance: p)
        }
        return Scan(path: "x.mp4", frames: frames, videoDuration: 10.0 / 30, audio: nil)
    }

    func testAStillRenderIsNotFrozen() {
        // The renderer's pictures themselves stopped changing at frame 6 (a tripod shot).
        XCTAssertEqual(Checks.run(scan { $0 == 0 ? nil : $0 < 6 ? 1.0 : 0.03 }).violations, [])
    }

    func testARenderThatChangedButWasNotWrittenIsFrozen() {
        // The renderer's pictures kept changing (20 levels a frame); the file's did not.
        XCTAssertEqual(
            Checks.run(scan { $0 == 0 ? nil : 20 }).violations,
            [
                Violation(
                    .frozenFrame, frame: 6, time: 6.0 / 30,
                    "output frames 6-9 are the same picture as frame 5 (to the end) although input 1 advanced from source frame 5 to 9")
            ])
    }

    func testWithoutTheFieldTheSourceAloneDecides() {
        XCTAssertEqual(Checks.run(scan { _ in nil }).violations.map(\.kind), [.frozenFrame])
        // A change between stillDifference and renderedChange: neither clearly still nor clearly
        // changed, so not flagged.
        XCTAssertEqual(Checks.run(scan { $0 == 0 ? nil : 0.5 }).violations, [])
    }

    func testAChangeOutOfRangeIsMalformed() {
        let v = Checks.run(scan { $0 == 3 ? 300 : nil }).violations
        XCTAssertEqual(v.first?.kind, .provenanceMalformed, "\(v)")
        XCTAssertEqual(v.first?.frame, 3)
    }

    func testRecordsParseWithAndWithoutTheField() throws {
        func json(_ p: Provenance) -> [UInt8] { Array(p.payload().dropFirst(Provenance.uuid.count)) }
        var p = Provenance(k: 7, src: [[7, 3584]])
        XCTAssertEqual(String(decoding: json(p), as: UTF8.self), #"{"k":7,"src":[[7,3584]]}"#)
        XCTAssertNil(try XCTUnwrap(Provenance.parse(json(p))).change)
        p.change = 0.426
        XCTAssertEqual(String(decoding: json(p), as: UTF8.self), #"{"k":7,"src":[[7,3584]],"change":0.43}"#)
        XCTAssertEqual(Provenance.parse(json(p))?.change, 0.43)
        p.change = 12
        XCTAssertEqual(String(decoding: json(p), as: UTF8.self), #"{"k":7,"src":[[7,3584]],"change":12.00}"#)
        // Written by another tool: an integer, and spaces.
        XCTAssertEqual(Provenance.parse(Array(#"{ "k": 1, "src": [[1, 512]], "change": 3 }"#.utf8))?.change, 3)
        XCTAssertNil(Provenance.parse(Array(#"{"k":1,"src":[[1,512]],"change":"x"}"#.utf8)))
    }
}

extension RenderedChangeCheckTests {
    func testASegmentsFirstFrameTakesItsNeighboursMeasure() {
        // Frame 7 starts a segment (no "change"): still on both sides, not frozen; a clear change
        // after it, frozen; no measure before it (an older file), today's rule.
        XCTAssertEqual(Checks.run(scan { $0 == 0 || $0 == 7 ? nil : $0 < 6 ? 1.0 : 0.03 }).violations, [])
        XCTAssertEqual(Checks.run(scan { $0 == 0 || $0 == 7 ? nil : $0 == 8 ? 20 : $0 < 6 ? 1.0 : 0.03 }).violations.map(\.frame), [7])
        XCTAssertEqual(Checks.run(scan { $0 < 7 ? nil : 0.03 }).violations.map(\.frame), [6])
    }
}
