import Motion
import XCTest

/// The vector and rotation types of the motion values, and their synthesized equality.
final class QuaternionTests: XCTestCase {
    func testAQuarterTurnAboutZTakesXToY() {
        let q = Quaternion(angle: .pi / 2, axis: SIMD3(0, 0, 1))
        let v = q.act(on: SIMD3(1, 0, 0))
        XCTAssertEqual(v.x, 0, accuracy: 1e-12); XCTAssertEqual(v.y, 1, accuracy: 1e-12); XCTAssertEqual(v.z, 0, accuracy: 1e-12)
        // Two quarter turns are a half turn; the conjugate turns back.
        let back = q.conjugate.act(on: (q * q).act(on: SIMD3(1, 0, 0)))
        XCTAssertEqual(back.x, 0, accuracy: 1e-12); XCTAssertEqual(back.y, 1, accuracy: 1e-12)
        XCTAssertEqual(q.length, 1, accuracy: 1e-12)
        XCTAssertEqual(SIMD3<Double>(1, 0, 0).cross(SIMD3(0, 1, 0)), SIMD3(0, 0, 1))
    }

    func testEqualityComparesEveryField() {
        // The hand-written == compared time and gyro only: readings with other accelerations were "equal".
        let a = IMUReading(t: 5, gyro: SIMD3(1, 2, 3), accel: SIMD3(0, 0, 9.8))
        XCTAssertEqual(a, IMUReading(t: 5, gyro: SIMD3(1, 2, 3), accel: SIMD3(0, 0, 9.8)))
        XCTAssertNotEqual(a, IMUReading(t: 5, gyro: SIMD3(1, 2, 3), accel: SIMD3(0, 1, 9.8)))
        XCTAssertNotEqual(a, IMUReading(t: 5, gyro: SIMD3(1, 2, 3)))
        let s = MotionSample(time: 1, rotationRate: SIMD3(0, 0, 1), attitude: .identity, gravity: SIMD3(0, 0, 1))
        XCTAssertEqual(s, MotionSample(time: 1, rotationRate: SIMD3(0, 0, 1), attitude: .identity, gravity: SIMD3(0, 0, 1)))
        XCTAssertNotEqual(s, MotionSample(time: 1, rotationRate: SIMD3(0, 0, 1), attitude: .identity, gravity: SIMD3(0, 1, 0)))
        XCTAssertNotEqual(s, MotionSample(time: 1, rotationRate: SIMD3(0, 0, 1)))
    }
}
