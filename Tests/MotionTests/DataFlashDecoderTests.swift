import Foundation
import Motion
import XCTest

/// The DataFlash decoder on bytes written here by hand (no I/O). Logs written by
/// scripts/fixtures/make-dataflash-log are checked against pymavlink in DataFlashCommandLineTests.
final class DataFlashDecoderTests: XCTestCase {
    static func text(_ s: String, _ n: Int) -> [UInt8] { Array(s.utf8.prefix(n)) + [UInt8](repeating: 0, count: max(0, n - s.utf8.count)) }
    static func fmt(_ type: UInt8, _ name: String, _ format: String, _ columns: String, length: Int) -> [UInt8] {
        [0xA3, 0x95, 128, type, UInt8(length)] + text(name, 4) + text(format, 16) + text(columns, 64)
    }
    static func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    static func f32(_ v: Float) -> [UInt8] { le(v.bitPattern) }
    /// 4.x: "QBffffffIIfBBHH" (54 bytes with the header).
    static let imuFormat = fmt(42, "IMU", "QBffffffIIfBBHH", "TimeUS,I,GyrX,GyrY,GyrZ,AccX,AccY,AccZ,EG,EA,T,GH,AH,GHz,AHz", length: 54)
    static func imu(_ t: UInt64, _ i: UInt8, _ g: [Float], _ a: [Float]) -> [UInt8] {
        [0xA3, 0x95, 42] + le(t) + [i] + g.flatMap(f32) + a.flatMap(f32) + le(UInt32(0)) + le(UInt32(0)) + f32(40) + [1, 1] + le(UInt16(400)) + le(UInt16(400))
    }

    func testInstancesTimesAndValues() {
        let bytes =
            Self.imuFormat + Self.imu(1000, 0, [0.5, -0.25, 1], [0, 0, -9.75]) + Self.imu(1010, 1, [2, 0, 0], [1, 2, 3])
            + Self.imu(3500, 0, [0.125, 0, 0], [0, 0, -9.5]) + Self.imu(3500, 0, [9, 9, 9], [9, 9, 9])
        let log = DataFlashDecoder.decode(bytes)
        XCTAssertEqual(log.instances.map(\.number), [0, 1])
        XCTAssertEqual(log.instances[0].readings.map(\.t), [1_000_000, 3_500_000])
        XCTAssertEqual(log.instances[0].readings[0].gyro, SIMD3(0.5, -0.25, 1))
        XCTAssertEqual(log.instances[0].readings[1].accel, SIMD3(0, 0, -9.5))
        XCTAssertEqual(log.instances[1].readings.map(\.gyro), [SIMD3(2, 0, 0)])
        XCTAssertEqual(log.instances[0].dropped, 1, "a repeated time is not used")
        XCTAssertEqual(log.warnings, ["IMU 0: 1 message not used (a time that repeats, goes back or is out of range, or a value that is not a number)"])
    }

    func testJunkIsSkippedAndATruncatedEndKeepsWhatCameBefore() {
        let whole = Self.imuFormat + Self.imu(1000, 0, [1, 1, 1], [0, 0, 0]) + [0xA3, 0x00, 0x17, 0xA3, 0x96] + Self.imu(2000, 0, [2, 2, 2], [0, 0, 0])
        let cut = Self.imu(3000, 0, [3, 3, 3], [0, 0, 0]).prefix(20)
        let log = DataFlashDecoder.decode(whole + cut)
        XCTAssertEqual(log.instances[0].readings.map(\.t), [1_000_000, 2_000_000])
        XCTAssertEqual(log.skippedBytes, 5)
        XCTAssertEqual(log.truncatedAt, whole.count)
        XCTAssertEqual(
            log.warnings,
            [
                "5 bytes that start no message skipped in 1 run, the first at byte \(Self.imuFormat.count + 54)",
                "the log is truncated: it stops inside a message at byte \(whole.count); kept what came before it"
            ])
    }

    func testOlderLogsNameTheInstanceAndCountMilliseconds() {
        // 3.x-era layout with TimeMS (uint32 ms) and the second IMU as its own type.
        let f = Self.fmt(30, "IMU2", "Iffffff", "TimeMS,GyrX,GyrY,GyrZ,AccX,AccY,AccZ", length: 31)
        let m: [UInt8] = [0xA3, 0x95, 30] + Self.le(UInt32(1500)) + [0.5, 0, 0, 0, 0, -9.8].flatMap { Self.f32(Float($0)) }
        let log = DataFlashDecoder.decode(f + m)
        XCTAssertEqual(log.instances.map(\.number), [1])
        XCTAssertEqual(log.instances[0].readings.map(\.t), [1_500_000_000])
        XCTAssertEqual(log.instances[0].readings[0].gyro.x, 0.5)
    }

    /// FuzzBlackbox's finding: a TimeUS near 2^64 (and a time column of NaN) trapped converting
    /// to Int64. Such a message is not a sample, and is counted.
    func testATimeNoClockGivesIsNotASample() {
        let huge = Self.imu(UInt64.max - 5, 0, [1, 1, 1], [0, 0, 0])
        let f = Self.fmt(43, "IMU2", "dfff", "TimeUS,GyrX,GyrY,GyrZ", length: 23)
        let nan: [UInt8] = [0xA3, 0x95, 43] + Self.le(Double.nan.bitPattern) + [1, 2, 3].flatMap { Self.f32(Float($0)) }
        let log = DataFlashDecoder.decode(Self.imuFormat + huge + Self.imu(1000, 0, [2, 2, 2], [0, 0, 0]) + f + nan)
        XCTAssertEqual(log.instances.map(\.number), [0, 1])
        XCTAssertEqual(log.instances[0].readings.map(\.t), [1_000_000])
        XCTAssertEqual(log.instances.map(\.dropped), [1, 1])
        XCTAssertTrue(log.instances[1].readings.isEmpty)
    }

    func testALogWithoutAnIMUSaysWhy() {
        let f = Self.fmt(91, "MSG", "QZ", "TimeUS,Message", length: 75)
        let m: [UInt8] = [0xA3, 0x95, 91] + Self.le(UInt64(5)) + Self.text("ArduPlane V4.4.0 (1234abcd)", 64)
        let log = DataFlashDecoder.decode(f + m)
        XCTAssertEqual(log.firmware, "ArduPlane V4.4.0 (1234abcd)")
        XCTAssertEqual(log.problem, "it defines no IMU message (no FMT for IMU with TimeUS, GyrX, GyrY, GyrZ)")
    }
}
