import XCTest

@testable import Compositor

/// Bad .cube files found by scripts/tools/adversarial-sweep: the message stays one short line.
final class CubeLUTHardeningTests: XCTestCase {
    let identity = ["0 0 0", "1 0 0", "0 1 0", "1 1 0", "0 0 1", "1 0 1", "0 1 1", "1 1 1"]

    func message(_ lines: [String]) -> String {
        do { _ = try CubeLUT(parsing: lines.joined(separator: "\n"), name: "x.cube"); return "parsed" } catch { return "\(error)" }
    }

    // A 1 MB table line was echoed whole into the error.
    func testALongBadLineIsShortened() {
        let long = "0 0 0 " + String(repeating: "9", count: 1_000_000)
        XCTAssertEqual(
            message(["LUT_3D_SIZE 2", long] + identity.dropFirst()),
            "x.cube:2: a table line needs three numbers; got \"0 0 0 9999999999999999999999999999999999...\"")
        XCTAssertEqual(
            message(["LUT_3D_SIZE " + String(repeating: "7", count: 100)] + identity),
            "x.cube:1: LUT_3D_SIZE must be an integer from 2 to 256; got \"7777777777777777777777777777777777777777...\"")
    }

    // An escape sequence in a keyword reached the terminal as is.
    func testControlCharactersAreEscaped() {
        XCTAssertEqual(
            message(["LUT_3D_SIZE 2", "\u{1B}[31mred\u{1B}[0m 0 0"] + identity.dropFirst()),
            "x.cube:2: unknown keyword \"\\u{1B}[31mred\\u{1B}[0m\"")
        XCTAssertEqual(
            message(["LUT_3D_SIZE 2", "0.5\u{0} 9 9"] + identity.dropFirst()),
            "x.cube:2: a table line needs three numbers; got \"0.5\\u{0} 9 9\"")
    }

    // "0.5\0 9 9" was read as 0.5 9 9 (strtof stops at a NUL) and the job wrote a movie, exit 0.
    func testANumberWithANULOrInHexadecimalIsRefused() {
        XCTAssertEqual(
            message(["LUT_3D_SIZE 2", "0x1 0 0"] + identity.dropFirst()),
            "x.cube:2: a table line needs three numbers; got \"0x1 0 0\"")
        XCTAssertEqual(
            message(["LUT_3D_SIZE 2"] + identity + ["DOMAIN_MIN 0 0 0\u{0}1"]),
            "x.cube:10: DOMAIN_MIN needs three numbers; got \"0 0 0\\u{0}1\"")
        XCTAssertEqual(message(["LUT_3D_SIZE 2", "1e-1 +0.5 1E0"] + identity.dropFirst()), "parsed")
    }

    // 20001 filters in a chain ran a job into the stall watchdog.
    func testAChainIsAtMost64Filters() throws {
        XCTAssertThrowsError(try FilterChainSpec(parsing: Array(repeating: "mono", count: 65).joined(separator: ","))) {
            XCTAssertEqual("\($0)", "a chain of 65 filters; at most 64 are chained.")
        }
        XCTAssertEqual(try FilterChainSpec(parsing: Array(repeating: "mono", count: 64).joined(separator: ",")).filters.count, 64)
    }
}
