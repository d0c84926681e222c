import Foundation
import TestSupport
import XCTest

/// The code follows the repository's `.swift-format` (issue 25): `swift format lint --strict`
/// finds nothing in Sources, Tests or Package.swift. To fix what it finds:
/// `swift format format -i -r -p Sources Tests Package.swift`.
final class CodeFormatTests: XCTestCase {
    func testTheSourcesFollowTheRepositorysSwiftFormatConfiguration() throws {
        let root = Repository.root.path
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/.swift-format"), "no .swift-format at \(root)")
        // swift-format ships with the Swift toolchain (6.x), which builds these tests.
        let probe = try Processes.run("swift", ["format", "--version"], timeout: 60)
        guard probe.status == 0 else { throw XCTSkip("`swift format` is not available here: \(probe.stderr.prefix(200))") }
        let lint = try Processes.run(
            "swift",
            [
                "format", "lint", "--strict", "-r", "-p", "--configuration", root + "/.swift-format",
                root + "/Sources", root + "/Tests", root + "/Package.swift"
            ], timeout: 300)
        XCTAssertEqual(lint.status, 0, "swift format lint: \(lint.stderr.prefix(2000))")
        XCTAssertEqual(lint.stderr, "", "swift format lint found:\n\(lint.stderr.prefix(2000))")
    }
}
