import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// One 1 kHz tone cut into three clips (t0-t2, scripts/fixtures/make-concat-fixtures): after concat the
/// audio must still be one sine. Around each join a sine is fitted (least squares, known
/// frequency) to the 10 ms before and the 10 ms after: a gap or an overlap of one sample moves
/// the phase by 7.5 degrees, a click leaves a residual. The same fits in the middle of a clip
/// are the yardstick (AAC's own error).
final class ConcatToneTests: ScratchTestCase {
    static let frequency = 1000.0, rate = 48000.0
    static let joins = [57_600, 105_600]  // 36 and 66 frames at 30 fps

    /// (amplitude, phase in radians, rms residual) of a*sin(wt) + b*cos(wt) + c over s[range], t from 0.
    static func fit(_ s: [Float], _ range: Range<Int>) -> (amplitude: Double, phase: Double, residual: Double) {
        let w = 2 * Double.pi * frequency / rate
        var m = [[Double]](repeating: [0, 0, 0], count: 3), r = [0.0, 0.0, 0.0]
        for n in range {
            let basis = [sin(w * Double(n)), cos(w * Double(n)), 1.0]
            for i in 0..<3 { for j in 0..<3 { m[i][j] += basis[i] * basis[j] }; r[i] += basis[i] * Double(s[n]) }
        }
        let x = solve3(m, r)
        var sq = 0.0
        for n in range {
            let e = Double(s[n]) - (x[0] * sin(w * Double(n)) + x[1] * cos(w * Double(n)) + x[2])
            sq += e * e
        }
        return ((x[0] * x[0] + x[1] * x[1]).squareRoot(), atan2(x[1], x[0]), (sq / Double(range.count)).squareRoot())
    }

    static func solve3(_ a: [[Double]], _ b: [Double]) -> [Double] {
        var m = a.enumerated().map { $0.element + [b[$0.offset]] }
        for c in 0..<3 {
            let p = (c..<3).max { abs(m[$0][c]) < abs(m[$1][c]) }!
            m.swapAt(c, p)
            for r in 0..<3 where r != c {
                let f = m[r][c] / m[c][c]
                for k in c...3 { m[r][k] -= f * m[c][k] }
            }
        }
        return (0..<3).map { m[$0][3] / m[$0][$0] }
    }

    static func degrees(_ a: Double, _ b: Double) -> Double {
        var d = (a - b) * 180 / .pi
        while d > 180 { d -= 360 }
        while d < -180 { d += 360 }
        return abs(d)
    }

    func concatTones(_ configure: (inout ConcatOptions) -> Void = { _ in }) throws -> URL {
        let out = scratch.appendingPathComponent("tone.mp4")
        var options = ConcatOptions(clips: ["t0.mp4", "t1.mp4", "t2.mp4"].map { Fixtures.url("concat/" + $0).path }, output: out.path)
        configure(&options)
        _ = try ConcatJob(options: options).run()
        return out
    }

    func testToneHasNoGapOverlapOrPhaseJumpAtAnyJoin() throws {
        let out = try concatTones()
        let s = try AudioAnalysis.decodeMono(out)
        XCTAssertGreaterThanOrEqual(s.count, 144_000)
        let streams = try Probe.streams(out)
        XCTAssertEqual(try XCTUnwrap(streams.first { $0.codecType == "audio" }?.duration), 3.0, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(streams.first { $0.codecType == "video" }?.duration), 3.0, accuracy: 1e-6)
        let half = 480
        // Each clip decoded alone: the residual of its own last and first 10 ms.
        let clips = try ["t0.mp4", "t1.mp4", "t2.mp4"].map { try AudioAnalysis.decodeMono(Fixtures.url("concat/" + $0)) }
        let lengths = [57_600, 48_000, 38_400]
        let edgeResiduals = [
            57_600: (Self.fit(clips[0], (lengths[0] - half)..<lengths[0]).residual, Self.fit(clips[1], 0..<half).residual),
            105_600: (Self.fit(clips[1], (lengths[1] - half)..<lengths[1]).residual, Self.fit(clips[2], 0..<half).residual)
        ]
        // The yardstick: the same fits in the middle of clip 2, where nothing was joined.
        let middle = 80_000
        let control = (Self.fit(s, (middle - half)..<middle), Self.fit(s, middle..<(middle + half)), Self.fit(s, (middle - half)..<(middle + half)))
        let controlJump = Self.degrees(control.0.phase, control.1.phase)
        for j in Self.joins {
            let before = Self.fit(s, (j - half)..<j), after = Self.fit(s, j..<(j + half)), across = Self.fit(s, (j - half)..<(j + half))
            let jump = Self.degrees(before.phase, after.phase)
            print(
                String(
                    format: "join at %d: phase jump %.3f deg (control %.3f), residual %.5f (control %.5f), amplitude %.4f / %.4f",
                    j, jump, controlJump, across.residual / across.amplitude, control.2.residual / control.2.amplitude,
                    before.amplitude, after.amplitude))
            // One sample of gap or overlap is 7.5 degrees.
            XCTAssertLessThan(jump, 1.0, "phase jump at the join at sample \(j)")
            // The clips were AAC-encoded one by one, so each already has coding error at its own
            // edges: the join may carry that, and nothing more (a click or a shift would).
            let edges = edgeResiduals[j]!
            let own = ((edges.0 * edges.0 + edges.1 * edges.1) / 2).squareRoot()
            print(String(format: "  the clips' own edges: %.5f and %.5f", edges.0 / across.amplitude, edges.1 / across.amplitude))
            XCTAssertLessThan(across.residual, 1.5 * own + 0.002 * across.amplitude, "residual across the join at sample \(j)")
            XCTAssertEqual(before.amplitude / after.amplitude, 1, accuracy: 0.02, "level change at the join at sample \(j)")
        }
        // The whole track is one sine: the phase at each join is the tone's own phase at that sample.
        let global = Self.fit(s, 0..<144_000)
        for j in Self.joins {
            XCTAssertLessThan(Self.degrees(Self.fit(s, (j - half)..<(j + half)).phase, global.phase), 1.0)
        }
    }

    /// The detector itself: the same tone with one sample removed at the first join (what a
    /// join off by one sample would do) is caught.
    func testTheFitCatchesAOneSampleGap() throws {
        let out = try concatTones()
        var s = try AudioAnalysis.decodeMono(out)
        s.remove(at: Self.joins[0])
        let j = Self.joins[0]
        let jump = Self.degrees(Self.fit(s, (j - 480)..<j).phase, Self.fit(s, j..<(j + 480)).phase)
        XCTAssertGreaterThan(jump, 5)
    }

    /// These clips' audio is exactly their video, so a crossfade has nothing from the other
    /// side to overlap: clip k falls (cos) to -3 dB at the join, clip k + 1 rises (sin) from
    /// there; the tone's phase goes on, the length is unchanged, and away from the joins nothing moves.
    func testCrossfadeWithoutOverlappingAudioMeetsAtMinus3dBOnTheJoin() throws {
        let out = try concatTones { $0.crossfadeMs = 20 }
        let s = try AudioAnalysis.decodeMono(out)
        func rms(_ r: Range<Int>) -> Double { (s[r].reduce(0.0) { $0 + Double($1 * $1) } / Double(r.count)).squareRoot() }
        let steady = rms(20_000..<21_000)
        for j in Self.joins {
            XCTAssertEqual(rms((j - 48)..<(j + 48)), steady * 0.7071, accuracy: steady * 0.04, "the join at \(j) meets at -3 dB")
            XCTAssertEqual(rms((j - 1500)..<(j - 1000)), steady, accuracy: steady * 0.05, "outside the fade the tone is untouched")
            XCTAssertEqual(rms((j + 1000)..<(j + 1500)), steady, accuracy: steady * 0.05)
            XCTAssertLessThan(Self.degrees(Self.fit(s, (j - 240)..<j).phase, Self.fit(s, j..<(j + 240)).phase), 2, "no phase jump at \(j)")
        }
        let streams = try Probe.streams(out)
        XCTAssertEqual(try XCTUnwrap(streams.first { $0.codecType == "audio" }?.duration), 3.0, accuracy: 1e-6)
    }
}
