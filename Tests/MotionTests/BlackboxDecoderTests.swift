import Foundation
import Motion
import XCTest

/// The blackbox decoder on bytes written here by hand (no I/O): the frame loop, predictors and
/// encodings, a corrupt frame, a truncated end. Real and generated logs are checked against
/// telemetry-parser and scripts/fixtures/make-blackbox-log's truth in BlackboxCommandLineTests.
final class BlackboxDecoderTests: XCTestCase {
    /// Two fields per main frame besides iteration and time: gyroADC[0..2], so a frame is small.
    static func header(pInterval: String = "1/1", version: Int = 2, gyroScale: String = "0x3f800000", iInterval: String = "4") -> [UInt8] {
        let lines = [
            "Product:Blackbox flight data recorder by Nicholas Sherlock", "Data version:\(version)",
            "Field I name:loopIteration,time,gyroADC[0],gyroADC[1],gyroADC[2]", "Field I signed:0,0,1,1,1",
            "Field I predictor:0,0,0,0,0", "Field I encoding:1,1,0,0,0",
            "Field P predictor:6,2,1,1,1", "Field P encoding:9,0,7,7,7",
            "Firmware type:Cleanflight", "Firmware revision:Betaflight 4.4.0 (test) STM32F405",
            "I interval:\(iInterval)", "P interval:\(pInterval)", "gyro_scale:\(gyroScale)", "looptime:1000"
        ]
        return Array(lines.map { "H \($0)\n" }.joined().utf8)
    }
    static func uvb(_ v: UInt32) -> [UInt8] {
        var v = v, out: [UInt8] = []
        while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        return out + [UInt8(v)]
    }
    static func svb(_ v: Int32) -> [UInt8] { uvb(UInt32(bitPattern: (v << 1) ^ (v >> 31))) }
    static func iFrame(_ it: UInt32, _ t: UInt32, _ g: [Int32]) -> [UInt8] { [0x49] + uvb(it) + uvb(t) + g.flatMap(svb) }
    /// P frame: time by straight line (residual), gyro deltas as TAG2_3S32 with 6-bit fields.
    static func pFrame(_ dt: Int32, _ d: [Int32]) -> [UInt8] { [0x50] + svb(dt) + [0x80 | UInt8(d[0] & 0x3F), UInt8(d[1] & 0x3F), UInt8(d[2] & 0x3F)] }
    static let end: [UInt8] = [0x45, 0xFF] + Array("End of log\0".utf8)

    func testFramesPredictorsAndScale() {
        // I at 1000 us, then P frames 1000 us apart: time 2*prev - prev2 + residual.
        let bytes =
            Self.header() + Self.iFrame(0, 1000, [10, -20, 30]) + Self.pFrame(0, [1, -2, 3]) + Self.pFrame(5, [-1, 0, 31])
            + Self.pFrame(-5, [0, 0, -32]) + Self.end
        let logs = BlackboxDecoder.decode(bytes)
        XCTAssertEqual(logs.count, 1)
        let r = logs[0].readings
        XCTAssertNil(logs[0].problem)
        // t: I 1000; P1 = 2*1000 - 1000 + 0 = 1000 repeats the I frame's time (not used);
        // P2 = 2*1000 - 1000 + 5 = 1005; P3 = 2*1005 - 1000 - 5 = 1005... against P2, P1: 2*1005 - 1000 - 5 = 1005.
        XCTAssertEqual(r.map { $0.t / 1000 }, [1000, 1005])
        XCTAssertEqual(logs[0].droppedFrames, 2, "frames repeating the previous time are not used")
        XCTAssertEqual(logs[0].frames, BlackboxLog.FrameCounts(i: 1, p: 3, g: 0, h: 0, s: 0, e: 1))
        XCTAssertTrue(logs[0].endMarker)
        let deg = Double.pi / 180
        XCTAssertEqual(r[0].gyro.x, 10 * deg, accuracy: 1e-12)
        // Second P: 11-1 = 10, -22+0, 33+31 = 64 (previous-value predictor).
        XCTAssertEqual(r[1].gyro.z, 64 * deg, accuracy: 1e-12)
    }

    func testTimesFollowTheStraightLinePredictor() {
        let bytes = Self.header() + Self.iFrame(0, 1000, [0, 0, 0]) + Self.pFrame(1000, [0, 0, 0]) + Self.pFrame(3, [0, 0, 0]) + Self.end
        // P1: 2*1000 - 1000 + 1000 = 2000; P2: 2*2000 - 1000 + 3 = 3003.
        XCTAssertEqual(BlackboxDecoder.decode(bytes)[0].readings.map(\.t), [1_000_000, 2_000_000, 3_003_000])
    }

    func testACorruptFrameCostsThePFramesUntilTheNextIFrame() {
        let junk: [UInt8] = [0x50] + [UInt8](repeating: 0x80, count: 300)
        let bytes =
            Self.header() + Self.iFrame(0, 1000, [1, 1, 1]) + Self.pFrame(1000, [0, 0, 0]) + junk
            + Self.pFrame(0, [0, 0, 0]) + Self.pFrame(0, [0, 0, 0]) + Self.iFrame(4, 5000, [2, 2, 2]) + Self.pFrame(1000, [0, 0, 0]) + Self.end
        let log = BlackboxDecoder.decode(bytes)[0]
        XCTAssertEqual(log.readings.map { $0.t / 1_000_000 }, [1, 2, 5, 6])
        XCTAssertEqual(log.corruptFrames, 1)
        XCTAssertEqual(log.droppedFrames, 2)
        XCTAssertEqual(log.lostIterations, 2)
        XCTAssertEqual(
            log.warnings,
            [
                "the log: 1 corrupt frame skipped, 2 main frames after them not used (no I frame to resynchronise from, or time/iteration out of order)",
                "the log: 1 gap in the loop iterations, 2 iterations not logged; the first at 0.001 s"
            ])
    }

    /// A corrupt frame followed at once by what parses as a whole P frame: the readers invalidate
    /// the stream at the corrupt frame (parser.c flightLogInvalidateStream), so that P frame, whose
    /// predictions may come from garbage, is not used until an I frame resynchronises.
    func testAfterACorruptFrameNoPFrameIsTrusted() {
        // 'P' 0x50 0x00 parses as a P frame (dt 40, three 2-bit zeros) that ends at 0x80, not a
        // frame start: corrupt; the search goes on one byte later, where P(0, [0, 0, 0]) is whole.
        let bytes = Self.header() + Self.iFrame(0, 1000, [1, 1, 1]) + Self.pFrame(1000, [0, 0, 0]) + [0x50] + Self.pFrame(0, [0, 0, 0]) + Self.end
        let log = BlackboxDecoder.decode(bytes)[0]
        XCTAssertEqual(log.readings.map { $0.t / 1_000_000 }, [1, 2])
        XCTAssertEqual(log.corruptFrames, 1)
        XCTAssertEqual(log.droppedFrames, 1)
    }

    /// Intervals no firmware writes (found by hand while fuzzing): counting the iterations the
    /// intervals leave out stops at the largest jump a frame may make, instead of running two
    /// billion steps per P frame; the P frames, two billion iterations on, are refused.
    func testHugeIntervalsDoNotHangTheDecoder() {
        let bytes =
            Self.header(pInterval: "1/1000000000", iInterval: "2000000000") + Self.iFrame(0, 1000, [1, 1, 1])
            + Self.pFrame(1000, [0, 0, 0]) + Self.pFrame(0, [0, 0, 0]) + Self.pFrame(0, [0, 0, 0]) + Self.end
        let log = BlackboxDecoder.decode(bytes)[0]
        XCTAssertEqual(log.readings.count, 1)
        XCTAssertEqual(log.droppedFrames, 3)
    }

    func testATruncatedLogKeepsItsLastWholeFrame() {
        let whole = Self.header() + Self.iFrame(0, 1000, [1, 1, 1]) + Self.pFrame(1000, [0, 0, 0])
        let cut = Self.pFrame(1000, [0, 0, 0]).dropLast(2)
        let log = BlackboxDecoder.decode(whole + cut)[0]
        XCTAssertEqual(log.readings.count, 2)
        XCTAssertEqual(log.truncatedAt, whole.count)
        XCTAssertEqual(log.warnings, ["the log is truncated: it stops inside a frame at byte \(whole.count); kept up to its last whole frame, at 0.001 s"])
    }

    func testSeveralLogsAreSeveralAndABadHeaderSaysWhy() {
        let second = Array("H Product:Blackbox flight data recorder by Nicholas Sherlock\nH Data version:2\nH Field I name:a,b\n".utf8)
        let logs = BlackboxDecoder.decode(Self.header() + Self.iFrame(0, 1000, [0, 0, 0]) + Self.end + second + [0x49, 1, 2])
        XCTAssertEqual(logs.map(\.number), [1, 2])
        guard logs.count == 2 else { return }
        XCTAssertEqual(logs[1].logCount, 2)
        XCTAssertEqual(logs[1].problem, "its header gives 0 I frame predictors and 0 encodings for 2 fields")
        XCTAssertTrue(logs[1].readings.isEmpty)
        XCTAssertEqual(logs[0].deviceName, "log 1 of 2 from 0.001 s, Betaflight 4.4.0 (test) STM32F405")
    }

    /// `imu import`'s reading: each log decoded in batches (any size, the frame loop paused and
    /// resumed between them) gives the samples, counts and warnings of the whole decode, and
    /// releases every byte of the log once, in order.
    func testBatchesGiveWhatTheWholeLogGives() {
        let junk: [UInt8] = [0x50] + [UInt8](repeating: 0x80, count: 300)
        let second = Self.header() + Self.iFrame(0, 1000, [1, 1, 1]) + Self.pFrame(1000, [0, 0, 0]) + Self.pFrame(1000, [0, 0, 0]).dropLast(2)
        let bytes =
            Self.header() + Self.iFrame(0, 1000, [1, 1, 1]) + Self.pFrame(1000, [0, 0, 0]) + junk + Self.pFrame(0, [0, 0, 0])
            + Self.iFrame(4, 5000, [2, 2, 2]) + Self.pFrame(1000, [3, -4, 5]) + Self.pFrame(7, [1, 1, 1]) + Self.end + second
        let whole = BlackboxDecoder.decode(bytes)
        XCTAssertEqual(whole.count, 2)
        bytes.withUnsafeBufferPointer { buffer in
            let ranges = BlackboxDecoder.logRanges(buffer)
            XCTAssertEqual(ranges.map(\.lowerBound), [0, bytes.count - second.count])
            for size in [1, 2, 3, 4096] {
                for (k, range) in ranges.enumerated() {
                    var released: [Range<Int>] = []
                    let decoder = BlackboxLogDecoder(buffer, log: range, number: k + 1, of: ranges.count) { released.append($0) }
                    var readings: [IMUReading] = []
                    while true {
                        let batch = decoder.next(max: size)
                        XCTAssertLessThanOrEqual(batch.count, size)
                        if batch.isEmpty { break }
                        readings += batch
                    }
                    let log = decoder.log
                    XCTAssertEqual(readings, whole[k].readings, "log \(k + 1), batches of \(size)")
                    XCTAssertTrue(log.readings.isEmpty, "nothing kept")
                    XCTAssertEqual(log.sampleCount, whole[k].readings.count)
                    XCTAssertEqual(log.frames, whole[k].frames)
                    XCTAssertEqual(log.droppedFrames, whole[k].droppedFrames)
                    XCTAssertEqual(log.warnings, whole[k].warnings)
                    XCTAssertEqual(log.deviceName, whole[k].deviceName)
                    XCTAssertEqual(log.info(source: "x").metadata, whole[k].info(source: "x").metadata)
                    XCTAssertEqual(released.first?.lowerBound, range.lowerBound)
                    XCTAssertEqual(released.last?.upperBound, range.upperBound)
                    XCTAssertTrue(zip(released, released.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "\(released)")
                }
            }
            XCTAssertEqual(whole[0].corruptFrames, 1)
            XCTAssertNotNil(whole[1].truncatedAt)
        }
    }

    /// A header line of 4096 bytes (after "H ") is read; one of 4097 is the log's problem, named
    /// with its true length.
    func testAHeaderLineOverTheLimitIsTheProblem() {
        for (length, problem) in [(4096, "its header has no usable gyro_scale"), (4097, "its header line 'Firmware revision' is 4097 bytes long, over the 4096 a header line may have")] {
            let line = "Firmware revision:" + String(repeating: "x", count: length - 18)
            let bytes = Self.header(gyroScale: "none") + Array("H \(line)\n".utf8) + Self.iFrame(0, 1000, [0, 0, 0]) + Self.end
            XCTAssertEqual(BlackboxDecoder.decode(bytes)[0].problem, problem, "\(length)")
        }
    }

    func testTheContentTellsTheKind() {
        XCTAssertEqual(MotionFileKind.detect(head: Array("garbage\n".utf8) + Self.header(), tail: []), .blackbox)
        XCTAssertEqual(MotionFileKind.detect(head: Array("loopIteration, time (us), gyroADC[0] (deg/s)\n".utf8), tail: []), .blackboxCSV)
        XCTAssertEqual(MotionFileKind.detect(head: [0xA3, 0x95, 0x80, 0x80], tail: []), .dataflash)
        XCTAssertEqual(MotionFileKind.detect(head: [0, 0, 0, 0x18], tail: Array("8db42d694ccc418790edff439fe026bf".utf8)), .insta360)
        XCTAssertEqual(MotionFileKind.detect(head: Array("t_ns,gx,gy,gz\n".utf8), tail: []), .other)
    }

    func testTheBlackboxDecodeCSV() throws {
        var p = BlackboxCSV(source: "x.csv")
        let text =
            "loopIteration, time (us), gyroADC[0] (deg/s), gyroADC[1] (deg/s), gyroADC[2] (deg/s), accSmooth[0] (g), accSmooth[1] (g), accSmooth[2] (g)\n0, 1000, 180, 0, -90, 0, 0, 1\n8, 2000, 0, 0, 0, 0, 0, 1\n"
        var out: [IMUReading] = []
        for (n, line) in text.split(separator: "\n").enumerated() { if let s = try p.line(line, number: n + 1) { out.append(s) } }
        XCTAssertEqual(out.map(\.t), [1_000_000, 2_000_000])
        XCTAssertEqual(out[0].gyro.x, .pi, accuracy: 1e-12)
        XCTAssertEqual(out[0].gyro.z, -.pi / 2, accuracy: 1e-12)
        XCTAssertEqual(out[0].accel!.z, standardGravity, accuracy: 1e-12)
        XCTAssertThrowsError(try p.line("16, 2000, 0, 0, 0, 0, 0, 1", number: 4)) {
            XCTAssertEqual("\($0)", "x.csv:4: time 2000000 ns is not after the one on line 3 (2000000 ns)")
        }
    }
}
