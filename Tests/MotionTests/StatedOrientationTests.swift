import Foundation
import Motion
import XCTest

/// A stated orientation is a prior the picture must confirm; the roll makes the third axis
/// observable. The rig is SyntheticRig (GyroSyncTests) for pan and tilt; the roll camera below
/// turns about all three axes.
final class StatedOrientationTests: XCTestCase {
    func testARightStatedOrientationIsKept() throws {
        var rig = SyntheticRig()
        rig.mapping = .orientation("YxZ")
        rig.seconds = 6
        let (shifts, readings) = rig.make()
        var o = GyroSync.Options(searchMs: 600)
        o.statedMapping = .orientation("YxZ")
        let r = try GyroSync.run(shifts: shifts, readings: readings, options: o)
        XCTAssertEqual(r.mapping, .orientation("YxZ"))
        let stated = try XCTUnwrap(r.stated)
        XCTAssertEqual(stated.orientation, "YxZ")
        XCTAssertFalse(stated.overridden)
        XCTAssertEqual(try XCTUnwrap(stated.score), r.searchScore, accuracy: 1e-12)
        XCTAssertEqual(r.clock.offsetMs(atVideo: 0), 143, accuracy: 1)
    }

    /// A logger that states the wrong axes: the one that fits is used, and the stated one's score
    /// is kept for the line that says so.
    func testAWrongStatedOrientationIsOverriddenWhenAnotherFitsDecisively() throws {
        var rig = SyntheticRig()
        rig.mapping = .orientation("YxZ")
        rig.seconds = 6
        let (shifts, readings) = rig.make()
        for wrong in ["XYZ", "xzY", "yXZ"] {
            var o = GyroSync.Options(searchMs: 600)
            o.statedMapping = .orientation(wrong)
            let r = try GyroSync.run(shifts: shifts, readings: readings, options: o)
            XCTAssertEqual(r.mapping, .orientation("YxZ"), wrong)
            let stated = try XCTUnwrap(r.stated, wrong)
            XCTAssertTrue(stated.overridden, wrong)
            XCTAssertLessThan(stated.score ?? -1, r.searchScore - 0.05, wrong)
            XCTAssertEqual(r.clock.offsetMs(atVideo: 0), 143, accuracy: 1, wrong)
        }
    }

    func testTheDecisiveRule() {
        XCTAssertTrue(GyroSync.overrides(stated: 0.3, best: 0.99))
        XCTAssertTrue(GyroSync.overrides(stated: nil, best: 0.6))
        XCTAssertFalse(GyroSync.overrides(stated: nil, best: 0.45), "no usable match: keep what was stated")
        XCTAssertFalse(GyroSync.overrides(stated: 0.97, best: 0.99), "a close call keeps the stated one")
        XCTAssertFalse(GyroSync.overrides(stated: 0.9, best: 0.93), "not half the misfit")
        XCTAssertTrue(GyroSync.overrides(stated: 0.8, best: 0.95))
    }

    /// A camera that rolls as much as it pans: with the roll in the match the z row is seen, so
    /// the mapping is found whole (a global shift alone finds two rows and guesses the third by
    /// handedness), and an improper stated mapping (its z row flipped) is beaten.
    func testRollMakesTheThirdAxisObservable() throws {
        let f = 300.0, fps = 30.0, seconds = 6.0
        let m: [[Double]] = [[0, 0, -1], [-1, 0, 0], [0, 1, 0]]  // camera = m * imu: "zxY"
        func rate(_ v: Double) -> SIMD3<Double> {
            SIMD3(0.4 * sin(1.7 * v) + 0.15 * sin(4.1 * v + 1), 0.5 * cos(1.1 * v + 0.3) + 0.2 * sin(3.3 * v), 0.6 * sin(2.3 * v + 2) + 0.2 * cos(5.1 * v))
        }
        func integral(_ a: Double, _ b: Double) -> SIMD3<Double> {
            let n = 40, h = (b - a) / Double(n)
            var s = SIMD3<Double>(0, 0, 0)
            for i in 0...n { s += rate(a + Double(i) * h) * ((i == 0 || i == n) ? 1 : (i % 2 == 1 ? 4 : 2)) }
            return s * (h / 3)
        }
        var shifts: [VideoShift] = []
        for k in 0..<Int(seconds * fps) - 1 {
            let a = Double(k) / fps, b = Double(k + 1) / fps, i = integral(a, b)
            shifts.append(VideoShift(from: Int64(a * 1e9), to: Int64(b * 1e9), dx: -f * i.y, dy: f * i.x, roll: i.z))
        }
        var readings: [IMUReading] = []
        for k in -200...1400 {
            let t = Double(k) / 200, c = rate(t + 0.05)  // video = imu + 50 ms
            readings.append(IMUReading(t: Int64(k) * 5_000_000, gyro: SIMD3((0..<3).map { j in (0..<3).reduce(0.0) { $0 + m[$1][j] * c[$1] } })))
        }
        var o = GyroSync.Options(searchMs: 400)
        o.rollWeightPx = f
        let r = try GyroSync.run(shifts: shifts, readings: readings, options: o)
        XCTAssertEqual(r.mapping, .orientation("zxY"))
        XCTAssertEqual(r.clock.offsetMs(atVideo: 0), 50, accuracy: 0.5)
        // The improper twin (z row flipped) stated: beaten, with the roll; without it, a tie keeps it.
        o.statedMapping = .orientation("zxy")
        let withRoll = try GyroSync.run(shifts: shifts, readings: readings, options: o)
        XCTAssertEqual(withRoll.mapping, .orientation("zxY"))
        XCTAssertEqual(withRoll.stated?.overridden, true)
        o.rollWeightPx = 0
        let without = try GyroSync.run(shifts: shifts, readings: readings, options: o)
        XCTAssertEqual(without.mapping, .orientation("zxy"), "pan and tilt alone cannot tell the z row's sign")
        XCTAssertEqual(without.stated?.overridden, false)
    }
}
