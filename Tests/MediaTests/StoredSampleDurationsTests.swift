import Foundation
import TestSupport
import XCTest

@testable import Media

/// A telemetry track's packets last their stored `stts` durations, not FFmpeg's: mov.c stretches
/// the last sample of the shared HERO7's `gpmd` track to the movie's end through its edit list
/// (ffprobe shows 1.735 s; the file stores 11 samples of 1001 ticks at 1000 Hz, read here by a
/// Python box walk when this test was written), and a copy written with the stretched length is
/// read late by telemetry-parser, which times samples by the summed stored durations.
final class StoredSampleDurationsTests: MediaTestCase {
    func testRunsExpandToOneDurationPerSample() {
        let runs: [UInt8] = [0, 0, 0, 3, 0, 0, 3, 0xE9, 0, 0, 0, 1, 0, 0, 2, 0]  // 3 x 1001, 1 x 512
        XCTAssertEqual(MP4Boxes.durations(runs: runs, entries: 2, sampleCount: 4), [1001, 1001, 1001, 512])
    }

    func testRunsThatDoNotAddUpAreNotUsed() {
        let runs: [UInt8] = [0, 0, 0, 3, 0, 0, 3, 0xE9]
        XCTAssertNil(MP4Boxes.durations(runs: runs, entries: 1, sampleCount: 4))  // too few
        XCTAssertNil(MP4Boxes.durations(runs: runs, entries: 1, sampleCount: 2))  // too many
        XCTAssertNil(MP4Boxes.durations(runs: Array(runs.prefix(4)), entries: 1, sampleCount: 3))  // cut
    }

    func testTheHERO7sLastPayloadLastsWhatTheFileStores() throws {
        let hero7 = Repository.shared("gopro-hero7/hero7.mp4")
        let packets = try TelemetryDemuxer(path: hero7).packets()
        XCTAssertEqual(packets.count, 11)
        for p in packets { XCTAssertEqual(p.duration, 1.001, accuracy: 1e-9) }
        // FFmpeg's own view of the last packet, the outside check that the two differ.
        let text = String(
            decoding: try Processes.check(
                "ffprobe", ["-v", "error", "-select_streams", "3", "-show_entries", "packet=duration_time", "-of", "csv=p=0", hero7]),
            as: UTF8.self)
        XCTAssertEqual(text.split(separator: "\n").last.flatMap { Double($0) } ?? 0, 1.735, accuracy: 1e-6)
    }
}
