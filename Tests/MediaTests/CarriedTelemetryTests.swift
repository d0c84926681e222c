import XCTest

@testable import Media

/// Which packets a cut keeps and where they go (no I/O): those from the cut's start on, moved by
/// it, the one straddling the start trimmed; the writer drops those that begin at or after the end.
final class CarriedTelemetryTests: XCTestCase {
    /// GoPro-like: 1.001 s payloads from 0, the last one short.
    let track = CarriedTelemetry(
        path: "GH010001.MP4", format: TelemetryTrackFormat(kind: .gpmf, handlerName: "GoPro MET"),
        packets: (0..<5).map { TelemetryTrackPacket(bytes: [UInt8($0)], time: 1.001 * Double($0), duration: $0 == 4 ? 0.5 : 1.001) })

    func testACutKeepsThePacketsFromItsStartAndMovesThemByIt() {
        // Packet 1 (1.001-2.002) straddles 1.5: without a trimmer it is left out.
        let kept = track.cut(from: 1.5)
        XCTAssertEqual(kept.map { $0.bytes[0] }, [2, 3, 4])
        XCTAssertEqual(kept[0].time, 2.002 - 1.5, accuracy: 1e-12)
        XCTAssertEqual(kept[0].duration, 1.001)
    }

    func testTheStraddlingPacketIsTrimmedToBeginAtTheCut() {
        var asked: [(UInt8, Double)] = []
        let kept = track.cut(from: 1.5) { p, offset in
            asked.append((p.bytes[0], offset))
            return [9, p.bytes[0]]
        }
        XCTAssertEqual(asked.map(\.0), [1])
        XCTAssertEqual(asked[0].1, 1.5 - 1.001, accuracy: 1e-12)
        XCTAssertEqual(kept.map(\.bytes), [[9, 1], [2], [3], [4]])
        XCTAssertEqual(kept[0].time, 0)  // never before the output's 0
        XCTAssertEqual(kept[0].duration, 2.002 - 1.5, accuracy: 1e-12)  // to the packet's own end
        XCTAssertEqual(kept[1].time, 2.002 - 1.5, accuracy: 1e-12)
        let placed = track.cut(from: 1.5, placedAt: 3) { _, _ in [9] }
        XCTAssertEqual(placed[0].time, 3)
    }

    func testAPacketEndingExactlyAtTheStartIsNotKept() {
        XCTAssertEqual(track.cut(from: 2.002) { _, _ in [99] }.map { $0.bytes[0] }, [2, 3, 4])
        XCTAssertEqual(track.cut(from: 0).map { $0.bytes[0] }, [0, 1, 2, 3, 4])
    }

    func testPlacedAtMovesTheStartToTheOffset() {
        // A chapter's packets from its time 0, placed where the chapter starts in the join.
        let placed = track.cut(from: 0, placedAt: 10.5)
        XCTAssertEqual(placed.map(\.time), [10.5, 11.501, 12.502, 13.503, 14.504].map { $0 }, accuracy: 1e-9)
    }

    func testAfterTheLastPacketNothingIsKept() {
        XCTAssertEqual(track.cut(from: 4.004 + 0.5) { _, _ in [0] }.count, 0)
        XCTAssertEqual(track.cut(from: 4.004 + 0.49) { _, _ in [0] }.count, 1)
    }

    func testOnlyGPMFCanBeWritten() {
        XCTAssertNil(TelemetryTrackFormat(kind: .gpmf, handlerName: "GoPro MET").unwritable)
        XCTAssertEqual(
            TelemetryTrackFormat(kind: .camm, handlerName: "CameraMetadataMotionHandler").unwritable,
            "FFmpeg's MP4 muxer cannot write a CAMM (camm) sample entry")
    }

    func testTicksAreTheNearest90kHzTick() {
        XCTAssertEqual(TelemetryLane.ticks(1.001), 90_090)
        XCTAssertEqual(TelemetryLane.ticks(-100.0 * 1001 / 30000), -300_300)
        XCTAssertEqual(TelemetryLane.ticks(1001.0 / 24000), 3754)  // 3753.75: the rounding the lane documents
    }
}

private func XCTAssertEqual(_ a: [Double], _ b: [Double], accuracy: Double, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, file: file, line: line) }
}
