import Foundation
import Glibc
import Motion
import TraceStore
import GRDB
import XCTest

/// `lockstep imu serve` refusing what it cannot serve: a one-line error, never a crash.
final class IMUServeCommandTests: IIOTestCase {
    func store(_ samples: [IMUReading], hasAccel: Bool) throws -> String {
        let path = scratch.appendingPathComponent("bad.sqlite").path
        let store = try TraceStore(path: path)
        let id = try store.createTrace(TraceInfo(deviceName: "bad", sourceURI: "test"), hasAccel: hasAccel)
        try store.append(samples, to: id)
        try store.close()
        return path
    }

    let good = (0..<50).map { IMUReading(t: Int64($0) * 5_000_000, gyro: (0.1, 0.2, 0.3), accel: (0, -9.8, 0)) }

    /// A store as an older Lockstep could leave it: this one refuses to write values that are
    /// not finite, so the damage is done in SQL afterwards.
    func damagedStore(_ sql: String) throws -> String {
        let path = try store(good, hasAccel: true)
        try DatabaseQueue(path: path).write { db in try db.execute(sql: sql) }
        return path
    }

    func testAStoredInfinityIsAOneLineErrorNamingTheStoreAndTrace() throws {
        let path = try damagedStore("UPDATE sample SET gx = -9e999 WHERE t_ns = 35000000")
        let r = try lockstep(["imu", "serve", path, "--port", "0"], timeout: 20)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr, "Error: \(path): trace 1 holds a value that is not a finite number at 35000000 ns (written by an older Lockstep); re-import it from its file\n")
    }

    func testAStoredNaNIsAOneLineErrorNamingTheStoreAndTrace() throws {
        // SQLite keeps NaN as NULL: reading it back as a number used to trap.
        let path = try damagedStore("UPDATE sample SET ay = NULL WHERE t_ns = 60000000")
        let r = try lockstep(["imu", "serve", path, "--port", "0"], timeout: 20)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr, "Error: \(path): trace 1 holds a value that is not a finite number at 60000000 ns (written by an older Lockstep); re-import it from its file\n")
    }

    func testAGcsvWhoseScaleOverflowsIsRefusedNotCrashedOn() throws {
        // Written by the shell, not by Lockstep: gscale 1e308 makes every non-zero rate infinite.
        let path = scratch.appendingPathComponent("huge.gcsv").path
        let r0 = try Self.run(["/bin/sh", "-c", "printf 'GYROFLOW IMU LOG\\nversion,1.3\\nid,huge\\ntscale,0.001\\ngscale,1e308\\nt,gx,gy,gz\\n0,0,0,0\\n5,2,0,0\\n10,3,0,0\\n' > '\(path)'"])
        XCTAssertEqual(r0.status, 0)
        let r = try lockstep(["imu", "serve", path, "--port", "0"], timeout: 20)
        XCTAssertEqual(r.status, 1, r.stderr)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("Error: \(path)"), r.stderr)
    }

    func testSpeedAndLimitsAreValidated() throws {
        let path = Self.fixture("still.gcsv")
        for (args, message) in [
            (["--speed", "1e-300"], "--speed must be 0 (as fast as possible) or between 0.001 and 1000; got 1e-300."),
            (["--speed", "1e300"], "--speed must be 0 (as fast as possible) or between 0.001 and 1000; got 1e+300."),
            (["--speed", "nan"], "--speed must be 0 (as fast as possible) or a positive factor; got nan."),
            (["--speed", "inf"], "--speed must be 0 (as fast as possible) or a positive factor; got inf."),
            (["--max-connections", "0"], "--max-connections must be between 1 and 10000; got 0."),
            (["--idle-timeout", "0"], "--idle-timeout must be between 0.1 and 86400 seconds; got 0.0."),
        ] {
            let r = try lockstep(["imu", "serve", path] + args)
            XCTAssertEqual(r.status, 64, args.joined(separator: " "))
            XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), "Error: \(message)")
        }
    }

    func testAnAddressInUseIsAOneLineError() throws {
        let (server, _, _) = try serve("still.gcsv")
        let r = try lockstep(["imu", "serve", Self.fixture("still.gcsv"), "--port", "\(server.port)"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "Error: cannot listen on 127.0.0.1:\(server.port) (Address already in use)\n")
        let v6 = try lockstep(["imu", "serve", Self.fixture("still.gcsv"), "--host", "example.com"])
        XCTAssertEqual(v6.stderr, "Error: example.com is not an IPv4 or IPv6 address\n")
    }

    func testSIGINTAndSIGHUPStopTheServerCleanlyAndItSaysWhatItSaw() throws {
        for sig in [SIGINT, SIGHUP] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Self.binary)
            p.arguments = ["imu", "serve", Self.fixture("still.gcsv"), "--port", "0", "--max-connections", "1"]
            let err = Pipe()
            p.standardError = err
            try p.run()
            let first = String(decoding: err.fileHandleForReading.availableData, as: UTF8.self)
            guard let port = UInt16(first.split(separator: ":").last?.prefix { $0.isNumber } ?? "") else { return XCTFail(first) }
            let held = try RawClient(port: port)
            XCTAssertEqual(held.ask("VERSION\r\n", lines: 1), ["0.24.v0.24  "])
            XCTAssertEqual(try RawClient(port: port).readAll(), "-16\n")
            kill(p.processIdentifier, sig)
            let rest = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, "signal \(sig)")
            XCTAssertEqual(rest, "stopped: connections served 1, refused over --max-connections 1, closed idle 0; lines too long 0; accept errors 0\n")
            XCTAssertTrue(held.readToEnd().closed, "its connections were closed")
        }
    }
}
