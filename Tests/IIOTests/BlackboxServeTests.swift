import Foundation
import TestSupport
import XCTest

/// `imu serve` of a store imported from a blackbox log, as libiio's own iio_readdev reads it:
/// every sample of the real LOG00037.BFL, its times and gyro the ones telemetry-parser reads.
final class BlackboxServeTests: IIOTestCase {
    func testIioReaddevReadsTheRealLogThroughAStore() throws {
        let log = Repository.shared("blackbox/LOG00037.BFL")
        XCTAssertTrue(FileManager.default.fileExists(atPath: log), "\(log) is missing")
        let store = scratch.appendingPathComponent("flights.sqlite").path
        let imported = try lockstep(["imu", "import", log, "-o", store])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(imported.stdout, "1\n")

        // --speed 0: as fast as the client reads (at speed 1 the 16.8 s flight took 16.8 s).
        let server = try startLockstep(["imu", "serve", store, "--port", "0", "--speed", "0"])
        let prefix = "serving \(store) on 127.0.0.1:"
        let port = try XCTUnwrap(server.firstLine.hasPrefix(prefix) ? UInt16(server.firstLine.dropFirst(prefix.count).prefix { $0.isNumber }) : nil, server.firstLine)
        XCTAssertTrue(server.firstLine.hasSuffix("(device Betaflight 4.2.0 (8f2d21460) STM32F745, from 2022-02-02 15:04:53, 16774 samples)\n"), server.firstLine)
        let uri = "ip:127.0.0.1:\(port)"
        func scale(_ channel: String) throws -> Double {
            let r = try Self.run(["iio_attr", "-u", uri, "-c", "iio:device0", channel, "scale"])
            XCTAssertEqual(r.status, 0, r.stderr)
            return try XCTUnwrap(Double(String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        let gyroScale = try scale("anglvel_x"), accelScale = try scale("accel_x")
        // The header's own scales: gyro_scale 1 deg/s per unit, acc_1G 2048 units per g.
        XCTAssertEqual(gyroScale, .pi / 180, accuracy: 1e-15)
        XCTAssertEqual(accelScale, 9.80665 / 2048, accuracy: 1e-15)

        let r = try Self.run(["iio_readdev", "-u", uri, "-b", "256", "-s", "16774", "iio:device0"], timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.count, 16774 * 24)
        // 6 x s16, 4 bytes of padding, s64 timestamp (ns), little-endian.
        let bytes = [UInt8](r.stdout)
        func s16(_ i: Int) -> Double { Double(Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8)) }
        func s64(_ i: Int) -> Int64 { bytes[i..<i + 8].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) } }

        let code = """
            import json, sys, telemetry_parser
            e = next(iter(telemetry_parser.Parser(sys.argv[1]).telemetry()))
            json.dump([[d['t'], d['x'], d['y'], d['z']] for d in e['Gyroscope']['Data']], sys.stdout)
            """
        let tp = try Processes.run("python3", ["-c", code, log], timeout: 300)
        XCTAssertEqual(tp.status, 0, tp.stderr)
        let theirs = try JSONDecoder().decode([[Double]].self, from: tp.stdout)
        XCTAssertEqual(theirs.count, 16774)
        var worstT = 0.0, worstGyro = 0.0, worstG = 0.0
        for (k, t) in theirs.enumerated() where (k + 1) * 24 <= bytes.count {
            let o = k * 24
            worstT = max(worstT, abs(Double(s64(o + 16)) / 1e9 - t[0]))
            for j in 0..<3 { worstGyro = max(worstGyro, abs(s16(o + 2 * j) * gyroScale * 180 / .pi - t[j + 1])) }
            // At rest before take-off the accelerometer reads about 1 g.
            if k < 100 {
                let a = (0..<3).map { s16(o + 6 + 2 * $0) * accelScale }
                worstG = max(worstG, abs((a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).squareRoot() - 9.81))
            }
        }
        XCTAssertLessThan(worstT, 1e-7, "timestamps (s)")
        XCTAssertLessThan(worstGyro, 1e-9, "gyro (deg/s)")
        XCTAssertLessThan(worstG, 0.5, "accelerometer at rest (m/s^2)")
    }
}
