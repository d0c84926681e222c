import Foundation
import XCTest

/// A test case with a fresh scratch folder per test, removed afterwards. The one base of every
/// test target's own (LockstepTests' `ScratchTestCase`, IIOTests' `IIOTestCase`, MotionTests'
/// `TraceFileTestCase`, the command-line tests).
open class ScratchFolderTestCase: XCTestCase {
    public var scratch: URL!

    override open func setUpWithError() throws {
        try super.setUpWithError()
        scratch = try Scratch.makeFolder("lockstep-\(type(of: self))")
    }

    override open func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
        try super.tearDownWithError()
    }

    /// Files in the scratch folder, hidden temporaries included, sorted.
    public func leftovers() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() }

    /// Writes `text` to a file of the scratch folder; returns its path.
    @discardableResult
    public func file(_ name: String, _ text: String) throws -> String {
        let url = scratch.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }
}

public enum Scratch {
    /// A new, empty folder under the temporary directory, named `prefix-<8 random hex>`.
    public static func makeFolder(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
