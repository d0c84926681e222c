import Compositor
import Verify
import XCTest

/// Issue 43: `verify` reads a cut (`--frames A:B`) as the part of the single pass it is, and a
/// fade's black frames whose records say their sources were black as right; both still catch
/// what they caught before.
final class CutAndFadeChecksTests: XCTestCase {
    let tb = Rational(1, 15360)  // 30 fps = 512 ticks

    /// `n` frames of a cut from output frame `first`: frame k's record is frame first + k's,
    /// showing source frame `source(first + k)` of one 30 fps input (under time sync with the
    /// frame's end, `until`).
    func cut(
        _ n: Int, first: Int64, sync: String = "index", source: (Int64) -> Int64 = { $0 }, header: Bool = true,
        luma: (Int) -> Double = { 100 + Double($0 % 7) }
    ) -> Scan {
        let frames = (0..<n).map { k -> ScannedFrame in
            let single = first + Int64(k)
            var p = Provenance(k: single, src: [])
            if k == 0 && header {
                p = Provenance(k: single, src: [], sync: sync, blend: "single", fps: "30/1", inputs: [.init(name: "a.mp4", timeBase: "1/15360", audio: false)])
                p.inputs![0].origin = 0
                if first > 0 { p.first = first }
            }
            let s = source(single)
            p.src = [sync == "time" ? [s, s * 512, (s + 1) * 512] : [s, s * 512]]
            return ScannedFrame(
                pts: Timestamp(Int64(k) * 512, tb), meanLuma: luma(k), lumaDeviation: 30,
                difference: k == 0 ? nil : abs(luma(k) - luma(k - 1)), provenance: p)
        }
        return Scan(path: "cut.mp4", frames: frames, videoDuration: Double(n) / 30, audio: nil)
    }

    func testACutVerifiesAsTheSinglePassItIsPartOf() {
        XCTAssertEqual(Checks.run(cut(75, first: 15)).violations, [])
        XCTAssertEqual(Checks.run(cut(75, first: 15, sync: "time")).violations, [])
        XCTAssertEqual(Checks.run(cut(75, first: 0)).violations, [], "a cut from 0 is the single pass's start")
    }

    func testACutStillCatchesItsFaults() {
        // Source frame 40 skipped (output frame 40 of the single pass, frame 25 of the cut).
        let skips = Checks.run(cut(75, first: 15) { $0 >= 40 ? $0 + 1 : $0 })
        XCTAssertEqual(skips.violations.map(\.message), ["output frame 25: input 1 (a.mp4) jumps from source frame 39 to 41: source frame 40 was dropped"])
        // Starting at the wrong source frame: the single pass's frame 15 shows source frame 15.
        let late = Checks.run(cut(75, first: 15) { $0 + 3 })
        XCTAssertEqual(
            late.violations.map(\.message), ["output frame 0 (output frame 15 of the single pass): input 1 (a.mp4) starts at source frame 18, not 15"])
        // Under time sync: a frame from the future (tick 30 of the single pass shows frame 32).
        let future = Checks.run(cut(75, first: 15, sync: "time") { $0 == 30 ? 32 : $0 })
        XCTAssertTrue(future.violations.contains { $0.kind == .sourceFromTheFuture && $0.frame == 15 }, "\(future.violations)")
        // A record out of place: frame 10 of the cut says it is output frame 10, not 25.
        var s = cut(30, first: 15)
        s.frames[10].provenance?.k = 10
        XCTAssertEqual(
            Checks.run(s).violations.first { $0.kind == .provenanceMissing }?.message,
            "frame 10 of a cut from output frame 15 carries the provenance of output frame 10, not 25")
    }

    func testACutWithoutItsHeaderIsOneLine() {
        let r = Checks.run(cut(75, first: 15, header: false))
        XCTAssertEqual(
            r.violations.map(\.message),
            ["frame 0 carries the provenance of output frame 15 without the header a cut's first frame carries; its sources are not checked"])
    }

    /// 60 frames: 0-4 and 55-59 black, the rest not.
    func fade(black: (Int) -> Bool?) -> Scan {
        var s = cut(60, first: 0, luma: { k in k < 5 || k >= 55 ? 16 : 100 + Double(k % 7) })
        for k in s.frames.indices where k < 5 || k >= 55 {
            s.frames[k].lumaDeviation = 0.5
            s.frames[k].provenance?.black = black(k)
        }
        return s
    }

    func testAFadeFromBlackSourcesIsRight() {
        XCTAssertEqual(Checks.run(fade { _ in true }).violations, [])
    }

    func testBlackFramesWithoutBlackSourcesAreStillNamed() {
        // No frame says so: as before.
        let none = Checks.run(fade { _ in nil })
        XCTAssertEqual(none.violations.map(\.message), ["frames 0-4 are black", "frames 55-59 at the end are black"])
        // One frame of each run rendered from a picture that was not black: the run is named.
        let some = Checks.run(fade { $0 == 2 || $0 == 58 ? nil : true })
        XCTAssertEqual(some.violations.map(\.kind), [.blackStart, .blackEnd])
    }

    func testTheRecordWritesBlackOnlyWhenTrue() {
        var p = Provenance(k: 3, src: [[3, 1536]])
        p.black = false
        XCTAssertEqual(String(decoding: p.payload().dropFirst(16), as: UTF8.self), "{\"k\":3,\"src\":[[3,1536]]}")
        p.black = true
        p.first = 7
        XCTAssertEqual(String(decoding: p.payload().dropFirst(16), as: UTF8.self), "{\"k\":3,\"src\":[[3,1536]],\"first\":7,\"black\":true}")
        XCTAssertEqual(Provenance.parse(Array(p.payload().dropFirst(16))), p)
    }
}

/// Camera clocks: a step that jitters by a fraction of a millisecond is no irregular step, in
/// a camera's own file or in an output that keeps its source's times; a real one still is.
final class JitterChecksTests: XCTestCase {
    let tb = Rational(1, 90000)  // 29.97 fps = 3003 ticks

    /// `steps` in ticks; with `source`, each frame's record shows source frame k at the same pts.
    func scan(_ steps: [Int64], provenance: Bool) -> Scan {
        var pts: Int64 = 0
        let frames = (0...steps.count).map { k -> ScannedFrame in
            if k > 0 { pts += steps[k - 1] }
            var p: Provenance?
            if provenance {
                p = Provenance(k: Int64(k), src: [[Int64(k), pts]])
                if k == 0 { p = Provenance(k: 0, src: [[0, 0]], sync: "index", blend: "single", fps: "30000/1001", inputs: [.init(name: "cam.mp4", timeBase: "1/90000", audio: false)]) }
            }
            return ScannedFrame(pts: Timestamp(pts, tb), meanLuma: 100 + Double(k % 7), lumaDeviation: 30, difference: k == 0 ? nil : 1, provenance: p)
        }
        return Scan(path: "cam.mp4", frames: frames, videoDuration: nil, audio: nil)
    }

    /// 3003 ± 9 ticks (0.1 ms) every few frames.
    var jittery: [Int64] { (0..<60).map { $0 % 5 == 0 ? 3012 : $0 % 5 == 2 ? 2994 : 3003 } }

    func testACamerasJitterIsNoIrregularStep() {
        XCTAssertEqual(Checks.run(scan(jittery, provenance: false)).violations, [])
    }

    func testAnOutputKeepingItsSourcesJitterIsRight() {
        XCTAssertEqual(Checks.run(scan(jittery, provenance: true)).violations, [])
    }

    func testAStepTheSourceDidNotTakeIsStillIrregular() {
        // Output frame 30 comes 5 ms late, its record says the source's frames were 3003 apart.
        var s = scan(Array(repeating: 3003, count: 60), provenance: true)
        for k in 30..<s.frames.count { s.frames[k].pts = Timestamp(s.frames[k].pts.value + 450, tb) }
        XCTAssertEqual(Checks.run(s).violations.map(\.kind), [.irregularStep])
        XCTAssertEqual(Checks.run(s).violations.first?.frame, 30)
    }
}
