import Motion
import XCTest

@testable import IIO

/// Pacing and the looping sequence, with the host clock passed in: no sockets, no sleeping.
final class ReplayStreamTests: XCTestCase {
    /// 10 samples 5 ms apart, from t = 1 ms.
    let samples = (0..<10).map { IMUReading(t: 1_000_000 + Int64($0) * 5_000_000, gyro: SIMD3(0, 0, 0)) }
    let start: UInt64 = 1_000_000_000_000

    func stream(_ samples: [IMUReading], speed: Double, loop: Bool = false) throws -> ReplayStream {
        let d = try ReplayDevice(info: TraceInfo(deviceName: "g", sourceURI: "x"), samples: samples, hasAccel: false)
        return try XCTUnwrap(ReplayStream(device: d, mask: 0xf, speed: speed, loop: loop, startHost: start))
    }

    func testSamplesFallDueByTheirTimestampsOverTheSpeed() throws {
        let s = try stream(samples, speed: 2)
        XCTAssertEqual((0..<4).map(s.due), [start, start + 2_500_000, start + 5_000_000, start + 7_500_000])
        // Four samples wanted at the start: only the first is due; wait for the fourth.
        XCTAssertEqual(s.step(remaining: 4, now: start, since: start), .wait(until: start + 7_500_000))
        XCTAssertEqual(s.step(remaining: 4, now: start + 7_500_000, since: start), .send(4))
        XCTAssertEqual(try stream(samples, speed: 0).step(remaining: 4, now: 0, since: 0), .send(4), "speed 0: all at once")
    }

    func testAChunkWaitsAtMostASecondThenSendsWhatIsDue() throws {
        // 1000 samples 5 ms apart at real time: the last of them is due after ~5 s.
        let long = (0..<1000).map { IMUReading(t: Int64($0) * 5_000_000, gyro: SIMD3(0, 0, 0)) }
        let s = try stream(long, speed: 1)
        XCTAssertEqual(s.step(remaining: 1000, now: start, since: start), .wait(until: start + ReplayStream.maxWait))
        XCTAssertEqual(s.step(remaining: 1000, now: start + ReplayStream.maxWait, since: start), .send(201), "0 to 1000 ms")
    }

    func testATinySpeedNeverTraps() throws {
        // --speed 1e-300: the second sample is due 5e305 ns from now, which no clock holds.
        let s = try stream(samples, speed: 1e-300)
        XCTAssertEqual(s.due(0), start)
        XCTAssertEqual(s.due(1), .max)
        XCTAssertEqual(s.step(remaining: 1, now: start, since: start), .send(1))
        var t = try stream(samples, speed: 1e-300)
        t.next = 1
        XCTAssertEqual(t.step(remaining: 2, now: start, since: start), .wait(until: start + ReplayStream.maxWait))
        XCTAssertEqual(
            t.step(remaining: 2, now: start + ReplayStream.maxWait, since: start),
            .wait(until: start + 2 * ReplayStream.maxWait), "nothing due: look again in a second")
        XCTAssertEqual(t.step(remaining: 2, now: .max - 5, since: .max - 10), .wait(until: .max), "a clock at its end saturates")
    }

    func testExtremeTimestampsEndTheLoopInsteadOfOverflowing() throws {
        // Timestamps 5 ns below Int64.max: a loop has no room for a second pass.
        let top = [IMUReading(t: .max - 10, gyro: SIMD3(0, 0, 0)), IMUReading(t: .max - 5, gyro: SIMD3(0, 0, 0))]
        let s = try stream(top, speed: 1, loop: true)
        XCTAssertEqual(s.length, 2)
        XCTAssertEqual(s.step(remaining: 5, now: start + 5, since: start), .send(2))
        var after = s
        after.next = 2
        XCTAssertEqual(after.step(remaining: 3, now: start, since: start), .end)
        // A span wider than Int64 (the difference overflows): it plays once, and pacing saturates.
        let wide = [IMUReading(t: .min, gyro: SIMD3(0, 0, 0)), IMUReading(t: .max, gyro: SIMD3(0, 0, 0))]
        let w = try stream(wide, speed: 1, loop: true)
        XCTAssertEqual(w.length, 2)
        XCTAssertEqual(w.due(1), .max)
        // An ordinary trace loops for as long as its timestamps fit.
        let d = try ReplayDevice(info: TraceInfo(deviceName: "g", sourceURI: "x"), samples: samples, hasAccel: false)
        XCTAssertEqual(d.length(looping: false), 10)
        XCTAssertEqual(d.loopPeriod, 50_000_000)
        XCTAssertEqual(d.length(looping: true), Int((Int64.max - samples[9].t) / 50_000_000 + 1) * 10)
        XCTAssertEqual(d.timestamp(d.loopLength - 1), samples[9].t + Int64(d.loopLength / 10 - 1) * 50_000_000)
    }
}
