import Motion
import MotionIO
import XCTest

final class TraceFileWriterTests: TraceFileTestCase {
    let samples = [
        IMUReading(t: -5, gyro: SIMD3(0.1, -0.2, 1e-7), accel: SIMD3(9.80665, 0, -1.5)),
        IMUReading(t: 1_000_000_007, gyro: SIMD3(3.25, 0, -0.000001), accel: SIMD3(0.1, 0.2, 0.3))
    ]

    func roundTrip(_ format: TraceFormat, info: TraceInfo) throws -> (TraceFileReader, [IMUReading], String) {
        let path = scratch.appendingPathComponent("out.\(format.rawValue)").path
        let w = try TraceFileWriter(path: path, format: format, info: info, hasAccel: true)
        try w.write(samples)
        try w.finish()
        let r = try TraceFileReader(path: path, format: format)
        return (r, try r.next(), try String(contentsOfFile: path, encoding: .utf8))
    }

    func testCSVRoundTripIsExact() throws {
        let (r, back, text) = try roundTrip(.csv, info: TraceInfo(deviceName: "d", sourceURI: "x"))
        XCTAssertEqual(back.map(\.t), samples.map(\.t))
        for (a, b) in zip(back, samples) { XCTAssertTrue(a.gyro == b.gyro && a.accel! == b.accel!) }
        XCTAssertTrue(r.hasAccel)
        XCTAssertTrue(text.hasPrefix("t_ns,gx,gy,gz,ax,ay,az\n-5,0.1,-0.2,1e-07,9.80665,0.0,-1.5\n"))
    }

    func testGCSVRoundTripKeepsNanosecondsAndWritesAccelInG() throws {
        let info = TraceInfo(deviceName: "bmi160", sourceURI: "ip:host", orientation: "xzY", metadata: ["note": "n"])
        let (r, back, text) = try roundTrip(.gcsv, info: info)
        XCTAssertEqual(back.map(\.t), samples.map(\.t))
        for (a, b) in zip(back, samples) {
            XCTAssertTrue(a.gyro == b.gyro)
            XCTAssertEqual(a.accel!.x, b.accel!.x, accuracy: 1e-12); XCTAssertEqual(a.accel!.z, b.accel!.z, accuracy: 1e-12)
        }
        XCTAssertEqual(r.info.deviceName, "bmi160"); XCTAssertEqual(r.info.orientation, "xzY"); XCTAssertEqual(r.info.metadata["note"], "n")
        XCTAssertTrue(text.contains("\n-5,0.1,-0.2,1e-07,1.0,0.0,"), text)  // 9.80665 m/s^2 written as 1 g
    }

    func testUnknownOrientationIsWrittenAsIdentity() throws {
        let (r, _, _) = try roundTrip(.gcsv, info: TraceInfo(deviceName: "", sourceURI: "ip:host"))
        XCTAssertEqual(r.info.orientation, "XYZ")
        XCTAssertEqual(r.info.deviceName, "lockstep")
    }
}
