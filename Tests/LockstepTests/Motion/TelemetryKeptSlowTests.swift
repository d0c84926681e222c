import Compositor
import Foundation
import Media
import TestSupport
import XCTest

@testable import Lockstep

/// The GPMF track kept through `filter --filter none` on the other real GoPro files (a HERO7
/// with TICK stamps and a short first payload, a MAX with STMP stamps and per-frame CORI/IORI),
/// read by telemetry-parser, ffprobe and the `lockstep imu info` command itself; and
/// `calibrate` reading a copy's own gyro as it reads the original's. Slow: whole clips.
final class TelemetryKeptSlowTests: ScratchTestCase {
    func copy(_ source: String, _ name: String, args: [String] = []) throws -> String {
        let out = scratch.appendingPathComponent(name).path
        let r = try Processes.lockstep(["filter", source, "--filter", "none", "-o", out] + args)
        XCTAssertEqual(r.status, 0, r.stderr)
        return out
    }

    /// `lockstep imu info PATH`'s report, as printed.
    func info(_ path: String) throws -> String {
        let r = try Processes.lockstep(["imu", "info", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout.replacingOccurrences(of: path, with: "FILE")
    }

    func testHERO7AndMAXCopiesKeepTheirTelemetry() throws {
        for (source, name) in [(Repository.shared("gopro-hero7/hero7.mp4"), "hero7.mp4"), (Repository.shared("gopro-max/max-heromode.mp4"), "max.mp4")] {
            let out = try copy(source, name, args: ["--size", "424x240"])
            let payloads = try XCTUnwrap(try probeTrack(source)).packets.count
            try assertGyro(out, source: source, keeps: 0..<payloads, start: 0)
            // The command's own report: the same streams, counts and rates as the original's.
            XCTAssertEqual(try info(out), try info(source), name)
        }
    }

    /// A cut of the MAX clip: its STMP-timed streams (gyro, and SHUT that places the frames)
    /// trimmed together in the straddling payload.
    func testACutOfTheMAXClipKeepsItsStampedGyroInTime() throws {
        let source = Repository.shared("gopro-max/max-heromode.mp4")
        let out = try copy(source, "max-cut.mp4", args: ["--size", "424x240", "--from", "2.5", "--to", "6"])
        // Frames from floor(2.5 * 29.97) = 74.
        try assertGyro(out, source: source, keeps: 2..<6, start: 74.0 * 1001 / 30000)
    }

    /// `calibrate` with no --imu reads the movie's own gyro: on a full-size copy it finds the
    /// offset it finds on karma.mp4 (the picture re-encoded, the gyro's times carried), within
    /// what re-encoding the picture moves it.
    func testCalibrateReadsACopysGyroAsTheOriginals() throws {
        let karma = Repository.shared("karma.mp4")
        let out = try copy(karma, "karma-copy.mp4")
        func offset(_ movie: String, _ name: String) throws -> Double {
            let profile = scratch.appendingPathComponent(name).path
            let r = try Processes.lockstep(["calibrate", movie, "-o", profile, "--quiet"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: profile))) as? [String: Any])
            return try XCTUnwrap(json["timeOffsetMs"] as? Double, "\(json.keys.sorted())")
        }
        let a = try offset(karma, "original.json"), b = try offset(out, "copy.json")
        print("TelemetryKeptSlowTests: calibrate offset \(a) ms (original), \(b) ms (copy)")
        // Within what re-encoding alone moves the estimate on this gimbal-steady clip (one sync
        // point): the copy's pictures are the original's full-range frames in limited range,
        // re-encoded; copies at CRF 0, 8 and the default read 17.5, 17.7 and 20.0 ms against
        // 15.8 ms, with the gyro's times carried exactly. A copy a frame off (33 ms) or half a
        // frame off fails.
        XCTAssertEqual(a, b, accuracy: 6)
    }
}
