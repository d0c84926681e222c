import Foundation
import TestSupport
import XCTest

/// A scratch folder per test (TestSupport's, with its `file(_:_:)` to write small trace files).
class TraceFileTestCase: ScratchFolderTestCase {
    static let fixtures = Repository.fixtures.appendingPathComponent("imu")
}
