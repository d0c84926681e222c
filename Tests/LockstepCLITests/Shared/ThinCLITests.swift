import Foundation
import TestSupport
import XCTest

/// The CLI stays thin (issue 25): its files import only ArgumentParser, Foundation and Lockstep,
/// make no threads, locks or queues of their own (the library's engine does: StopSignals,
/// ProgressMeter) and open no files (the jobs do: CalibrateFiles, SnakeFiles, IMUInfoJob's and
/// IMUPlotJob's paths, IMUStoreBench, CodedVerifyJob.write). Read from the sources, as a reviewer
/// would.
final class ThinCLITests: XCTestCase {
    func testTheCLIImportsOnlyTheLibraryTheParserAndFoundationAndOpensNothing() throws {
        let cli = Repository.root.appendingPathComponent("Sources/LockstepCLI")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: cli.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 20, "the CLI's sources were not found under \(cli.path)")
        let allowed: Set<String> = ["ArgumentParser", "Foundation", "Lockstep"]
        let made = [
            "Thread {", "Thread(", "Mutex<", "NSLock(", "NSCondition(", "DispatchQueue(", "DispatchSemaphore(", "pthread_create",
            "TraceSource.open(", "TraceStore(", "MovieReader(", "Calibration.load(", "OutputPath.write(", "FileHandle(for",
            "Data(contentsOf", "String(contentsOf", "fopen(", ".write(to"
        ]
        for file in files {
            let text = try String(contentsOf: cli.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
                let module = String(line.split(separator: " ").last!)
                XCTAssertTrue(allowed.contains(module), "\(file): \(line)")
            }
            for word in made { XCTAssertFalse(text.contains(word), "\(file) does itself what the library should: \(word)") }
        }
    }

    /// A failure's line and status are the library's (`CommandFailure`), printed and mapped to
    /// the exit status in one place, `LockstepCommand.main`: no command prints "Error: " and
    /// exits by itself. (`filter --variants` reports each failed variant on its own line, then
    /// ends with ExitCode(1): a report, not a failure's line.)
    func testNoCommandPrintsAFailureAndExitsByItself() throws {
        let cli = Repository.root.appendingPathComponent("Sources/LockstepCLI")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: cli.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 20, "the CLI's sources were not found under \(cli.path)")
        for file in files where file != "LockstepCommand.swift" {
            let text = try String(contentsOf: cli.appendingPathComponent(file), encoding: .utf8)
            let printed = text.components(separatedBy: "Data(\"Error: ").dropFirst().filter { !$0.hasPrefix("variant ") }
            XCTAssertEqual(printed.count, 0, "\(file) prints a failure's line itself")
        }
    }
}
