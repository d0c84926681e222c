import Foundation
import Motion
import XCTest

/// Per-frame orientation records turned into turns and rates, checked against rotations built
/// here from an axis and an angle.
final class OrientationRecordsTests: XCTestCase {
    func q(_ angle: Double, _ axis: SIMD3<Double>) -> Quaternion { Quaternion(angle: angle, axis: axis / (axis * axis).sum().squareRoot()) }

    func testRotationVectorIsAxisTimesAngleTheShortWay() {
        let v = OrientationRecords.rotationVector(q(0.3, SIMD3(1, 2, 2)))
        XCTAssertEqual(v.x, 0.1, accuracy: 1e-12); XCTAssertEqual(v.y, 0.2, accuracy: 1e-12); XCTAssertEqual(v.z, 0.2, accuracy: 1e-12)
        // -q is the same rotation.
        let w = OrientationRecords.rotationVector(Quaternion(real: -q(0.3, SIMD3(1, 2, 2)).w, imaginary: -q(0.3, SIMD3(1, 2, 2)).imaginary))
        XCTAssertEqual(w.x, 0.1, accuracy: 1e-12)
        let back = OrientationRecords.quaternion(SIMD3(0.1, 0.2, 0.2))
        XCTAssertEqual(back.w, cos(0.15), accuracy: 1e-12)
    }

    /// World-to-camera records: the body turning by w (its own axes) between records gives
    /// C_k+1 = exp(-w) C_k, and the turn read back is w.
    func testTurnsOfWorldToCameraRecords() {
        let w = SIMD3(0.02, -0.05, 0.03)
        let c0 = q(0.7, SIMD3(0.3, -1, 0.2))
        let step = OrientationRecords.quaternion(-w)
        let c1 = step * c0
        let turns = OrientationRecords.turns([TimedQuaternion(t: 0, c0), TimedQuaternion(t: 33_000_000, c1)])
        XCTAssertEqual(turns.count, 1)
        XCTAssertEqual(turns[0].omega.x, w.x, accuracy: 1e-12); XCTAssertEqual(turns[0].omega.y, w.y, accuracy: 1e-12)
        XCTAssertEqual(turns[0].omega.z, w.z, accuracy: 1e-12)
        // The records as readings integrate back to the turn (trapezoids over the two readings).
        let r = OrientationRecords.readings([TimedQuaternion(t: 0, c0), TimedQuaternion(t: 33_000_000, c1)])
        XCTAssertEqual(r.count, 2)
        let integral = (r[0].gyro + r[1].gyro) / 2 * (Double(r[1].t - r[0].t) / 1e9)
        XCTAssertEqual(integral.y, w.y * Double(r[1].t - r[0].t) / 33e6, accuracy: 1e-12)
        // The picture's orientation is IORI * CORI.
        let i = q(0.1, SIMD3(0, 0, 1))
        let p = OrientationRecords.picture(camera: [TimedQuaternion(t: 5, c0)], image: [TimedQuaternion(t: 5, i)])
        let expected = i * c0
        XCTAssertEqual(p[0].q.w, expected.w, accuracy: 1e-12); XCTAssertEqual(p[0].q.z, expected.z, accuracy: 1e-12)
    }

    /// Camera-to-world samples (CAMM angle-axis) at 100 Hz of a body turning at a constant
    /// rate: the rate comes back at every midpoint.
    func testRatesFromCameraToWorldOrientations() {
        let w = SIMD3(0.4, -0.9, 0.25)
        var samples: [TimedQuaternion] = []
        for k in 0..<5 {
            let t = Double(k) * 0.01
            samples.append(TimedQuaternion(t: Int64(k) * 10_000_000, q(0.3, SIMD3(1, 1, 0)) * OrientationRecords.quaternion(w * t)))
        }
        let rates = OrientationRecords.rates(cameraToWorld: samples)
        XCTAssertEqual(rates.map(\.t), [5_000_000, 15_000_000, 25_000_000, 35_000_000])
        for r in rates {
            XCTAssertEqual(r.x, w.x, accuracy: 1e-9); XCTAssertEqual(r.y, w.y, accuracy: 1e-9); XCTAssertEqual(r.z, w.z, accuracy: 1e-9)
        }
    }
}
