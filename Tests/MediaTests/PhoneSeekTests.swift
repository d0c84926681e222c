import Compositor
import Foundation
import TestSupport
import XCTest

@testable import Media

/// Reading the shared phone clips out of order (segments, reverse) gives the frames ffprobe
/// shows, as reading from the start does: an edit list starting mid-GOP, and an open GOP whose
/// leading B-frames refer to a keyframe the edit list hides.
final class PhoneSeekTests: MediaTestCase {
    var iphone: String { Repository.shared("phones/sample_edit_list.mp4") }
    var openGOP: String { Repository.shared("phones/iibbibb_editlist_videoonly.mp4") }

    static func ffprobePTS(_ path: String) throws -> [Int64] {
        let data = try Processes.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts", "-of", "csv=p=0", path])
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Int64($0.split(separator: ",").first ?? "") }
    }

    /// The sample table's records are what reading the packets gives (or the table is not used).
    func testTheSampleTableAgreesWithThePackets() throws {
        for path in [iphone, openGOP] {
            let input = try InputFormat(path: path, cancellation: CancellationToken())
            let vs = try input.onlyBestVideoStream()
            let table = input.sampleTablePackets(of: vs)
            let pass = try input.indexPackets(of: vs, into: Packet())
            if let table { XCTAssertEqual(table, pass, path) }
            let reader = try MovieReader(path: path, audio: false)
            XCTAssertEqual(try reader.keyframeIndex().pts, try Self.ffprobePTS(path), path)
        }
    }

    /// Every segment of each clip, started with `MovieReader.start(at:)`, gives its frames, or
    /// (the open-GOP clip, whose I-frames FFmpeg will not start from: `ffmpeg -ss 10.5` on it
    /// writes nothing either) one sentence saying it cannot be started part way in; never
    /// other frames, and never fewer without that sentence.
    func testEverySegmentStartsWhereItShouldOrSaysItCannot() throws {
        try Self.segments([openGOP], openGOP: openGOP)
    }

    static func segments(_ paths: [String], openGOP: String) throws {
        var refused: [String] = []
        for path in paths {
            let shown = try Self.ffprobePTS(path)
            let index = try MovieReader(path: path, audio: false).keyframeIndex()
            for first in Set(index.segmentStarts + [shown.count - 1]).sorted() {
                let reader = try MovieReader(path: path, audio: false)
                try reader.start(at: first, seekingFrom: first, index: index)
                let frame = Frame()
                var got: [Int64] = []
                do {
                    loop: while true {
                        switch try reader.next(into: frame, audioSink: { _ in }) {
                        case .video(let p): got.append(p.source.pts.value); frame.unref()
                        case .audio: continue
                        case .end: break loop
                        }
                    }
                } catch let e as MediaError {
                    XCTAssertEqual(path, openGOP, "\(e)")
                    XCTAssertTrue(e.message.hasSuffix("this file cannot be started part way in"), "\(e)")
                    // Either nothing (a keyframe it will not start from, or one the demuxer
                    // cannot land on), or the right frames until the decoder holds the rest back
                    // (a job stops at the sentence and leaves nothing).
                    XCTAssertEqual(got, Array(shown[first..<(first + got.count)]), "only the right frames before the sentence")
                    refused.append("\(first)")
                    continue
                }
                XCTAssertEqual(got, Array(shown[first...]), "\(path) from frame \(first)")
            }
        }
        print("open-GOP clip: segments refused from frames \(refused.joined(separator: ", "))")
    }

    /// Reverse's reader: each range decoded alone gives its frames.
    func testEveryRangeDecodesAlone() throws {
        try Self.ranges([openGOP])
    }

    static func ranges(_ paths: [String]) throws {
        for path in paths {
            let shown = try Self.ffprobePTS(path)
            let reader = try SeekingVideoReader(path: path)
            for start in stride(from: shown.count - 1, through: 0, by: -5) {
                var got: [Int64] = []
                try reader.decode(start..<min(shown.count, start + 5)) { _, f in got.append(f.pointer.pointee.best_effort_timestamp) }
                XCTAssertEqual(got, Array(shown[start..<min(shown.count, start + 5)]), "\(path) frames from \(start)")
            }
        }
    }
}

/// The same on the iPhone clip (10-bit HEVC: every segment and range decoded is seconds of work).
final class PhoneSeekSlowTests: XCTestCase {
    func testTheIPhoneClipFromEverySegmentAndRange() throws {
        let iphone = Repository.shared("phones/sample_edit_list.mp4"), openGOP = Repository.shared("phones/iibbibb_editlist_videoonly.mp4")
        try PhoneSeekTests.segments([iphone], openGOP: openGOP)
        try PhoneSeekTests.ranges([iphone])
    }
}
