import Compositor
import TestSupport
import XCTest

/// The bracket (`SnakeBracket`): a pre-roll from the all-0 and the all-255 previous output that
/// agree at frame A makes frame A the same from any previous output, where the taint
/// (`SnakeTaint`) cannot end because the trail keeps feeding pixels from themselves.
final class SnakeBracketTests: XCTestCase {
    typealias Noise = SnakeTaintTests.Noise

    /// A steady pan: the trail's velocity held where the damping keeps it (v = (v + a dt) d),
    /// so every frame shifts the trail by the same amount.
    static func steadyPan(frames n: Int, ax: Double, ay: Double, parameters p: SnakeParameters) -> (motions: [SnakeMotion?], before: [SnakeTrail], shifts: [(dx: Double, dy: Double)], width: Int, height: Int) {
        let dt = 1.0 / 30, w = 48, h = 32
        var trail = SnakeTrail()
        trail.vx = ax * dt * p.damping / (1 - p.damping); trail.vy = ay * dt * p.damping / (1 - p.damping)
        trail.lastMotionTime = -dt
        var before: [SnakeTrail] = [], shifts: [(dx: Double, dy: Double)] = []
        let motions: [SnakeMotion?] = (0..<n).map { SnakeMotion(ax: ax, ay: ay, time: Double($0) * dt) }
        for m in motions {
            before.append(trail)
            trail.advance(m, damping: p.damping)
            shifts.append(trail.shift(p, width: w, height: h))
        }
        return (motions, before, shifts, w, h)
    }

    func testProbe() {
        let p = SnakeParameters()
        for ax in [0.5, 1.0, 1.3, 2.0, 3.0] {
            for ay in [0.0, 0.7] {
                let a = 80
                let pan = Self.steadyPan(frames: a + 1, ax: ax, ay: ay, parameters: p)
                var noise = Noise(seed: 7)
                let frames = (0...a).map { _ in noise.picture(pan.width, pan.height) }
                let taintD = SnakePreRoll.frames(before: a, width: pan.width, height: pan.height, parameters: p) { pan.shifts[$0] }
                let window = SnakeBracketWindow(first: 0, last: a, width: pan.width, height: pan.height, parameters: p)
                for k in 0...a { window.store(k, picture: frames[k].image, motion: pan.motions[k], trailBefore: pan.before[k]) }
                print("PROBE ax \(ax) ay \(ay) shift \(pan.shifts[a]) taint \(taintD) bracket \(String(describing: window.shortestPreRoll()))")
            }
        }
    }
}
