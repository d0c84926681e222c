import Foundation
import TestSupport
import XCTest

/// Exit statuses are decided in one place (issue 43): the CLI's `ExitStatus`. No command picks a
/// number (`throw ExitCode(1)`, a `Failure(..., exitStatus: 2)`), and the library never carries
/// one (`exitStatus`, `128 + signal`). Read from the sources, as a reviewer would; the statuses
/// themselves are asserted end to end by the commands' tests (verify's 2, probe's 2, a stopped
/// job's 128 + N, a thumbnail's 64, imu record's 143 and 129).
final class ExitStatusPlaceTests: XCTestCase {
    func testNoStatusIsDecidedOutsideExitStatus() throws {
        let sources = Repository.root.appendingPathComponent("Sources")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 100, "the sources were not found under \(sources.path)")
        let place = "LockstepCLI/Shared/ExitStatus.swift"
        // `ExitCode(` stays allowed where the status from `ExitStatus` is handed to the parser;
        // 128 + a signal is the status of a stopped process (128 + a pixel value is colour).
        let deciding = [
            #"exitStatus"#, #"ExitCode\(\d"#, #"ExitCode\(outcome"#, #"(^|[^A-Za-z])Failure\("#, #"128 ?\+ ?\(?(sig|first|StopSignals|SIG)"#,
            #"(^|[^A-Za-z_])_?exit\(\d"#
        ].map { try! Regex($0) }
        var found: [String] = []
        for file in files where file != place {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.components(separatedBy: "//").first ?? ""
                for word in deciding where code.contains(word) {
                    found.append("\(file):\(n + 1): \(code.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        XCTAssertEqual(found, [], "exit statuses decided outside \(place)")
    }
}
