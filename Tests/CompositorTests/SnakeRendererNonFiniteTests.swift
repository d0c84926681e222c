import Compositor
import XCTest

/// A trace of 1e308 rad/s drove the trail's velocity to infinity, then NaN, and the quad's
/// table trapped on Int(NaN) (scripts/tools/adversarial-sweep, `snake --imu trace-1e308.csv`).
final class SnakeRendererNonFiniteTests: XCTestCase {
    func testAnInfiniteMotionNeitherTrapsNorLeavesTheTrailAtInfinity() {
        let r = SnakeRenderer(width: 16, height: 16)
        let src = YUVBuffer(width: 16, height: 16), out = YUVBuffer(width: 16, height: 16)
        PlaneKernels.fill(src.image, YUVColor(y: 200, u: 128, v: 128))
        withExtendedLifetime(src) {
            r.render(src.image, motion: SnakeMotion(ax: 1e308, ay: -1e308, time: 0), into: out.image)
            r.render(src.image, motion: SnakeMotion(ax: .infinity, ay: .nan, time: 1), into: out.image)
        }
        XCTAssertEqual(r.velocity.x, 0)
        XCTAssertEqual(r.velocity.y, 0)
        XCTAssertEqual(out.image.y[8, 8], 200, "the current frame is still drawn at the centre")
    }
}
