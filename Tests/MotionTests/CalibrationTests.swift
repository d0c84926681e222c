import Foundation
import Motion
import MotionIO
import XCTest

final class CalibrationTests: XCTestCase {
    func testOrientationStringsAsGyroflowWritesThem() {
        XCTAssertEqual(AxisMapping.orientation("XYZ").rows, [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
        let m = AxisMapping.orientation("xzY")
        let v = m.apply(SIMD3(1, 2, 3))
        XCTAssertEqual(v, SIMD3(-1, -3, 2))
        XCTAssertFalse(AxisMapping.isValidOrientation("xxY"))
    }

    func testProfilesRoundTripThroughJSONWithStringOrMatrixMappings() throws {
        let dir = FileManager.default.temporaryDirectory
        let a = Calibration(
            name: "cam", axisMapping: .matrix([[0, 1, 0], [1, 0, 0], [0, 0, -1]]), gyroBias: [0.01, -0.02, 0.003],
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

    static let profiles = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Calibration")

    /// Profiles written before calibrate knew drift, sync points, the mapping's source or the
    /// confidence still load, with those fields absent.
    func testProfilesWithoutTheNewFieldsStillLoad() throws {
        for name in ["generic.json", "synthetic-camera.json"] {
            let c = try Calibration.load(Self.profiles.appendingPathComponent(name))
            XCTAssertNil(c.clockDriftPpm, name); XCTAssertNil(c.clockPieces, name); XCTAssertNil(c.syncPoints, name)
            XCTAssertNil(c.axisMappingSource, name); XCTAssertNil(c.focalLengthEstimated, name); XCTAssertNil(c.confidence, name)
            XCTAssertEqual(c.clock, .constant(offsetMs: c.timeOffsetMs), name)
        }
    }

    func testTheNewFieldsRoundTripWithTheContractsNames() throws {
        var a = Calibration(name: "cam", focalLengthPx: 512)
        a.clock = ClockMapping(pieces: [.init(fromVideoS: 0, offsetMs: 143, driftPpm: 200), .init(fromVideoS: 4.02, offsetMs: 93, driftPpm: 200)])
        a.syncPoints = [SyncPoint(videoTimeS: 1, offsetMs: 143.2, score: 0.98)]
        a.axisMappingSource = .searched
        a.focalLengthEstimated = true
        a.confidence = 0.93
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cal-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try a.save(url)
        XCTAssertEqual(try Calibration.load(url), a)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        XCTAssertEqual(json["axisMappingSource"] as? String, "searched")
        XCTAssertEqual(json["timeOffsetMs"] as? Double, 143)
        XCTAssertEqual(json["clockDriftPpm"] as? Double, 200)
        XCTAssertEqual((json["clockPieces"] as? [[String: Any]])?.count, 2)
        XCTAssertEqual((json["syncPoints"] as? [[String: Any]])?.first?["videoTimeS"] as? Double, 1)
        XCTAssertEqual(json["focalLengthEstimated"] as? Bool, true)
    }

    /// Every key a profile can hold (all fields set, so none is left out of the JSON), with the
    /// pieces' and sync points' own keys, has a row or a mention in Calibration/README.md.
    func testEveryFieldAProfileCanHoldIsDocumented() throws {
        var a = Calibration(
            name: "cam", axisMapping: .orientation("YXz"), gyroBias: [0.01, 0, 0], timeOffsetMs: 1,
            focalLengthPx: 500, horizontalFOVDeg: 70, frameReadoutMs: 10)
        a.clock = ClockMapping(pieces: [.init(fromVideoS: 0, offsetMs: 1, driftPpm: 20), .init(fromVideoS: 4, offsetMs: -49, driftPpm: 20)])
        a.syncPoints = [SyncPoint(videoTimeS: 1, offsetMs: 1, score: 0.9)]
        a.axisMappingSource = .searched
        a.focalLengthEstimated = true
        a.confidence = 0.9
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: a.encoded()) as? [String: Any])
        var keys = Set(json.keys)
        for nested in ["clockPieces", "syncPoints"] {
            for item in try XCTUnwrap(json[nested] as? [[String: Any]]) { keys.formUnion(item.keys) }
        }
        XCTAssertGreaterThanOrEqual(keys.count, 18, "\(keys.sorted())")
        let readme = try String(contentsOf: Self.profiles.appendingPathComponent("README.md"), encoding: .utf8)
        for key in keys.sorted() {
            XCTAssertTrue(readme.contains("`\(key)`") || readme.contains("\"\(key)\""), "Calibration/README.md does not document \(key)")
        }
        for source in ["given", "profile", "trace", "searched"] { XCTAssertTrue(readme.contains("`\"\(source)\"`"), source) }
    }
}
