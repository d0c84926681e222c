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

    /// The lines drawn over each other ("\r", clear to the end of the line, the text); what
    /// follows the last clear (the meter's own, at the end) is the command's output.
    func progressLines(_ output: String) -> [String] {
        output.components(separatedBy: "\r\u{1B}[K").dropFirst().dropLast().map { String($0.prefix { $0 != "\r" && $0 != "\n" }) }
    }

    func testAlignShowsTheSoundRead() throws {
        // Two recordings of one noise, the second starting 0.5 s into it (made by the ffmpeg CLI).
        let a = scratch.appendingPathComponent("a.wav").path, b = scratch.appendingPathComponent("b.wav").path
        try Processes.check("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "anoisesrc=d=4:seed=7", "-ar", "48000", a])
        try Processes.check("ffmpeg", ["-v", "error", "-i", a, "-af", "atrim=start=0.5", b])
        let lines = progressLines(try onTerminal(["align", a, b]))
        XCTAssertFalse(lines.isEmpty)
        // Drawn once both inputs have said their length: 4 s and 3.5 s.
        let pattern = #"^\d+\.\d/7\.5 s  \d+%  \d+\.\dx  ETA \d+:\d\d$"#
        XCTAssertTrue(lines.allSatisfy { $0.range(of: pattern, options: .regularExpression) != nil }, "\(lines)")
        XCTAssertTrue(progressLines(try onTerminal(["align", "--quiet", a, b])).isEmpty)
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

    func testVerifyShowsTheFramesRead() throws {
        let lines = progressLines(try onTerminal(["verify", Repository.fixture("q0.mp4")]))
        XCTAssertFalse(lines.isEmpty)
        XCTAssertTrue(lines.allSatisfy { $0.range(of: #"^frame \d+/75  \d+%  \d+\.\d fps  ETA \d+:\d\d$"#, options: .regularExpression) != nil }, "\(lines)")
        XCTAssertTrue(progressLines(try onTerminal(["verify", "--quiet", Repository.fixture("q0.mp4")])).isEmpty)
    }
}
