import Compositor
import TestSupport
import XCTest

/// The snake's taint (which output pixels still depend on the trail before a segment's
/// pre-roll) against cases worked out by hand, and against the renderer itself: two renderers
/// started from different previous outputs agree exactly wherever the taint says they must.
final class SnakeTaintTests: XCTestCase {
    /// A full-size trail (trailScale 1) moved 2 px right per frame on 32x32: each pixel samples
    /// the one 2 px to its left exactly (weight 0 on the next), columns 0 and 1 fall outside the
    /// quad (black), and chroma (16x16, 1 px a frame) likewise. A pixel of column 31 comes from
    /// column 1 fifteen frames earlier, where black entered: a pre-roll of 15 frames is exact,
    /// 14 is not.
    func testAFullSizeTrailMovingTwoPixelsAFrameNeedsFifteenFrames() {
        var p = SnakeParameters(); p.trailScale = 1
        XCTAssertEqual(SnakePreRoll.frames(before: 100, width: 32, height: 32, parameters: p) { _ in (2, 0) }, 15)
        // Windows of 4 and 8 are too short (the taint from before them survives); 16 is enough.
        XCTAssertEqual(SnakePreRoll.frames(before: 100, width: 32, height: 32, parameters: p, firstWindow: 4) { _ in (2, 0) }, 15)

        let taint = SnakeTaint(width: 32, height: 32, parameters: p)
        taint.begin(at: 50)
        for k in 50...80 {
            taint.render(frame: k, shift: (2, 0))
            // Up to frame 64 column 31 still carries what was there before frame 50.
            if k < 65 { XCTAssertEqual(taint.earliestTaint, 49, "frame \(k)") } else { XCTAssertEqual(taint.earliestTaint, k - 14, "frame \(k)") }
        }
        XCTAssertEqual(taint.earliestTaint(.luma, x: 31, y: 0), 66)
        XCTAssertEqual(taint.earliestTaint(.luma, x: 2, y: 0), 80, "only a start at this very frame taints column 2")
        XCTAssertNil(taint.earliestTaint(.luma, x: 1, y: 0), "outside the quad: the black clear")
        XCTAssertNil(taint.earliestTaint(.luma, x: 15, y: 15), "under the front quad")
        XCTAssertEqual(taint.earliestTaint(.chroma, x: 15, y: 0), 66)
    }

    /// Still (no shift) and full size, the trail copies itself for ever outside the front quad;
    /// moved 1 px, the chroma trail moves half a pixel and every chroma pixel takes half of its
    /// own previous value, for ever. No pre-roll short of frame 0 is exact.
    func testATrailThatFeedsItselfForEverNeedsEveryFrameFromTheStart() {
        var p = SnakeParameters(); p.trailScale = 1
        XCTAssertEqual(SnakePreRoll.frames(before: 100, width: 32, height: 32, parameters: p) { _ in (0, 0) }, 100)
        XCTAssertEqual(SnakePreRoll.frames(before: 100, width: 32, height: 32, parameters: p) { _ in (1, 0) }, 100)
        XCTAssertEqual(SnakePreRoll.frames(before: 5, width: 32, height: 32, parameters: p) { _ in (2, 0) }, 5, "within the first window: from frame 0")
    }

    /// A front quad over the whole canvas hides the trail entirely: no pre-roll at all.
    func testATrailTheFrontCoversNeedsNoPreRoll() {
        var p = SnakeParameters(); p.frontScale = 1
        XCTAssertEqual(SnakePreRoll.frames(before: 40, width: 24, height: 16, parameters: p) { _ in (3, -1) }, 0)
    }

    /// Half-size trail, still: the previous output shrinks into the front quad's place at once,
    /// so what was there before frame s - 1 never reaches frame s.
    func testAHalfSizeStillTrailNeedsOneFrame() {
        var p = SnakeParameters(); p.trailScale = 0.5
        XCTAssertEqual(SnakePreRoll.frames(before: 60, width: 64, height: 64, parameters: p) { _ in (0, 0) }, 1)
    }

    // MARK: the renderer itself

    struct Noise {
        var generator: SeededGenerator
        init(seed: UInt64) { generator = SeededGenerator(seed: seed) }
        mutating func next() -> UInt64 { generator.next() }
        mutating func picture(_ w: Int, _ h: Int) -> YUVBuffer {
            let b = YUVBuffer(width: w, height: h)
            for plane in [b.image.y, b.image.u, b.image.v] {
                for y in 0..<plane.height { for x in 0..<plane.width { plane[x, y] = UInt8(truncatingIfNeeded: next()) } }
            }
            return b
        }
    }

    /// Renders frames `start...last` from `initial` (the previous output) with the trail's motion
    /// as it was before `start`; returns the last output.
    func run(
        from start: Int, to last: Int, initial: YUVBuffer, frames: [YUVBuffer], motions: [SnakeMotion?],
        before: SnakeTrail, parameters: SnakeParameters
    ) -> YUVBuffer {
        let w = initial.width, h = initial.height
        let r = SnakeRenderer(width: w, height: h, parameters: parameters)
        r.restore(before, previousOutput: initial.image)
        let out = YUVBuffer(width: w, height: h)
        for k in start...last { r.render(frames[k].image, motion: motions[k], into: out.image) }
        return out
    }

    /// Default parameters on a 128x96 canvas (chroma 64x48), a trail swinging by up to 9 px
    /// with a varying motion (some frames without any), noise pictures. For several starts s
    /// before frame A: two renderers from two different noise pictures as the previous output
    /// differ only on pixels the taint marks for s; from the pre-roll `SnakePreRoll` picks they
    /// are equal everywhere; one frame later the taint is not empty (the proof's pre-roll is
    /// the shortest it can give), and from the frame before A the pictures do differ.
    /// (Not tested: that every tainted pixel differs. Where a pixel takes a small weight of its
    /// own previous value, integer rounding often erases the old trail before the taint ends;
    /// on canvases under about 46 px, the front quad does not even cover those pixels.)
    func testTwoInitialStatesAgreeWhereverTheTaintSaysTheyMust() {
        let w = 128, h = 96, a = 70
        let p = SnakeParameters()
        var noise = Noise(seed: 13)
        let frames = (0...a).map { _ in noise.picture(w, h) }
        let motions: [SnakeMotion?] = (0...a).map { k in
            let t = Double(k)
            let ax: Double = 2 * sin(t * 0.6), ay: Double = 1.4 * cos(t * 0.36)
            return k % 11 == 5 ? nil : SnakeMotion(ax: ax, ay: ay, time: t / 30)
        }
        var trail = SnakeTrail()
        var before: [SnakeTrail] = [], shifts: [(dx: Double, dy: Double)] = []
        for m in motions {
            before.append(trail)
            trail.advance(m, damping: p.damping)
            shifts.append(trail.shift(p, width: w, height: h))
        }
        XCTAssertGreaterThan(shifts.map { abs($0.dx) }.max()!, 2, "the trail does move")
        XCTAssertLessThan(shifts.map { abs($0.dx) }.max()!, 20, "and stays on the canvas")
        let d = SnakePreRoll.frames(before: a, width: w, height: h, parameters: p) { shifts[$0] }
        XCTAssertGreaterThan(d, 1); XCTAssertLessThan(d, a)

        let x = noise.picture(w, h), y = noise.picture(w, h)
        for s in Set([a - d - 2, a - d, a - d + 1, a - d + 3, a - 1]).sorted() where s >= 0 && s <= a {
            let ox = run(from: s, to: a, initial: x, frames: frames, motions: motions, before: before[s], parameters: p)
            let oy = run(from: s, to: a, initial: y, frames: frames, motions: motions, before: before[s], parameters: p)
            let taint = SnakeTaint(width: w, height: h, parameters: p)
            taint.begin(at: s)
            for k in s...a { taint.render(frame: k, shift: shifts[k]) }
            var differing = 0, tainted = 0
            for (plane, kind, px, py) in [(\YUVImage.y, SnakeTaint.PlaneKind.luma, w, h), (\YUVImage.u, .chroma, w / 2, h / 2), (\YUVImage.v, .chroma, w / 2, h / 2)] {
                for j in 0..<py {
                    for i in 0..<px {
                        let isTainted = taint.earliestTaint(kind, x: i, y: j).map { $0 <= s } ?? false
                        if isTainted { tainted += 1 }
                        if ox.image[keyPath: plane][i, j] != oy.image[keyPath: plane][i, j] {
                            differing += 1
                            XCTAssertTrue(isTainted, "start \(s): pixel (\(i), \(j)) differs but is not tainted")
                        }
                    }
                }
            }
            if s <= a - d {
                XCTAssertEqual(tainted, 0, "start \(s)"); XCTAssertEqual(differing, 0, "start \(s)")
            } else {
                XCTAssertGreaterThan(tainted, 0, "start \(s)")
            }
            if s == a - 1 { XCTAssertGreaterThan(differing, 100, "start \(s): the old trail shows") }
        }
    }
}
