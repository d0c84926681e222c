import Compositor
import Media
import TestSupport
import XCTest

@testable import Lockstep

/// The total progress counts toward is the output's length as the sync places the inputs: a
/// trimmed, offset or `--longest` input changes it (`composite --trim 1=0:3` counted toward the
/// whole clip's 352 frames and stopped at 20%).
final class ExpectedFramesTests: XCTestCase {
    func readers(_ names: [String]) throws -> [MovieReader] { try names.map { try MovieReader(path: Repository.fixture($0), audio: false) } }

    func testTrimsOffsetsAndCoverageSetTheTotal() throws {
        let inputs = ["q0.mp4", "q1.mp4"]  // 2.5 s and 2.2 s at 30 fps
        let r = try readers(inputs)
        var options = CompositeOptions(inputs: inputs.map(Repository.fixture), output: "/tmp/o.mp4", blend: .mix)
        XCTAssertEqual(CompositeJob.expectedFrames(r, options: options, frameRate: Rational(30, 1)), 66)
        options.clocks = [InputClock(trim: .init(start: Rational(0, 1), end: Rational(1, 1))), .identity]
        XCTAssertEqual(CompositeJob.expectedFrames(r, options: options, frameRate: Rational(30, 1)), 30)
        options.clocks = [InputClock(trim: .init(start: Rational(1, 2), end: nil)), .identity]
        // Input 1 from 0.5 s: the output starts there and ends with input 2 at 2.2 s.
        XCTAssertEqual(CompositeJob.expectedFrames(r, options: options, frameRate: Rational(30, 1)), 51)
        // Input 2 starts 1 s into input 1: they share 1.5 s; --longest covers 3.2 s.
        options.clocks = [.identity, InputClock(offset: Rational(1, 1))]
        XCTAssertEqual(CompositeJob.expectedFrames(r, options: options, frameRate: Rational(30, 1)), 45)
        options.coverage = .longest
        XCTAssertEqual(CompositeJob.expectedFrames(r, options: options, frameRate: Rational(30, 1)), 96)
        // Under index sync the frames themselves count.
        options = CompositeOptions(inputs: inputs.map(Repository.fixture), output: "/tmp/o.mp4", blend: .mix)
        options.sync = .index
        XCTAssertEqual(CompositeJob.expectedFrames(r, options: options, frameRate: Rational(30, 1)), 66)
    }
}
