import Foundation
import Motion
import TestSupport
import XCTest

@testable import Lockstep

/// What calibrate refuses to write and what --force writes anyway (issue 22), on the synthetic
/// camera of CalibrateJobTests (decoded once), and the refusals' sentences, which name the
/// real cause: a clip that does not match the trace, a stabilised picture, a focal length no
/// lens has.
final class CalibrateFloorTests: XCTestCase {
    static var video: String { CalibrateJobTests.video }

    func request(_ readings: [IMUReading], force: Bool = false, records: VideoMotionRecords = VideoMotionRecords()) -> CalibrateRequest {
        var r = CalibrateRequest(video: Self.video, readings: readings, base: Calibration(name: "s"))
        r.force = force
        r.records = records
        return r
    }

    /// A gyro of some other motion (sums of sines the synthetic camera never made), at the
    /// trace's own times. (The trace played backwards, another such gyro, happens to peak above
    /// 0.5 at the edge of the default search range, where a peak may mean an offset beyond it:
    /// calibrate then names the search range, rightly.)
    func reversed() throws -> [IMUReading] {
        try CalibrateJobTests.readings().map { r in
            let t = Double(r.t) / 1e9
            return IMUReading(t: r.t, gyro: SIMD3(0.3 * sin(2.1 * t) + 0.1 * sin(6.1 * t + 2), 0.25 * cos(3.7 * t + 1), 0.1 * sin(5.3 * t)))
        }
    }

    /// Another motion's trace: refused, naming the cause; never "the search range".
    func testAnotherMotionIsRefusedNamingTheCause() throws {
        let motion = try CalibrateJobTests.motion()
        XCTAssertThrowsError(try CalibrateJob.calibrate(request(try reversed()), motion: motion)) { error in
            let e = error as! CalibrationError
            XCTAssertTrue(e.description.hasPrefix("\(Self.video): "), e.description)
            XCTAssertTrue(e.description.contains("the clip does not match the trace"), e.description)
            XCTAssertFalse(e.description.contains("search range"), "not the search range: \(e.description)")
        }
    }

    /// The floor itself, on a right answer whose confidence is set below it: refused with the
    /// floor's sentence unless forced; forced, written with the warning.
    func testBelowTheFloorNothingIsWrittenUnlessForced() throws {
        let motion = try CalibrateJobTests.motion()
        var result = try CalibrateJob.calibrate(request(try CalibrateJobTests.readings()), motion: motion)
        XCTAssertGreaterThan(result.sync.confidence, 0.9)
        XCTAssertFalse(result.warnings.contains { $0.contains("--force") })
        result.sync.confidence = 0.42
        var held = result
        XCTAssertThrowsError(try CalibrateJob.checkFloor(&held, request: request([]), width: motion.displaySize.width)) { error in
            let e = error as! CalibrationError
            XCTAssertEqual(e.cause, .lowConfidence)
            XCTAssertTrue(e.description.hasPrefix("\(Self.video): no profile written: "), e.description)
            XCTAssertTrue(e.description.hasSuffix("; its confidence is 0.42, below the floor of 0.50. Give --force to write it anyway"), e.description)
        }
        try CalibrateJob.checkFloor(&result, request: request([], force: true), width: motion.displaySize.width)
        XCTAssertTrue(result.warnings.last?.hasPrefix("warning: --force: writing a profile no one should trust: ") ?? false, "\(result.warnings)")
        XCTAssertTrue(result.warnings.last?.hasSuffix("its confidence is 0.42, below the floor of 0.50") ?? false, "\(result.warnings)")
    }

    /// A picture that moves a 25th as much as the gyro says (0.22 px per frame, just above the
    /// 0.2 that counts as motion): a focal length of about 12 px, a field of view past 170 degrees
    /// on the 320 px picture. Refused, naming it; --force writes it with a warning.
    func testAFocalLengthNoLensHasIsRefused() throws {
        var motion = try CalibrateJobTests.motion()
        motion.shifts = motion.shifts.map { VideoShift(from: $0.from, to: $0.to, dx: $0.dx / 25, dy: $0.dy / 25, roll: $0.roll) }
        motion.blocks = nil
        XCTAssertThrowsError(try CalibrateJob.calibrate(request(try CalibrateJobTests.readings()), motion: motion)) { error in
            let e = error as! CalibrationError
            XCTAssertEqual(e.cause, .implausibleFocalLength)
            XCTAssertTrue(e.description.contains("gives a horizontal field of view of ") && e.description.contains("outside the 20-170 degrees a lens can have"), e.description)
            XCTAssertTrue(e.description.hasSuffix("Give --force to write it anyway"), e.description)
        }
        let forced = try CalibrateJob.calibrate(request(try CalibrateJobTests.readings(), force: true), motion: motion)
        XCTAssertEqual(try XCTUnwrap(forced.profile.focalLengthPx), 12, accuracy: 2)
        XCTAssertTrue(forced.warnings.contains { $0.hasPrefix("warning: --force: writing a profile no one should trust: its estimated focal length") }, "\(forced.warnings)")
    }

    /// A file that says the camera stabilised the picture, with no image orientation: a
    /// decisive match is kept with a warning (the synthetic camera is not stabilised, so it
    /// matches decisively); a trace of another motion is refused for the stabilisation.
    func testAStabilisedPictureWithoutImageOrientation() throws {
        let motion = try CalibrateJobTests.motion()
        var records = VideoMotionRecords()
        records.stabilisation = InCameraStabilisation(enabled: true, mode: "HS EIS", source: "GPMF EISE \"Y\", EISA \"HS EIS\"")
        let decisive = try CalibrateJob.calibrate(request(try CalibrateJobTests.readings(), records: records), motion: motion)
        XCTAssertTrue(
            decisive.warnings.first?.hasPrefix(
                "warning: the camera stabilised this picture (GPMF EISE \"Y\", EISA \"HS EIS\") and the file records no image orientation, yet the picture follows the gyro decisively") ?? false,
            "\(decisive.warnings)")
        XCTAssertThrowsError(try CalibrateJob.calibrate(request(try reversed(), records: records), motion: motion)) { error in
            let e = error as! CalibrationError
            XCTAssertEqual(e.cause, .stabilised)
            XCTAssertTrue(
                e.description.hasPrefix(
                    "\(Self.video): the camera stabilised this picture (GPMF EISE \"Y\", EISA \"HS EIS\") and the file records no image orientation (IORI), so the picture does not follow the gyro"),
                e.description)
            XCTAssertTrue(
                e.description.hasSuffix("Calibrate on a clip recorded with stabilisation off (HyperSmooth off), or from a camera that records its image orientation (GoPro HERO8 or later, MAX)"),
                e.description)
        }
    }
}
