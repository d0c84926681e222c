import NIOCore
import XCTest

@testable import IIO

/// The framing of what clients send, without sockets: lines, WRITE payloads, and bounds.
final class IIODRequestDecoderTests: XCTestCase {
    /// Feeds `bytes` in pieces of `chunk` bytes, as reads would deliver them, decoding after each;
    /// returns the requests and the most bytes ever left buffered.
    func decode(_ bytes: [UInt8], chunk: Int, maxLine: Int = 4096, maxPayload: Int = 4096) -> (requests: [IIODRequest], peak: Int) {
        var decoder = IIODRequestDecoder(maxLine: maxLine, maxPayload: maxPayload)
        var buffer = ByteBuffer()
        var out: [IIODRequest] = [], peak = 0
        var i = 0
        while i < bytes.count {
            buffer.writeBytes(bytes[i..<min(bytes.count, i + chunk)])
            i += chunk
            while let r = decoder.decode(buffer: &buffer) { out.append(r) }
            peak = max(peak, buffer.readableBytes)
            buffer.discardReadBytes()
        }
        return (out, peak)
    }

    let session = Array("PRINT\r\nTIMEOUT 2500\r\nREAD iio:device0 INPUT anglvel_x scale\r\nWRITE iio:device0 sampling_frequency 4\r\n200\u{0}\r\nEXIT\r\n".utf8)

    func testLinesAndAWritePayloadHowEverTheBytesAreSplit() {
        let want: [IIODRequest] = [
            .command(.print, payload: []), .command(.timeout(2500), payload: []),
            .command(.read(device: "iio:device0", target: .channel("anglvel_x", output: false), attribute: "scale"), payload: []),
            .command(.write(device: "iio:device0", target: .device, attribute: "sampling_frequency", length: 4), payload: Array("200\u{0}".utf8)),
            .command(.empty, payload: []),  // the "\r\n" after the payload, as 0.24 clients send before EXIT
            .command(.exit, payload: [])
        ]
        for chunk in [1, 2, 3, 7, 64, session.count] {
            XCTAssertEqual(decode(session, chunk: chunk).requests, want, "in pieces of \(chunk)")
        }
    }

    func testAPayloadMayHoldNewlinesAndIsNotParsedAsCommands() {
        let bytes = Array("WRITE iio:device0 BUFFER enable 6\r\nX\nY\nZ\nVERSION\n".utf8)
        XCTAssertEqual(
            decode(bytes, chunk: 5).requests,
            [
                .command(.write(device: "iio:device0", target: .buffer, attribute: "enable", length: 6), payload: Array("X\nY\nZ\n".utf8)),
                .command(.version, payload: [])
            ])
    }

    func testAnOversizeLineIsDroppedAsItArrivesAndReportedOnce() {
        // 1 MiB without a newline, in reads of 64 KiB: never more than the bound plus one read is held.
        let junk = [UInt8](repeating: UInt8(ascii: "A"), count: 1 << 20) + Array("\r\nTIMEOUT 1\r\n".utf8)
        let (requests, peak) = decode(junk, chunk: 65536, maxLine: 4096)
        XCTAssertEqual(requests, [.lineTooLong, .command(.timeout(1), payload: [])])
        XCTAssertLessThanOrEqual(peak, 4096 + 65536)
        // A line just over the bound arriving whole, and one exactly at it.
        XCTAssertEqual(decode(Array(String(repeating: "B", count: 101).utf8) + [10], chunk: 1000, maxLine: 100).requests, [.lineTooLong])
        XCTAssertEqual(decode(Array(String(repeating: "B", count: 100).utf8) + [10], chunk: 1000, maxLine: 100).requests, [.command(.unknown, payload: [])])
    }

    func testAWriteAnnouncingMoreThanTheBoundIsRefusedWithoutWaitingForIt() {
        let bytes = Array("WRITE iio:device0 sampling_frequency 99999999999\r\n".utf8)
        XCTAssertEqual(
            decode(bytes, chunk: 8).requests,
            [.payloadTooLarge(.write(device: "iio:device0", target: .device, attribute: "sampling_frequency", length: 99_999_999_999))])
    }

    func testGarbageBecomesUnknownCommandsAndNeverTraps() {
        var rng = SplitMix64(seed: 9)
        let garbage = (0..<200_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let (requests, peak) = decode(garbage, chunk: 4093, maxLine: 4096)
        XCTAssertGreaterThan(requests.count, 100, "random bytes hold plenty of newlines")
        XCTAssertLessThanOrEqual(peak, 4096 + 4093)
        XCTAssertTrue(
            requests.allSatisfy { r in
                switch r {
                case .lineTooLong, .command(.unknown, _), .command(.empty, _): true
                default: false
                }
            })
    }

    func testAnUnfinishedLineAtTheEndIsDropped() {
        var decoder = IIODRequestDecoder()
        var buffer = ByteBuffer(string: "PRINT\r\nREAD iio:dev")
        XCTAssertEqual(decoder.decodeLast(buffer: &buffer, seenEOF: true), .command(.print, payload: []))
        XCTAssertNil(decoder.decodeLast(buffer: &buffer, seenEOF: true))
        XCTAssertEqual(buffer.readableBytes, 0)
    }
}

/// A small seeded generator, so "random" test input is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
