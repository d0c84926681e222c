import Motion
import MotionIO
import XCTest

final class TraceFileReaderTests: TraceFileTestCase {
    func readAll(_ path: String, _ format: TraceFormat) throws -> (TraceFileReader, [IMUReading]) {
        let r = try TraceFileReader(path: path, format: format)
        var all: [IMUReading] = []
        while true { let b = try r.next(max: 3); if b.isEmpty { break }; all += b }
        return (r, all)
    }

    func assertError(_ text: String, _ format: TraceFormat, _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let path = try self.file(format == .gcsv ? "bad.gcsv" : "bad.csv", text)
        XCTAssertThrowsError(try readAll(path, format), file: file, line: line) { error in
            XCTAssertEqual("\(error)", "\(path):\(expected)", file: file, line: line)
        }
    }

    func testGCSVScalesTimeGyroAndAccelInG() throws {
        let path = try file(
            "a.gcsv",
            """
            GYROFLOW IMU LOG
            version,1.3
            id,cam_one
            orientation,YxZ
            note,firmware, with a comma
            tscale,0.001
            gscale,0.5
            ascale,0.25
            t,gx,gy,gz,ax,ay,az
            0,1,2,3,4,0,-4
            5,-2,0,2,0,4,0

            """)
        let (r, s) = try readAll(path, .gcsv)
        XCTAssertEqual(s.map(\.t), [0, 5_000_000])
        XCTAssertEqual(s[0].gyro.x, 0.5); XCTAssertEqual(s[0].gyro.z, 1.5); XCTAssertEqual(s[1].gyro.x, -1)
        // ascale gives g (Gyroflow's unit); the store holds m/s^2.
        XCTAssertEqual(s[0].accel!.x, 1 * 9.80665, accuracy: 1e-12)
        XCTAssertEqual(s[0].accel!.z, -1 * 9.80665, accuracy: 1e-12)
        XCTAssertTrue(r.hasAccel)
        XCTAssertEqual(r.info.deviceName, "cam_one")
        XCTAssertEqual(r.info.orientation, "YxZ")
        XCTAssertEqual(r.info.metadata["note"], "firmware, with a comma")
        XCTAssertEqual(r.info.channelScales["anglvel_y"], 0.5)
        XCTAssertEqual(r.info.channelScales["accel_y"]!, 0.25 * 9.80665, accuracy: 1e-12)
    }

    func testGCSVDefaultsAndColumnOrderAndMagnetometer() throws {
        // No tscale (0.001), no orientation (xzY), gyro only, columns in another order, CAMERA IMU LOG.
        let path = try file("b.gcsv", "CAMERA IMU LOG\nt,gz,gy,gx,mx,my,mz\n1,3,2,1,9,9,9\n2.5,6,5,4,9,9,9\n")
        let (r, s) = try readAll(path, .gcsv)
        XCTAssertEqual(s.map(\.t), [1_000_000, 2_500_000])
        XCTAssertEqual(s[1].gyro.x, 4); XCTAssertEqual(s[1].gyro.z, 6)
        XCTAssertNil(s[0].accel)
        XCTAssertFalse(r.hasAccel)
        XCTAssertEqual(r.info.orientation, "xzY")
    }

    func testGCSVMicrosecondTicksStayExact() throws {
        let path = try file("c.gcsv", "GYROFLOW IMU LOG\ntscale,0.000001\nt,gx,gy,gz\n1234567891234,0,0,0\n")
        XCTAssertEqual(try readAll(path, .gcsv).1.map(\.t), [1_234_567_891_234_000])
    }

    func testCSVWithAndWithoutHeaderAndCRLF() throws {
        let a = try file("a.csv", "t_ns,gx,gy,gz\r\n10,0.1,0.2,0.3\r\n20,0.4,0.5,0.6\r\n")
        let b = try file("b.csv", "10,0.1,0.2,0.3,1,2,3\n\n20,0.4,0.5,0.6,4,5,6")
        let (ra, sa) = try readAll(a, .csv), (rb, sb) = try readAll(b, .csv)
        XCTAssertEqual(sa.map(\.t), [10, 20]); XCTAssertEqual(sa[1].gyro.z, 0.6); XCTAssertFalse(ra.hasAccel)
        XCTAssertEqual(sb.map(\.t), [10, 20]); XCTAssertEqual(sb[1].accel!.z, 6); XCTAssertTrue(rb.hasAccel)
        XCTAssertEqual(rb.info.deviceName, "b")
    }

    func testMalformedLinesNameFileAndLine() throws {
        try assertError("t_ns,gx,gy,gz\n10,1,2,3\n20,1,2\n", .csv, "3: expected 4 fields, found 3")
        try assertError("10,1,2,3\n20,1,x,3\n", .csv, "2: 'x' is not a number")
        try assertError("10,1,2,3\n2.5,1,2,3\n", .csv, "2: '2.5' is not a whole number of nanoseconds")
        try assertError("10,1,2\n", .csv, "1: expected t_ns,gx,gy,gz or t_ns,gx,gy,gz,ax,ay,az, found 3 fields")
        try assertError("time,x,y,z\n", .csv, "1: expected the header t_ns,gx,gy,gz or t_ns,gx,gy,gz,ax,ay,az, found time,x,y,z")
        try assertError("10,1,2,nan\n", .csv, "1: 'nan' is not a number")
        try assertError("hello\n", .gcsv, "1: not a Gyroflow log: the first line must be GYROFLOW IMU LOG or CAMERA IMU LOG")
        try assertError("GYROFLOW IMU LOG\ngscale,abc\n", .gcsv, "2: gscale must be a positive number, found 'abc'")
        try assertError("GYROFLOW IMU LOG\nt,gx,gy\n", .gcsv, "2: the column line must name t,gx,gy,gz, found t,gx,gy")
    }

    func testOutOfOrderAndDuplicateTimestampsAreRejectedNotReordered() throws {
        try assertError("10,1,2,3\n20,1,2,3\n15,1,2,3\n", .csv, "3: timestamp 15 ns is before the one on line 2 (20 ns)")
        try assertError("t_ns,gx,gy,gz\n10,1,2,3\n\n10,1,2,3\n", .csv, "4: timestamp 10 ns repeats the one on line 2")
        try assertError("GYROFLOW IMU LOG\nt,gx,gy,gz\n0,1,1,1\n5,1,1,1\n5,1,1,1\n", .gcsv, "5: timestamp 5000000 ns repeats the one on line 4")
    }

    func testMissingFile() throws {
        let path = scratch.appendingPathComponent("none.csv").path
        XCTAssertThrowsError(try TraceFileReader(path: path, format: .csv)) { XCTAssertEqual("\($0)", "\(path): no such file") }
    }

    func testLineReaderAcrossChunkBoundaries() throws {
        let lines = (0..<200).map { "line \($0) " + String(repeating: "x", count: $0 % 13) }
        let path = try file("l.txt", lines.joined(separator: "\n"))
        for chunk in [1, 3, 7, 64, 1 << 20] {
            let r = try LineReader(path: path, chunkSize: chunk)
            var got: [String] = []
            while let l = try r.next() { got.append(String(l)) }
            XCTAssertEqual(got, lines, "chunk size \(chunk)")
            XCTAssertEqual(r.lineNumber, 200)
        }
    }

    func testFixturesReadWithTheirShapes() throws {
        let still = try readAll(Self.fixtures.appendingPathComponent("still.gcsv").path, .gcsv).1
        let pan = try readAll(Self.fixtures.appendingPathComponent("pan.csv").path, .csv).1
        let shake = try readAll(Self.fixtures.appendingPathComponent("shake.gcsv").path, .gcsv).1
        XCTAssertEqual(still.count, 600); XCTAssertEqual(pan.count, 800); XCTAssertEqual(shake.count, 580)
        XCTAssertLessThan(still.map { abs($0.gyro.y) }.max()!, 0.05)
        XCTAssertEqual(pan[400].gyro.y, 0.6, accuracy: 0.02)  // steady part of the pan
        XCTAssertGreaterThan(shake.map { abs($0.gyro.y) }.max()!, 2.9)
        XCTAssertEqual(still[0].accel!.y, -9.80665, accuracy: 0.1)
    }
}
