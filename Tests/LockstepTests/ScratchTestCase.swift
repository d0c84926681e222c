import Compositor
import Foundation
import TestSupport
import XCTest
@testable import Lockstep

/// A test case with a fresh scratch folder (TestSupport's), and a way to composite into it.
class ScratchTestCase: ScratchFolderTestCase {

    /// Composites `inputs` (fixture names, or paths) into a new file in the scratch folder.
    func compose(_ blend: BlendMode, _ inputs: [String], _ configure: (inout CompositeOptions) -> Void = { _ in }) throws -> (URL, CompositeResult) {
        try Self.compose(in: scratch, blend, inputs, configure)
    }

    /// `compose` from any thread (the test case itself is not Sendable).
    static func compose(in scratch: URL, _ blend: BlendMode, _ inputs: [String], _ configure: (inout CompositeOptions) -> Void = { _ in }) throws -> (URL, CompositeResult) {
        let out = scratch.appendingPathComponent("\(blend.rawValue)-\(UUID().uuidString.prefix(6)).mp4")
        let paths = inputs.map { $0.hasPrefix("/") ? $0 : Fixtures.url($0).path }
        var options = CompositeOptions(inputs: paths, output: out.path, blend: blend)
        configure(&options)
        return (out, try CompositeJob(options: options).run())
    }
}
