import Motion
import XCTest

/// The gcsv/CSV parser on strings and bytes, no files: the edge cases of issue 9.
final class TraceParserTests: XCTestCase {
    func parse(_ text: String, _ format: TraceFormat) throws -> (TraceParser, [IMUReading]) {
        let r = try TraceParser.parse(Array(text.utf8), format: format, source: "t.\(format)")
        return (r.parser, r.samples)
    }

    func assertError(_ text: String, _ format: TraceFormat, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parse(text, format), file: file, line: line) { error in
            XCTAssertEqual("\(error)", "t.\(format):\(expected)", file: file, line: line)
        }
    }

    func testDecimalsAreDecimalsOnly() {
        XCTAssertEqual(TraceParser.decimal("2"), 2)
        XCTAssertEqual(TraceParser.decimal("+2."), 2)
        XCTAssertEqual(TraceParser.decimal("-.5"), -0.5)
        XCTAssertEqual(TraceParser.decimal("1.5E-3"), 0.0015)
        XCTAssertEqual(TraceParser.decimal("1e999"), .infinity, "syntax is fine; callers reject the infinity")
        for bad in [
            "0x10", "0X1p3", "0.5\u{0}9", "0.5\u{0} 9", "nan", "NaN", "inf", "-infinity", "", ".", "+", "1e", "1e+",
            " 1", "1 ", "1_000", "1,5", "\u{661}", "١٢", "1.2.3", "--1", "0b1"
        ] {
            XCTAssertNil(TraceParser.decimal(Substring(bad)), "'\(bad)'")
        }
    }

    func testValuesThatAreNotFiniteNumbersAreRejected() {
        assertError("10,0x10,0,0\n", .csv, "1: '0x10' is not a number")
        assertError("10,0.5\u{0} 9,0,0\n", .csv, "1: '0.5\\0 9' is not a number")
        assertError("10,1e999,0,0\n", .csv, "1: '1e999' is not a finite number")
        assertError("10,1,2,-inf\n", .csv, "1: '-inf' is not a number")
        assertError("GYROFLOW IMU LOG\nt,gx,gy,gz\n0x10,0,0,0\n", .gcsv, "3: '0x10' is not a number")
        assertError("GYROFLOW IMU LOG\ntscale,0x10\nt,gx,gy,gz\n", .gcsv, "2: tscale must be a positive number, found '0x10'")
        assertError("GYROFLOW IMU LOG\ngscale,1e999\nt,gx,gy,gz\n", .gcsv, "2: gscale must be a positive number, found '1e999'")
    }

    func testScalesThatOverflow() {
        // ascale is in g: 1e308 g is not a finite number of m/s^2 (it used to store NaN/Inf).
        assertError(
            "GYROFLOW IMU LOG\nascale,1e308\nt,gx,gy,gz,ax,ay,az\n0,1,1,1,0,1,1\n", .gcsv,
            "2: ascale 1e308 is out of range (not a finite number of m/s^2)")
        assertError(
            "GYROFLOW IMU LOG\ngscale,1e308\nt,gx,gy,gz\n0,0,0,0\n5,0,5,0\n", .gcsv,
            "5: gy '5' times gscale 1e308 is not a finite number")
        assertError(
            "GYROFLOW IMU LOG\nascale,1e300\nt,gx,gy,gz,ax,ay,az\n0,1,1,1,0,1,-1e9\n", .gcsv,
            "4: az '-1e9' times ascale 1e300 is not a finite number")
        // A tick of 9.2e9 s is 9.2e18 ns: past Int64 with the first tick (this trapped).
        assertError("GYROFLOW IMU LOG\ntscale,9.2e9\nt,gx,gy,gz\n0,0,0,0\n", .gcsv, "2: tscale 9.2e9 is out of range (at most 2.3e9 seconds per tick)")
        assertError("GYROFLOW IMU LOG\ntscale,1e300\nt,gx,gy,gz\n", .gcsv, "2: tscale 1e300 is out of range (at most 2.3e9 seconds per tick)")
        assertError(
            "GYROFLOW IMU LOG\ntscale,2e9\nt,gx,gy,gz\n0,0,0,0\n2,0,0,0\n", .gcsv,
            "5: timestamp 2 is out of range (beyond 2.3e9 s from 0)")
        assertError("GYROFLOW IMU LOG\ntscale,1\nt,gx,gy,gz\n1e300,0,0,0\n", .gcsv, "4: timestamp 1e300 is out of range (beyond 2.3e9 s from 0)")
        assertError("2300000000000000001,0,0,0\n", .csv, "1: timestamp 2300000000000000001 is out of range (beyond 2.3e9 s from 0)")
        assertError("-9000000000000000000,0,0,0\n", .csv, "1: timestamp -9000000000000000000 is out of range (beyond 2.3e9 s from 0)")
    }

    func testTheLargestTimesStillRead() throws {
        let (_, s) = try parse("-2300000000000000000,1,2,3\n2300000000000000000,1,2,3\n", .csv)
        XCTAssertEqual(s.map(\.t), [-TraceParser.maxTimestamp, TraceParser.maxTimestamp])
        let stats = TraceStatistics(timestamps: s.map(\.t))  // the step fits an Int64
        XCTAssertEqual(stats.duration, 4_600_000_000_000_000_000)
        XCTAssertEqual(stats.medianInterval, 4_600_000_000_000_000_000)
        let (_, g) = try parse("GYROFLOW IMU LOG\ntscale,2.3e9\nt,gx,gy,gz\n1,0,0,0\n", .gcsv)
        XCTAssertEqual(g.map(\.t), [2_300_000_000_000_000_000])
    }

    func testLongAndHostileLinesAreShortenedAndEscapedInMessages() {
        let long = String(repeating: "x", count: 100_000)
        assertError("10,\(long),0,0\n", .csv, "1: '\(String(repeating: "x", count: 80))...' is not a number")
        assertError("10,\u{1B}[2J\u{1B}]0;pwned\u{7},0,0\n", .csv, "1: '\\u{1B}[2J\\u{1B}]0;pwned\\u{7}' is not a number")
        assertError(
            "time\r,x\u{9B}31m,y,z\n", .csv,
            "1: expected the header t_ns,gx,gy,gz or t_ns,gx,gy,gz,ax,ay,az, found time\\r,x\\u{9B}31m,y,z")
        assertError("GYROFLOW IMU LOG\nt,gx,\u{202E}gy\n", .gcsv, "2: the column line must name t,gx,gy,gz, found t,gx,\\u{202E}gy")
    }

    func testALineWithNoEndIsBounded() {
        let huge = [UInt8](repeating: UInt8(ascii: "7"), count: LineSplitter.maxLineLength + 1)
        XCTAssertThrowsError(try TraceParser.parse(huge, format: .csv, source: "big.csv")) {
            XCTAssertEqual("\($0)", "big.csv:1: the line is longer than 1048576 bytes")
        }
        var s = LineSplitter(source: "big.csv", maxLineLength: 10)
        s.append(Array("0123456789\n01234".utf8))
        XCTAssertEqual(try s.next(), "0123456789")
        XCTAssertNil(try s.next(), "an unfinished line waits for more")
        s.append(Array("567890".utf8))
        XCTAssertThrowsError(try s.next()) { XCTAssertEqual("\($0)", "big.csv:2: the line is longer than 10 bytes") }
    }

    func testLineSplitterAcrossChunks() throws {
        let lines = (0..<50).map { "line \($0)" + String(repeating: "x", count: $0 % 7) }
        let bytes = Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
        for chunk in [1, 2, 5, 64, bytes.count] {
            var s = LineSplitter(source: "x")
            var got: [String] = []
            var i = 0
            while !s.isDone {
                if let l = try s.next() { got.append(String(l)); continue }
                if i < bytes.count { s.append(bytes[i..<min(bytes.count, i + chunk)]); i += chunk } else { s.finish() }
            }
            XCTAssertEqual(got, lines, "chunk \(chunk)")
            XCTAssertEqual(s.lineNumber, 50)
        }
    }

    func testGoodTracesStillParse() throws {
        let (p, s) = try parse("GYROFLOW IMU LOG\nid,cam\ntscale,0.001\ngscale,0.5\nascale,0.25\nt,gx,gy,gz,ax,ay,az\n0,1,2,3,4,0,-4\n5,-2,0,2,0,4,0\n", .gcsv)
        XCTAssertEqual(s.map(\.t), [0, 5_000_000])
        XCTAssertEqual(s[0].gyro.z, 1.5)
        XCTAssertEqual(s[0].accel!.x, 9.80665, accuracy: 1e-12)
        XCTAssertEqual(p.info.deviceName, "cam")
        XCTAssertTrue(p.hasAccel)
        let (c, cs) = try parse("t_ns,gx,gy,gz\n10,+1.,-.5,2E2\n", .csv)
        XCTAssertEqual(cs.first?.gyro.z, 200); XCTAssertEqual(cs.first?.gyro.y, -0.5); XCTAssertFalse(c.hasAccel)
        XCTAssertThrowsError(try parse("", .gcsv)) { XCTAssertEqual("\($0)", "t.gcsv: empty file") }
        XCTAssertThrowsError(try parse("GYROFLOW IMU LOG\nid,x\n", .gcsv)) {
            XCTAssertEqual("\($0)", "t.gcsv: no column line (t,gx,gy,gz[,ax,ay,az]) after the header")
        }
    }

    func testMessageText() {
        XCTAssertEqual(MessageText.quote("plain"), "plain")
        XCTAssertEqual(MessageText.quote("a\nb\tc\\d\u{0}"), "a\\nb\\tc\\\\d\\0")
        XCTAssertEqual(MessageText.quote("abcdef", limit: 3), "abc...")
        XCTAssertEqual(MessageText.quote("abc", limit: 3), "abc")
        XCTAssertEqual(MessageText.quote("é\u{1B}", limit: 5), "é\\u{1B}")
    }
}
