import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Lockstep

/// Where an output must not carry the camera's telemetry although the input has it: `reverse`
/// (its time runs backwards: the gyro's samples would lie against the picture) and `stabilise`
/// (the picture no longer turns as the gyro says; a tool stabilising the output from it would
/// correct it twice). Each output has no data track at all (ffprobe), and each says why.
final class TelemetryNotKeptTests: ScratchTestCase {
    static var karma: String { Repository.shared("karma.mp4") }

    /// ffprobe's codec types of `path`'s streams.
    func streamTypes(_ path: String) throws -> [String] {
        let out = try Shell.check("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", path])
        return String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func testTheSourceHasADataTrack() throws {
        XCTAssertTrue(try streamTypes(Self.karma).contains("data"))
    }

    func testAReversalHasNoDataTrackAndSaysWhy() throws {
        let out = scratch.appendingPathComponent("reversed.mp4").path
        let r = try Processes.lockstep(["reverse", Self.karma, "--from", "2", "--to", "3", "--size", "214x120", "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(
            r.stderr.contains(
                "note: \(Self.karma): its GPMF telemetry track is not kept in the output: the output's time runs backwards: the camera's samples would not match its picture\n"),
            r.stderr)
        XCTAssertEqual(try streamTypes(out), ["video", "audio"])
    }

    func testAReversalOfAClipWithoutTelemetrySaysNothingOfIt() throws {
        let out = scratch.appendingPathComponent("reversed.mp4").path
        let r = try Processes.lockstep(["reverse", Repository.fixture("bg.mp4"), "--to", "0.3", "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains("telemetry"), r.stderr)
    }

    func testAStabilisedMovieHasNoDataTrackAndSaysWhy() throws {
        // A hand-written profile (karma.mp4's focal length from real-camera-facts.md, an offset
        // of 0 so that the trace covers every frame; a wrong offset only steadies it less):
        // no calibrate runs first.
        let profile = scratch.appendingPathComponent("karma.json").path
        try Data(#"{"name": "karma", "axisMapping": "XYZ", "timeOffsetMs": 0, "focalLengthPx": 548, "gyroBias": [0, 0, 0]}"#.utf8)
            .write(to: URL(fileURLWithPath: profile))
        let out = scratch.appendingPathComponent("steady.mp4").path
        // The stabilise command's job (`CompositeOptions.stabilise`), cut short in the library:
        // the command itself has no --from/--to.
        var stabilise = StabiliseOptions()
        stabilise.calibration = profile
        var options = CompositeOptions.stabilise(input: Self.karma, output: out, options: stabilise)
        options.size = Size(width: 214, height: 120)
        options.cut = try TimeCut(from: "2", to: "3")
        let notices = TelemetryKeptTests.Lines()
        _ = try CompositeJob(options: options, events: JobEvents(notice: { notices.append($0) })).run()
        XCTAssertTrue(
            notices.all.contains("\(Self.karma): its GPMF telemetry track is not kept in the output: the picture is stabilised: it no longer moves as the camera's gyro says"),
            "\(notices.all)")
        XCTAssertEqual(try streamTypes(out), ["video", "audio"])
    }
}
