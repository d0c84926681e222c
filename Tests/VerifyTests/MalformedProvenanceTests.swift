import Compositor
import Verify
import XCTest

/// Provenance is bytes from a file: crafted records are violations with a sentence, never a trap.
final class MalformedProvenanceTests: XCTestCase {
    let tb = Rational(1, 15360)

    func header(sync: String = "time", fps: String? = "30/1", timeBase: String = "1/15360") -> Provenance {
        Provenance(
            k: 0, src: [[0, 0]], sync: sync, blend: "mix", fps: fps,
            inputs: [.init(name: "a.mp4", timeBase: timeBase, audio: false)])
    }

    func scan(
        _ n: Int = 10, header: Provenance, src: (Int) -> [[Int64]] = { [[Int64($0), Int64($0) * 512]] },
        k: (Int) -> Int64 = { Int64($0) }
    ) -> Scan {
        let frames = (0..<n).map { i -> ScannedFrame in
            var p = i == 0 ? header : Provenance(k: 0, src: [])
            p.k = k(i); p.src = src(i)
            return ScannedFrame(
                pts: Timestamp(Int64(i) * 512, tb), meanLuma: 100 + Double(i % 7), lumaDeviation: 30,
                difference: i == 0 ? nil : 1, provenance: p)
        }
        return Scan(path: "x.mp4", frames: frames, videoDuration: Double(n) / 30, audio: nil)
    }

    func messages(_ r: VerifyReport, _ kind: Violation.Kind) -> [String] { r.violations.filter { $0.kind == kind }.map(\.message) }

    func testAZeroFrameRateIsAViolationNotATrap() {
        // The crafted file of issue 9: "fps":"30/1" changed to "fps":"0000".
        for fps in ["0000", "-30/1", "0/0", "x", "30/0", "99999999999/1"] {
            let r = Checks.run(scan(header: header(fps: fps)))
            XCTAssertEqual(
                messages(r, .provenanceMalformed),
                ["the provenance gives the frame rate \"\(fps)\", not a positive fraction; the time-sync checks are not done"], fps)
        }
        let r = Checks.run(scan(header: header(fps: nil)))
        XCTAssertEqual(messages(r, .provenanceMalformed), ["the provenance gives the frame rate as missing, not a positive fraction; the time-sync checks are not done"])
    }

    func testABadTimeBaseSkipsThatInputsTimes() {
        let r = Checks.run(scan(header: header(timeBase: "0/1")))
        XCTAssertEqual(
            messages(r, .provenanceMalformed),
            ["the provenance gives input 1 (a.mp4) the time base \"0/1\", not a positive fraction; its times are not checked"])
    }

    func testHugeIndicesAndTimestampsAreOutOfRange() {
        let huge = Checks.run(scan(header: header(), src: { $0 == 5 ? [[Int64.max, Int64.max]] : [[Int64($0), Int64($0) * 512]] }))
        XCTAssertEqual(messages(huge, .provenanceMalformed), ["1 frame carry a provenance record out of range, the first is frame 5"])
        let negative = Checks.run(scan(header: header(sync: "index"), src: { $0 >= 3 ? [[-1, Int64.min]] : [[Int64($0), 0]] }))
        XCTAssertEqual(messages(negative, .provenanceMalformed), ["7 frames carry a provenance record out of range, the first is frame 3"])
        let k = Checks.run(scan(header: header(), k: { $0 == 2 ? Int64.min : Int64($0) }))
        XCTAssertEqual(messages(k, .provenanceMalformed), ["1 frame carry a provenance record out of range, the first is frame 2"])
    }

    func testMissingFieldsAndShortRecordsDoNotTrap() {
        let r = Checks.run(scan(header: Provenance(k: 0, src: []), src: { $0 % 2 == 0 ? [] : [[Int64($0)]] }))
        XCTAssertEqual(messages(r, .provenanceMalformed), ["5 frames carry a provenance record out of range, the first is frame 1"])
        // Largest values still in range: the time arithmetic overflows 64 bits and is skipped.
        let edge = Checks.run(
            scan(
                header: header(fps: "1/2147483647", timeBase: "2147483647/1"),
                src: { [[Int64($0), $0 % 2 == 0 ? (1 << 61) : -(1 << 61)]] }))
        XCTAssertEqual(messages(edge, .provenanceMalformed), [], "in range: checked where it fits, skipped where it does not")
    }

    func testContainerTimestampsThatOverflowDoNotTrap() {
        let frames = [Int64.max, Int64.min + 1, 0, Int64.max].enumerated().map { i, v in
            ScannedFrame(pts: Timestamp(v, Rational(1000, 1)), meanLuma: 100, lumaDeviation: 30, difference: i == 0 ? nil : 1, provenance: nil)
        }
        let r = Checks.run(Scan(path: "x", frames: frames, videoDuration: 1, audio: nil))
        XCTAssertEqual(r.frames, 4)
        let gaps = [0, 1, 2, 3].map {
            ScannedFrame(
                pts: Timestamp($0 == 3 ? 1 << 62 : Int64($0), Rational(1, 2147483647)), meanLuma: 100,
                lumaDeviation: 30, difference: nil, provenance: nil)
        }
        let g = Checks.run(Scan(path: "x", frames: gaps, videoDuration: nil, audio: nil))
        XCTAssertEqual(g.violations.first { $0.kind == .missingFrames }?.frame, 3)
    }

    func testTheParserReadsGenuinePayloadsAndRefusesTheRest() {
        let genuine = #"{"k":0,"src":[[0,0],[0,0]],"sync":"time","blend":"mix","fps":"30/1","inputs":[{"name":"r25.mp4","timeBase":"1/12800","audio":true}]}"#
        XCTAssertEqual(Provenance.parse(Array(genuine.utf8))?.fps, "30/1")
        XCTAssertNil(Provenance.parse(Array(#"{"k":1e30,"src":[]}"#.utf8)))
        XCTAssertNil(Provenance.parse([0xFF, 0x00, 0x7B]))
        XCTAssertNil(Provenance.parse([]))
    }
}
