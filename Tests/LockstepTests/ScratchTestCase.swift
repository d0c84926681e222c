import Compositor
import Foundation
import XCTest
@testable import Lockstep

/// A test case with a fresh scratch folder, removed afterwards, and a way to composite into it.
class ScratchTestCase: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-\(type(of: self))-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    /// Composites `inputs` (fixture names, or paths) into a new file in the scratch folder.
    func compose(_ blend: BlendMode, _ inputs: [String], _ configure: (inout CompositeOptions) -> Void = { _ in }) throws -> (URL, CompositeResult) {
        let out = scratch.appendingPathComponent("\(blend.rawValue)-\(UUID().uuidString.prefix(6)).mp4")
        let paths = inputs.map { $0.hasPrefix("/") ? $0 : Fixtures.url($0).path }
        var options = CompositeOptions(inputs: paths, output: out.path, blend: blend)
        configure(&options)
        return (out, try CompositeJob(options: options).run())
    }
}
