import Foundation
import TestSupport
import XCTest

/// The CLI stays thin (issue 25): its files import only ArgumentParser, Foundation and Lockstep,
/// make no threads, locks or queues of their own (the library's engine does: StopSignals,
/// ProgressMeter) and open no files (the jobs do: CalibrateOptions, SnakeFiles, IMUInfoJob's and
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

    /// Every job has one shape (issue 25): a `public final class ...Job: Job` (made from its
    /// options and events, `run()`, `cancel()`: the compiler holds each to that), and every
    /// command runs its job through `runJob`, the one place that turns stop signals into
    /// `cancel()`; no command makes a cancellation token or a stop request of its own.
    func testEveryJobHasOneShapeAndEveryCommandRunsItsJobOneWay() throws {
        let library = Repository.root.appendingPathComponent("Sources/Lockstep")
        let sources = try XCTUnwrap(FileManager.default.enumerator(atPath: library.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var jobs: [String] = []
        for file in sources {
            let text = try String(contentsOf: library.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("public ") {
                let words = line.split(separator: " ").map(String.init)
                guard let kind = words.firstIndex(where: { ["class", "enum", "struct", "actor"].contains($0) }), kind + 1 < words.count else { continue }
                let name = String(words[kind + 1].prefix { $0.isLetter || $0.isNumber })
                guard name.hasSuffix("Job") || name == "IMUStoreBench" else { continue }
                jobs.append(name)
                XCTAssertTrue(line.hasPrefix("public final class \(name): Job "), "\(file): \(line)")
            }
        }
        XCTAssertGreaterThanOrEqual(jobs.count, 18, "the library's jobs were not found: \(jobs)")
        let cli = Repository.root.appendingPathComponent("Sources/LockstepCLI")
        let commands = try XCTUnwrap(FileManager.default.enumerator(atPath: cli.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        for file in commands {
            let text = try String(contentsOf: cli.appendingPathComponent(file), encoding: .utf8)
            for word in ["CancellationToken(", "StopRequest(", ".cancel()", "try job.run()"] where !file.hasSuffix("Terminal.swift") {
                XCTAssertFalse(text.contains(word), "\(file) runs a job its own way: \(word)")
            }
            for job in jobs where text.contains("\(job)(") || text.contains("\(job).run(") {
                XCTFail("\(file) makes or runs \(job) itself instead of through runJob")
            }
        }
    }
}
