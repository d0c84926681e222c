import Foundation
import Motion
import MotionIO
import XCTest

/// Profiles as users get them wrong (scripts/tools/adversarial-sweep, second pass): values no device
/// has, files that are not profiles, JSON that is not one.
final class CalibrationProfileBoundsTests: XCTestCase {
    func decode(_ json: String) -> String {
        do { _ = try Calibration.decode(Data(json.utf8), source: "p.json"); return "accepted" } catch { return "\(error)" }
    }

    static let base = #""name":"x","axisMapping":"XYZ","gyroBias":[0,0,0],"frameReadoutMs":0"#

    // timeOffsetMs 1e300 passed into the snake's integer nanoseconds.
    func testValuesNoDeviceHasAreRefusedNamingTheField() {
        XCTAssertEqual(decode("{\(Self.base),\"timeOffsetMs\":1e300}"), "p.json: timeOffsetMs must be between -3600000 and 3600000")
        XCTAssertEqual(decode("{\(Self.base),\"timeOffsetMs\":0,\"focalLengthPx\":-5}"), "p.json: focalLengthPx must be above 0 and at most 1000000")
        XCTAssertEqual(decode("{\(Self.base),\"timeOffsetMs\":0,\"horizontalFOVDeg\":0}"), "p.json: horizontalFOVDeg must be above 0 and below 180")
        XCTAssertEqual(
            decode(#"{"name":"x","axisMapping":"XYZ","gyroBias":[0,0,0],"timeOffsetMs":0,"frameReadoutMs":1e308}"#),
            "p.json: frameReadoutMs must be between 0 and 10000")
        XCTAssertEqual(
            decode(#"{"name":"x","axisMapping":"XYZ","gyroBias":[0,0,0],"timeOffsetMs":0,"frameReadoutMs":16,"frameReadoutUncertaintyMs":-1}"#),
            "p.json: frameReadoutUncertaintyMs must be between 0 and 10000")
        XCTAssertEqual(
            decode(#"{"name":"x","axisMapping":"XYZ","gyroBias":[0,1e9,0],"timeOffsetMs":0}"#),
            "p.json: gyroBias must be 3 numbers between -100 and 100 rad/s")
        XCTAssertEqual(
            decode("{\(Self.base),\"timeOffsetMs\":0,\"clockPieces\":[{\"fromVideoS\":0,\"offsetMs\":1e200,\"driftPpm\":0}]}"),
            "p.json: clockPieces: each needs fromVideoS, offsetMs within an hour and driftPpm within 100000")
        XCTAssertEqual(decode("{\(Self.base),\"timeOffsetMs\":87.5,\"focalLengthPx\":300,\"clockDriftPpm\":12}"), "accepted")
    }

    // The message was DecodingError's whole nested dump (the JSON parser's NSError inside).
    func testJSONThatIsNotAProfileIsSaidInAFewWords() {
        XCTAssertEqual(decode("{}"), "p.json: not a calibration profile (no name)")
        XCTAssertEqual(decode(#"{"name":5}"#), "p.json: not a calibration profile (name: Expected to decode String but found number instead.)")
        XCTAssertTrue(decode("this is not json").hasPrefix("p.json: not a calibration profile (The given data was not valid JSON."), decode("this is not json"))
    }

    // /dev/zero was read until memory ran out; a FIFO blocked before any signal handling.
    func testOnlyARegularFileOfProfileSizeIsRead() throws {
        XCTAssertThrowsError(try Calibration.load(URL(fileURLWithPath: "/dev/zero"))) {
            XCTAssertEqual("\($0)", "/dev/zero: not a calibration profile (not a regular file)")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("calbounds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("p.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertThrowsError(try Calibration.load(URL(fileURLWithPath: fifo))) { XCTAssertEqual("\($0)", "\(fifo): not a calibration profile (not a regular file)") }
        let big = dir.appendingPathComponent("big.json")
        try Data(count: 2 << 20).write(to: big)
        XCTAssertThrowsError(try Calibration.load(big)) { XCTAssertEqual("\($0)", "\(big.path): not a calibration profile (2097152 bytes; a profile is a few hundred)") }
    }

    // The file-type check looked at a symbolic link itself (FileManager's attributes do not
    // follow it): a profile linked from elsewhere was "not a regular file", and a missing one too.
    func testALinkedProfileLoadsAndAMissingOneSaysWhy() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("callink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let profile = dir.appendingPathComponent("real.json"), link = dir.appendingPathComponent("link.json")
        try Data("{\(Self.base),\"timeOffsetMs\":12.5}".utf8).write(to: profile)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: profile.path)
        XCTAssertEqual(try Calibration.load(link).timeOffsetMs, 12.5)
        let missing = dir.appendingPathComponent("missing.json")
        XCTAssertThrowsError(try Calibration.load(missing)) { XCTAssertEqual("\($0)", "\(missing.path): cannot be read (No such file or directory)") }
        let directory = dir.appendingPathComponent("sub.json")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        XCTAssertThrowsError(try Calibration.load(directory)) { XCTAssertEqual("\($0)", "\(directory.path): not a calibration profile (not a regular file)") }
    }
}
