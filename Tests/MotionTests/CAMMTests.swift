import XCTest

@testable import Motion

/// CAMM packets built by hand from Google's spec (little-endian; uint16 reserved, uint16 type).
final class CAMMTests: XCTestCase {
    func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8)] }
    func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 255) } }
    func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8((v >> (8 * UInt64($0))) & 255) } }
    func f(_ v: Float) -> [UInt8] { le32(v.bitPattern) }
    func d(_ v: Double) -> [UInt8] { le64(v.bitPattern) }
    func header(_ type: UInt16) -> [UInt8] { le16(0) + le16(type) }

    func testEveryPacketType() throws {
        let bytes =
            header(0) + f(0.1) + f(0.2) + f(0.3)
            + header(1) + le32(8_000_000) + le32(UInt32(bitPattern: -5))
            + header(2) + f(1.5) + f(-2.25) + f(0.125)
            + header(3) + f(0) + f(-9.80665) + f(0.5)
            + header(4) + f(1) + f(2) + f(3)
            + header(5) + d(47.5) + d(8.25) + d(400)
            + header(6) + d(1.3e9) + le32(3) + d(47.37) + d(8.54) + f(408) + f(3) + f(5) + f(0.1) + f(0.2) + f(0.3) + f(0.5)
            + header(7) + f(20) + f(-3) + f(41)
        let packets = try CAMM.parse(bytes)
        XCTAssertEqual(
            packets,
            [
                .angleAxis(0.1, 0.2, 0.3),
                .exposure(pixelExposureNs: 8_000_000, rollingShutterSkewNs: -5),
                .gyro(1.5, -2.25, 0.125),
                .acceleration(0, -9.80665, 0.5),
                .position(1, 2, 3),
                .minimalGPS(latitude: 47.5, longitude: 8.25, altitude: 400),
                .gps(
                    timeGPSEpoch: 1.3e9, fixType: 3, latitude: 47.37, longitude: 8.54, altitude: 408, horizontalAccuracy: 3,
                    verticalAccuracy: 5, velocityEast: 0.1, velocityNorth: 0.2, velocityUp: 0.3, speedAccuracy: 0.5),
                .magneticField(20, -3, 41)
            ])
    }

    func testTruncatedUnknownAndEmpty() throws {
        XCTAssertEqual(try CAMM.parse([]), [])
        let gyro = header(2) + f(1) + f(2) + f(3)
        for n in 1..<gyro.count {
            XCTAssertThrowsError(try CAMM.parse(Array(gyro[0..<n])), "cut at \(n)")
        }
        XCTAssertThrowsError(try CAMM.parse(Array(gyro[0..<10]))) { XCTAssertEqual("\($0)", "packet type 2 at byte 0 needs 12 bytes, 6 left") }
        XCTAssertThrowsError(try CAMM.parse(Array(gyro[0..<3]))) { XCTAssertEqual("\($0)", "truncated packet header at byte 0 (3 bytes left, 4 needed)") }
        XCTAssertThrowsError(try CAMM.parse(header(9) + f(0))) { XCTAssertEqual("\($0)", "unknown packet type 9 at byte 0") }
    }

    func testReadTimesEachSampleByItsPacket() throws {
        let packets = [
            TelemetryPacket(bytes: header(2) + f(1) + f(0) + f(0), time: 0.010, duration: 0.005),
            TelemetryPacket(bytes: header(3) + f(0) + f(-9.5) + f(0), time: 0.012, duration: 0.003),
            TelemetryPacket(bytes: header(7) + f(1) + f(1) + f(1), time: 0.013, duration: 0.002),
            TelemetryPacket(bytes: header(2) + f(3) + f(0) + f(0), time: 0.015, duration: 0.005),
            TelemetryPacket(bytes: header(3) + f(0) + f(-9.9) + f(0), time: 0.017, duration: 0.005)
        ]
        let imu = try CAMM.read(packets)
        XCTAssertEqual(imu.gyro.map(\.t), [10_000_000, 15_000_000])
        XCTAssertEqual(imu.accel.map(\.t), [12_000_000, 17_000_000])
        XCTAssertNil(imu.axisMapping)
        XCTAssertEqual(imu.gyroRateHz!, 200, accuracy: 1e-9)
        let r = imu.readings()
        XCTAssertEqual(r.map(\.gyro.x), [1, 3])
        // 10 ms is before the first accelerometer sample (12 ms), within two periods: the nearest.
        XCTAssertEqual(r[0].accel!.y, Double(Float(-9.5)), accuracy: 1e-12)
        // 15 ms: 3/5 of the way from -9.5 to -9.9.
        XCTAssertEqual(r[1].accel!.y, Double(Float(-9.5)) + (Double(Float(-9.9)) - Double(Float(-9.5))) * 0.6, accuracy: 1e-9)
        XCTAssertThrowsError(try CAMM.read([TelemetryPacket(bytes: [0, 0, 2], time: 2.5, duration: 0)])) {
            XCTAssertEqual("\($0)", "CAMM sample 1 of 1 (at 2.5 s): truncated packet header at byte 0 (3 bytes left, 4 needed)")
        }
    }
}
