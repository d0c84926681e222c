import Compositor
import Verify
import XCTest

/// verify on hand-made scans of time-sync outputs with inputs placed in time: what the
/// provenance declares (each frame's screen time, held frames, absent inputs, clocks) is
/// accepted when time says so, and nothing else.
final class TimePlacementChecksTests: XCTestCase {
    let out = Rational(1, 15360)

    /// Output at 30 fps; input records given per frame; `configure` fills the header.
    func scan(_ records: [[[Int64]]], held: [Int: [Int]] = [:], configure: (inout Provenance) -> Void = { _ in }) -> Scan {
        let frames = records.enumerated().map { k, src -> ScannedFrame in
            var p = Provenance(k: Int64(k), src: src)
            if k == 0 {
                p.sync = "time"; p.blend = "mix"; p.fps = "30/1"
                p.inputs = [
                    Provenance.Input(name: "a.mp4", timeBase: "1/15360", audio: false),
                    Provenance.Input(name: "b.mkv", timeBase: "1/1000", audio: false)
                ]
                p.inputs![0].origin = 0; p.inputs![1].origin = 0
                configure(&p)
            }
            p.held = held[k]
            return ScannedFrame(
                pts: Timestamp(Int64(k) * 512, out), meanLuma: 100 + Double(k % 5), lumaDeviation: 30,
                difference: k == 0 ? nil : 1, provenance: p)
        }
        return Scan(path: "x.mp4", frames: frames, videoDuration: Double(records.count) / 30, audio: nil)
    }
    func messages(_ s: Scan) -> [String] { Checks.run(s).violations.map(\.message) }

    /// Input 1: 30 fps from 0. Input 2: 25 fps in ms (frame j at 40j ms), offset by `offset` s.
    func records(_ n: Int, offset: Double = 0, drop: Int? = nil) -> [[[Int64]]] {
        (0..<n).map { k in
            let t = Double(k) / 30 - offset
            var j = Int64((t * 25 + 1e-9).rounded(.down))
            if k == drop { j += 1 }
            return [[Int64(k), Int64(k) * 512, Int64(k + 1) * 512], [j, j * 40, (j + 1) * 40]]
        }
    }

    func testRepeatsAndDropsTimeDeclaresPass() {
        // 25 fps under 30 fps: repeats; each record says until when its frame is on screen.
        XCTAssertEqual(messages(scan(records(30))), [])
        // Input 2 placed 0.5 s later on input 1's clock, the output starting there: input 1 shows
        // its frames from 15 (0.5 s) on.
        let shifted = records(30).enumerated().map { k, r in [[Int64(15 + k), Int64(15 + k) * 512, Int64(16 + k) * 512], r[1]] }
        XCTAssertEqual(
            messages(
                scan(shifted) {
                    $0.inputs![1].offset = "1/2"; $0.start = "1/2"
                }), [])
        // The same file without the start its header gives: every frame of both is from the future.
        XCTAssertEqual(messages(scan(shifted) { $0.inputs![1].offset = "1/2" }).count, 60)
    }

    func testAFrameTheClockDoesNotShowIsNamed() {
        // Frame 6 of input 2 shown at output frame 7 (0.233 s): it starts at 0.24 s.
        XCTAssertEqual(
            messages(scan(records(12, drop: 7))).first,
            "output frame 7 at 0.233 s: input 2 (b.mkv) shows source frame 6 of 0.240 s, which is not on screen yet")
        // The same records under a 10 ms offset the header declares: then it is on screen.
        XCTAssertEqual(messages(scan(records(12, drop: 7)) { $0.inputs![1].offset = "-1/100" }).filter { $0.contains("frame 7") }, [])
        // A drift declared moves the clock: 20000 ppm is 4.7 ms at 0.233 s, not enough for 6.7 ms.
        XCTAssertEqual(messages(scan(records(12, drop: 7)) { $0.inputs![1].driftPpm = 20000 }).count, 1)
    }

    func testAStaleFrameIsNamedFromItsUntil() {
        var r = records(12)
        r[9][1] = r[8][1]  // input 2 still shows frame 6 (until 0.28 s) at 0.3 s
        XCTAssertEqual(messages(scan(r)), ["output frame 9 at 0.300 s: input 2 (b.mkv) still shows source frame 6 of 0.240 s, on screen only until 0.280 s"])
    }

    func testADropNotDeclaredByTheFramesBeforeIsNamed() {
        // Output frame 3 shows frame 2, whose record says frame 3 starts at 120 ms; the next
        // record shows frame 3 at 130 ms.
        var r = records(6)
        r[4][1] = [3, 130, 160]
        XCTAssertEqual(
            messages(scan(r)),
            ["output frame 4: input 2 (b.mkv) shows source frame 3 at pts 130, but frame 2's record said frame 3 starts at pts 120"])
    }

    func testHeldAndAbsentNeedTheirOptions() {
        // Input 2 ends after frame 4 (until 200 ms); from output frame 6 (0.2 s) it is held or absent.
        var r = records(9)
        for k in 6..<9 { r[k][1] = [4, 160, 200] }
        let held = Dictionary(uniqueKeysWithValues: (6..<9).map { ($0, [1]) })
        XCTAssertEqual(messages(scan(r, held: held)).first, "output frame 6: input 2 (b.mkv) holds source frame 4, and only --hold-last holds a frame")
        XCTAssertEqual(messages(scan(r, held: held) { $0.holdLast = true }), [])
        var a = records(9)
        for k in 6..<9 { a[k][1] = [] }
        XCTAssertEqual(messages(scan(a)).first, "output frame 6: input 2 (b.mkv) is absent, and only --longest leaves an input out")
        XCTAssertEqual(messages(scan(a) { $0.coverage = "longest" }), [])
        // Absent inside its span, under --longest: it comes back, so it had not ended.
        var inside = records(9)
        inside[3][1] = []
        XCTAssertEqual(
            messages(scan(inside) { $0.coverage = "longest" }),
            ["output frame 4: input 2 (b.mkv) comes back with source frame 3 after being absent from output frame 3, past what it had shown"])
        // Absent before its start (placed 0.2 s later): fine; absent before that, inside its span: named.
        var late = records(9, offset: 0.2)
        for k in 0..<6 { late[k][1] = [] }
        XCTAssertEqual(
            messages(
                scan(late) {
                    $0.coverage = "longest"; $0.inputs![1].offset = "1/5"
                }), [])
        late[6][1] = []
        XCTAssertEqual(
            messages(
                scan(late) {
                    $0.coverage = "longest"; $0.inputs![1].offset = "1/5"
                }),
            ["output frame 6 at 0.200 s: input 2 (b.mkv) is absent, but its 0.000 s is inside its span"])
    }

    func testAStillNeverMoves() {
        var r = records(5)
        for k in 0..<5 { r[k][1] = [0, 0] }
        XCTAssertEqual(messages(scan(r) { $0.inputs![1].still = true }), [])
        r[3][1] = [1, 40]
        XCTAssertEqual(messages(scan(r) { $0.inputs![1].still = true }).first, "output frame 3: input 2 (b.mkv), a still, shows source frame 1 after 0")
    }

    func testACrafedPlacementIsAViolationNotATrap() {
        XCTAssertEqual(messages(scan(records(3)) { $0.start = "x" }).first, "the provenance gives the start \"x\", not a time; the inputs' times are read from 0")
        XCTAssertEqual(messages(scan(records(3)) { $0.inputs![1].trim = "1:2:3" }).first, "the provenance gives input 2 the trim \"1:2:3\", not two times")
        XCTAssertFalse(messages(scan(records(3)) { $0.inputs![1].offset = "99999999999999999999" }).isEmpty)
        XCTAssertFalse(messages(scan(records(3)) { $0.inputs![1].driftPpm = .infinity }).isEmpty)
    }
}
