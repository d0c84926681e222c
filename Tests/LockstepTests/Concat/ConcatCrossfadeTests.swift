import XCTest

@testable import Lockstep

/// `ConcatAudio`'s crossfade on hand-made sources (no files, no threads): clip A is 1 on the
/// left channel only, clip B 1 on the right only, so the output's left is A's gain and its right
/// is B's, sample by sample.
final class ConcatCrossfadeTests: XCTestCase {
    /// A clip's audio as arrays on its own clock: samples [first, first + count) hold `left`/`right`.
    final class ArraySource: ConcatAudioSource {
        let first: Int64, count: Int64, left: Float, right: Float
        init(first: Int64, count: Int64, left: Float, right: Float) { self.first = first; self.count = count; self.left = left; self.right = right }
        var readyUntil: Int64 { .max }
        func wait(until position: Int64) {}
        func read(from: Int64, count n: Int, left l: UnsafeMutablePointer<Float>, right r: UnsafeMutablePointer<Float>) {
            for i in 0..<n {
                let t = from + Int64(i), inside = t >= first && t < first + count
                l[i] = inside ? left : 0; r[i] = inside ? right : 0
            }
        }
    }

    /// Two clips joined at `join` with `fade` samples each side, as ConcatJob drives it (a
    /// frame's worth at a time); the output's left and right channels.
    func run(join: Int64, end: Int64, fade: Int64, a: ArraySource?, b: ArraySource?) throws -> (left: [Float], right: [Float]) {
        var left: [Float] = [], right: [Float] = []
        let audio = ConcatAudio(fadeSamples: fade) { l, r, n in
            left += UnsafeBufferPointer(start: l, count: n); right += UnsafeBufferPointer(start: r, count: n)
        }
        audio.begin(a, at: 0)
        for t in stride(from: Int64(1600), through: join, by: 1600) { try audio.writeAvailable(until: t) }
        try audio.finish(at: join, join: true)
        audio.begin(b, at: join)
        for t in stride(from: join + 1600, through: end, by: 1600) { try audio.writeAvailable(until: t) }
        try audio.finish(at: end, join: false)
        return (left, right)
    }

    func testEqualPowerOverlapCentredOnTheJoin() throws {
        // A has a second of audio past its video's end, B a second before its first frame.
        let join: Int64 = 96_000, end: Int64 = 192_000, fade: Int64 = 4_800
        let (l, r) = try run(
            join: join, end: end, fade: fade,
            a: ArraySource(first: 0, count: join + 48_000, left: 1, right: 0),
            b: ArraySource(first: -48_000, count: 48_000 + end - join, left: 0, right: 1))
        XCTAssertEqual(l.count, Int(end), "the total length is the video's")
        XCTAssertEqual(r.count, Int(end))
        let j = Int(join), h = Int(fade)
        // Outside the fade: one clip at full level, the other silent.
        XCTAssertEqual(l[..<(j - h)].min(), 1); XCTAssertEqual(r[..<(j - h)].max(), 0)
        XCTAssertEqual(l[(j + h)...].max(), 0); XCTAssertEqual(r[(j + h)...].min(), 1)
        // Inside: the gains' squares sum to 1 (equal power); A falls and B rises throughout.
        for t in (j - h)..<(j + h) {
            XCTAssertEqual(l[t] * l[t] + r[t] * r[t], 1, accuracy: 1e-5, "sample \(t)")
            XCTAssertLessThanOrEqual(l[t], l[t - 1]); XCTAssertGreaterThanOrEqual(r[t], r[t - 1])
        }
        // Centred: equal at the join (both 1/sqrt 2), and no step anywhere (continuity).
        XCTAssertEqual(l[j - 1], r[j], accuracy: 1e-3)
        XCTAssertEqual(l[j], 0.7071, accuracy: 1e-3)
        var largest: Float = 0
        for t in 1..<l.count {
            let dl: Float = abs(l[t] - l[t - 1]), dr: Float = abs(r[t] - r[t - 1])
            largest = max(largest, dl, dr)
        }
        let steepest: Float = Float.pi / 2 / Float(2 * h)
        XCTAssertLessThan(largest, steepest * 1.01, "no step larger than the cosine's steepest")
    }

    /// Clips whose audio is exactly their video: the outgoing clip fades into silence past the
    /// join, the incoming one rises from silence before it (each side alone there).
    func testWithoutAudioBeyondTheJoinThatSideIsSilence() throws {
        let join: Int64 = 96_000, end: Int64 = 192_000, fade: Int64 = 4_800
        let (l, r) = try run(
            join: join, end: end, fade: fade,
            a: ArraySource(first: 0, count: join, left: 1, right: 0),
            b: ArraySource(first: 0, count: end - join, left: 0, right: 1))
        let j = Int(join), h = Int(fade)
        XCTAssertEqual(l.count, Int(end))
        for t in (j - h)..<j { XCTAssertEqual(r[t], 0, "B has nothing before its first frame") }
        for t in j..<(j + h) { XCTAssertEqual(l[t], 0, "A has nothing past its video") }
        XCTAssertEqual(l[j - 1], 0.7071, accuracy: 1e-3)
        XCTAssertEqual(r[j], 0.7071, accuracy: 1e-3)
    }

    /// A fade longer than half a clip shrinks to half of it: the fades of two joins never overlap.
    func testAFadeNeverReachesPastTheMiddleOfAShortClip() throws {
        var left: [Float] = [], right: [Float] = []
        let audio = ConcatAudio(fadeSamples: 24_000) { l, r, n in
            left += UnsafeBufferPointer(start: l, count: n); right += UnsafeBufferPointer(start: r, count: n)
        }
        let long = ArraySource(first: -96_000, count: 400_000, left: 1, right: 0)
        audio.begin(long, at: 0)
        try audio.finish(at: 96_000, join: true)
        audio.begin(ArraySource(first: -96_000, count: 400_000, left: 0, right: 1), at: 96_000)  // 10_000 samples long
        try audio.writeAvailable(until: 106_000)
        try audio.finish(at: 106_000, join: true)
        audio.begin(ArraySource(first: -96_000, count: 400_000, left: 1, right: 0), at: 106_000)
        try audio.finish(at: 200_000, join: false)
        XCTAssertEqual(left.count, 200_000)
        // The short clip (right) is at full level exactly at its middle, 101_000, and only there.
        XCTAssertEqual(right[101_000 - 1] * right[101_000 - 1] + left[101_000 - 1] * left[101_000 - 1], 1, accuracy: 1e-4)
        XCTAssertEqual(right[100_999], 1, accuracy: 1e-3)
        XCTAssertEqual(left[90_999], 1, "the first fade is 5000 samples each side")
        XCTAssertEqual(right[90_999], 0)
        XCTAssertGreaterThan(right[91_000], 0)
        XCTAssertLessThan(left[91_100], 1)
    }

    /// A cut that seeked into a clip starts making sound at its first sample, part way into
    /// the clip: the samples from there, the fade at the next join included, are the uncut
    /// join's, because the fade's width is measured from the clip's true start (a fade may
    /// reach half way back into a clip; measured from the cut it would shrink).
    func testACutPartWayIntoTheFirstClipMakesTheUncutJoinsSamples() throws {
        let join: Int64 = 48_000, end: Int64 = 144_000, fade: Int64 = 24_000
        func sources() -> (ArraySource, ArraySource) {
            (ArraySource(first: 0, count: join + 48_000, left: 1, right: 0), ArraySource(first: -48_000, count: 48_000 + end - join, left: 0, right: 1))
        }
        let (whole, _) = try run(join: join, end: end, fade: fade, a: sources().0, b: sources().1)
        var left: [Float] = []
        let cut: Int64 = 30_000
        let audio = ConcatAudio(fadeSamples: fade, start: cut) { l, _, n in left += UnsafeBufferPointer(start: l, count: n) }
        let (a, b) = sources()
        audio.begin(a, at: 0)
        for t in stride(from: cut + 1600, through: join, by: 1600) { try audio.writeAvailable(until: t) }
        try audio.finish(at: join, join: true)
        audio.begin(b, at: join)
        for t in stride(from: join + 1600, through: end, by: 1600) { try audio.writeAvailable(until: t) }
        try audio.finish(at: end, join: false)
        XCTAssertEqual(left.count, Int(end - cut))
        XCTAssertEqual(left, Array(whole[Int(cut)...]))
        XCTAssertLessThan(left[0], 1, "the fade out reaches back 24_000 samples, to sample 24_000")
    }

    func testGainsAreEqualPowerAndCentred() {
        for h: Int64 in [1, 2, 480, 48_000] {
            for t in (1000 - h)..<(1000 + h) {
                let g = ConcatAudio.gains(at: t, join: 1000, half: h)
                XCTAssertEqual(g.out * g.out + g.in * g.in, 1, accuracy: 1e-6)
                let mirror = ConcatAudio.gains(at: 2 * 1000 - 1 - t, join: 1000, half: h)
                XCTAssertEqual(g.out, mirror.in, accuracy: 1e-6, "symmetric about the join")
            }
            XCTAssertTrue(ConcatAudio.gains(at: 1000 - h - 1, join: 1000, half: h) == (1, 0))
            XCTAssertTrue(ConcatAudio.gains(at: 1000 + h, join: 1000, half: h) == (0, 1))
        }
    }
}
