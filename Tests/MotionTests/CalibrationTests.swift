import Foundation
import Motion
import MotionIO
import XCTest

final class CalibrationTests: XCTestCase {
    func testOrientationStringsAsGyroflowWritesThem() {
        XCTAssertEqual(AxisMapping.orientation("XYZ").rows, [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
        let m = AxisMapping.orientation("xzY")
        let v = m.apply((1, 2, 3))
        XCTAssertEqual(v.0, -1); XCTAssertEqual(v.1, -3); XCTAssertEqual(v.2, 2)
        XCTAssertFalse(AxisMapping.isValidOrientation("xxY"))
    }

    func testProfilesRoundTripThroughJSONWithStringOrMatrixMappings() throws {
        let dir = FileManager.default.temporaryDirectory
        let a = Calibration(name: "cam", axisMapping: .matrix([[0, 1, 0], [1, 0, 0], [0, 0, -1]]), gyroBias: [0.01, -0.02, 0.003],
                            timeOffsetMs: 87, horizontalFOVDeg: 90, frameReadoutMs: 16)
        let url = dir.appendingPathComponent("cal-\(UUID()).json")
        try a.save(url)
        XCTAssertEqual(try Calibration.load(url), a)
        XCTAssertEqual(a.focalLength(forWidth: 1920)!, 960, accuracy: 1e-9, "90 degrees across 1920 px: f = 960")
        try Data(#"{"name":"x","axisMapping":"xqz","gyroBias":[0,0,0],"timeOffsetMs":0}"#.utf8).write(to: url)
        XCTAssertThrowsError(try Calibration.load(url)) { XCTAssertTrue("\($0)".contains("is not an orientation like XYZ or xzY"), "\($0)") }
        try Data(#"{"name":"x","axisMapping":"XYZ","gyroBias":[0,0],"timeOffsetMs":0}"#.utf8).write(to: url)
        XCTAssertThrowsError(try Calibration.load(url)) { XCTAssertEqual("\($0)", "\(url.path): gyroBias needs 3 numbers (x, y, z)") }
    }
}
