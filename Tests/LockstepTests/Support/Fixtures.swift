import Foundation
import TestSupport

/// The bundled fixtures (made by scripts/fixtures/make-fixtures; Fixtures/README.md says what each proves).
enum Fixtures {
    static var directory: URL { Repository.fixtures }
    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }
}

/// The old name of TestSupport's `Processes`, kept for the tests that use it.
enum Shell {
    typealias Failure = Processes.Failure
    static func run(_ exe: String, _ args: [String]) throws -> (status: Int32, stdout: Data, stderr: String) { try Processes.run(exe, args) }
    @discardableResult
    static func check(_ exe: String, _ args: [String]) throws -> Data { try Processes.check(exe, args) }
    static func resolve(_ exe: String) -> String { Processes.resolve(exe) }
}
