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

    /// Renders `inputs` (fixture names or paths) into `name` in the scratch folder, FLAC audio into
    /// Matroska, GOP 10, optionally only `frames`: how the segment tests render.
    func render(
        _ blend: BlendMode, _ inputs: [String], _ name: String, frames: FrameRange? = nil,
        configure: (inout CompositeOptions) -> Void = { _ in }
    ) throws -> (URL, CompositeResult) {
        let out = scratch.appendingPathComponent(name)
        var options = CompositeOptions(inputs: inputs.map { $0.hasPrefix("/") ? $0 : Fixtures.url($0).path }, output: out.path, blend: blend)
        options.encode.gop = 10
        options.encode.audioCodec = .flac
        options.frames = frames
        configure(&options)
        return (out, try CompositeJob(options: options).run())
    }

    /// Renders the segments between consecutive `cuts` ("seg-J.mkv" via `render`): each must
    /// have its frames, and each past the first must decode fewer than its frames plus
    /// `extraDecoded` pictures per input (it seeks; it does not decode from the start).
    /// Returns the files and every frame's provenance record, in order.
    func renderSegments(
        cuts: [Int64], extraDecoded: Int, file: StaticString = #filePath, line: UInt = #line,
        _ render: (String, FrameRange) throws -> (URL, CompositeResult)
    ) throws -> (files: [URL], records: [Provenance]) {
        var files: [URL] = [], records: [Provenance] = []
        for j in 0..<cuts.count - 1 {
            let (url, result) = try render("seg-\(j).mkv", FrameRange(start: cuts[j], end: cuts[j + 1]))
            XCTAssertEqual(result.frames, cuts[j + 1] - cuts[j], "segment \(j)", file: file, line: line)
            if j > 0 {
                for (i, n) in result.picturesDecoded.enumerated() {
                    XCTAssertLessThan(n, Int(cuts[j + 1] - cuts[j]) + extraDecoded, "input \(i + 1), segment \(j)", file: file, line: line)
                }
            }
            files.append(url)
            records += try SegmentRenderTests.provenance(url)
        }
        return (files, records)
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
