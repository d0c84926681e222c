import Foundation
import TestSupport
import XCTest

/// On a terminal every command that reads for a while draws its progress line (issue 43: align,
/// calibrate, verify and imu import drew nothing), and `--quiet` or a pipe draws none. Run under
/// util-linux's `script`, which gives the command a pseudo-terminal.
final class ProgressOnTerminalTests: ScratchFolderTestCase {
    /// What the command wrote to its terminal (stdout and stderr together).
    func onTerminal(_ args: [String]) throws -> String {
        let command = ([Repository.binary.path] + args).map { "'\($0)'" }.joined(separator: " ")
        let r = try Processes.run("script", ["-qec", command, "/dev/null"], timeout: 300)
        XCTAssertEqual(r.status, 0, r.stderr)
        return String(decoding: r.stdout, as: UTF8.self)
    }

    /// The lines drawn over each other ("\r", clear to the end of the line, the text).
    func progressLines(_ output: String) -> [String] {
        output.components(separatedBy: "\r\u{1B}[K").dropFirst().map { String($0.prefix { $0 != "\r" && $0 != "\n" }) }.filter { !$0.isEmpty }
    }

    func testAlignShowsTheSoundRead() throws {
        let out = try onTerminal(["align", Repository.fixture("q0.mp4"), Repository.fixture("q1.mp4")])
        let lines = progressLines(out)
        XCTAssertFalse(lines.isEmpty, out)
        XCTAssertTrue(lines.allSatisfy { $0.range(of: #"^\d+\.\d/\d+\.\d s  \d+%  \d+\.\dx  ETA \d+:\d\d$"#, options: .regularExpression) != nil }, "\(lines)")
        XCTAssertTrue(progressLines(try onTerminal(["align", "--quiet", Repository.fixture("q0.mp4"), Repository.fixture("q1.mp4")])).isEmpty)
    }

    func testImportShowsTheReadings() throws {
        let store = scratch.appendingPathComponent("s.sqlite").path
        let lines = progressLines(try onTerminal(["imu", "import", Repository.fixture("imu/shake.gcsv"), "-o", store]))
        XCTAssertFalse(lines.isEmpty)
        XCTAssertTrue(lines.allSatisfy { $0.range(of: #"^reading \d+  \d+/s$"#, options: .regularExpression) != nil }, "\(lines)")
    }

    func testCalibrateShowsTheFramesMeasured() throws {
        let out = scratch.appendingPathComponent("p.json").path
        let lines = progressLines(
            try onTerminal(["calibrate", Repository.fixture("synthetic/pan.mp4"), "--imu", Repository.fixture("synthetic/pan-imu.csv"), "-o", out, "--force"]))
        XCTAssertFalse(lines.isEmpty)
        XCTAssertTrue(lines.allSatisfy { $0.range(of: #"^frame \d+/\d+  \d+%  \d+\.\d fps  ETA \d+:\d\d$"#, options: .regularExpression) != nil }, "\(lines)")
    }
}
