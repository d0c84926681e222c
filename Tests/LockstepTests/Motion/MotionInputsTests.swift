import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// One decode of a movie's telemetry per run (issue 42, item 10): the trace a motion command
/// follows and the movie's records come from the same `MotionTrace`, and the camera's stated
/// axes arrive typed. The decoder is counted through `MotionInputs`' reader.
final class MotionInputsTests: ScratchTestCase {
    static var karma: String { Repository.shared("karma.mp4") }

    /// Counts the decodes of the real reader.
    final class CountingReader: @unchecked Sendable {
        var paths: [String] = []
        func read(_ path: String) throws -> MotionTrace {
            paths.append(path)
            return try EmbeddedTelemetry.read(path: path)
        }
    }

    func testTheMovieIsDecodedOnceForItsTraceAndItsRecords() throws {
        let counter = CountingReader()
        let inputs = MotionInputs(video: Self.karma, imu: nil, trace: nil, readMovie: counter.read)
        XCTAssertNil(inputs.recordsRead, "nothing read yet")
        let records = inputs.records
        let source = try inputs.source()
        _ = try inputs.source()
        let trace = try source.single()
        XCTAssertEqual(counter.paths, [Self.karma], "one decode for the records and the trace")
        XCTAssertEqual(trace.axisMapping, .orientation("yxz"), "the HERO5's stated axes, typed")
        XCTAssertEqual(try source.readings().count, 4795)
        XCTAssertEqual(inputs.recordsRead, records)
        XCTAssertEqual(records, try EmbeddedTelemetry.read(path: Self.karma).records)
    }

    /// --imu naming another file: the movie is decoded once for its records, and never for the trace.
    func testAnotherTraceLeavesTheMovieToItsRecords() throws {
        let counter = CountingReader()
        let gcsv = Repository.fixtures.appendingPathComponent("imu/shake.gcsv").path
        let inputs = MotionInputs(video: Self.karma, imu: gcsv, trace: nil, readMovie: counter.read)
        let source = try inputs.source()
        XCTAssertEqual(counter.paths, [], "the trace is the gcsv")
        XCTAssertNil(try source.single().axisMapping, "a gcsv states Gyroflow's orientation, not a camera's axes")
        _ = inputs.records
        _ = inputs.records
        XCTAssertEqual(counter.paths, [Self.karma])
    }

    /// The movie's failure is told as before, and the decode that failed is not tried again.
    func testAMovieWithoutTelemetryIsToldOnce() throws {
        let counter = CountingReader()
        let plain = Repository.fixture("fg.mp4")
        let inputs = MotionInputs(video: plain, imu: nil, trace: nil, readMovie: counter.read)
        XCTAssertEqual(inputs.records, VideoMotionRecords())
        XCTAssertThrowsError(try inputs.source()) {
            XCTAssertEqual(
                "\($0)",
                "\(plain): no --imu TRACE given, and the movie has no gyro track of its own (GPMF or CAMM) to follow; give --imu TRACE (a trace store, a Gyroflow .gcsv, a .csv or a flight log)."
            )
        }
        XCTAssertEqual(counter.paths, [plain])
    }
}
