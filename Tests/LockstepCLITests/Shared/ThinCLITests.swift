import Foundation
import TestSupport
import XCTest

/// The CLI stays thin (issue 25): its files import only ArgumentParser, Foundation and Lockstep,
/// and make no threads, locks or queues of their own (the library's engine does: StopSignals,
/// ProgressMeter). Read from the sources, as a reviewer would.
final class ThinCLITests: XCTestCase {
    func testTheCLIImportsOnlyTheLibraryTheParserAndFoundation() throws {
        let cli = Repository.root.appendingPathComponent("Sources/LockstepCLI")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: cli.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 20, "the CLI's sources were not found under \(cli.path)")
        let allowed: Set<String> = ["ArgumentParser", "Foundation", "Lockstep"]
        let made = ["Thread {", "Thread(", "Mutex<", "NSLock(", "NSCondition(", "DispatchQueue(", "DispatchSemaphore(", "pthread_create"]
        for file in files {
            let text = try String(contentsOf: cli.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
                let module = String(line.split(separator: " ").last!)
                XCTAssertTrue(allowed.contains(module), "\(file): \(line)")
            }
            for word in made { XCTAssertFalse(text.contains(word), "\(file) makes its own \(word)") }
        }
    }
}
