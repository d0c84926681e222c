import Foundation
import TestSupport
import XCTest

/// A blackbox header line longer than the decoder reads (issue 40 C) is the reason given: the
/// line was cut at 4096 bytes and the header ended there, so a 10,000-field name line read as
/// "defines 839 I frame fields", and a 100 kB firmware line before gyro_scale as "no usable
/// gyro_scale".
final class BlackboxHeaderLineTests: ScratchFolderTestCase {
    func log(_ name: String, _ lines: [String]) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        let text = (["Product:Blackbox flight data recorder by Nicholas Sherlock", "Data version:2"] + lines).map { "H \($0)\n" }.joined()
        try Data(text.utf8 + [0x49, 0x00, 0x00, 0x00, 0x00, 0x00]).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `imu import` and `imu info` both refuse `file` with `reason`, and no store is made.
    func assertRefused(_ file: String, _ reason: String) throws {
        let store = scratch.appendingPathComponent("s.sqlite").path
        for args in [["imu", "import", file, "-o", store], ["imu", "info", file]] {
            let r = try Processes.lockstep(args)
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertEqual(r.stderr, "Error: \(file): a blackbox log, but \(reason)\n", "\(args)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: store))
    }

    func testAHeaderOfTenThousandFieldsSaysSo() throws {
        let count = 10_000
        let names = "Field I name:loopIteration,time,gyroADC[0],gyroADC[1],gyroADC[2]," + (5..<count).map { "debug[\($0)]" }.joined(separator: ",")
        let zeros = Array(repeating: "0", count: count).joined(separator: ",")
        let file = try log(
            "wide.bbl",
            [names, "Field I signed:" + zeros, "Field I predictor:" + zeros, "Field I encoding:" + zeros, "Field P predictor:" + zeros, "Field P encoding:" + zeros, "gyro_scale:0x3f800000"])
        try assertRefused(file, "its header line 'Field I name' is \(names.utf8.count) bytes long, over the 4096 a header line may have (it names 10000 fields)")
    }

    func testALongFirmwareLineIsTheReasonNotGyroScale() throws {
        let firmware = "Firmware revision:" + String(repeating: "x", count: 100_000)
        let file = try log(
            "firmware.bbl",
            [
                "Field I name:loopIteration,time,gyroADC[0],gyroADC[1],gyroADC[2]", "Field I signed:0,0,1,1,1", "Field I predictor:0,0,0,0,0",
                "Field I encoding:1,1,0,0,0", "Field P predictor:6,2,1,1,1", "Field P encoding:9,0,0,0,0", firmware, "gyro_scale:0x3f800000"
            ])
        try assertRefused(file, "its header line 'Firmware revision' is \(firmware.utf8.count) bytes long, over the 4096 a header line may have")
    }
}
