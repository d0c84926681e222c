import Foundation
import Motion
import XCTest

/// A short clip beside a long log (a drone's flight, a phone's whole session): the default search
/// spans the whole trace, so the coarse search runs a mapping-free first pass by FFT and scans
/// the 24 orientations only near its peaks.
final class LongTraceSyncTests: XCTestCase {
    /// The rig's 6 s clip with its IMU readings placed `atS` seconds into a `lengthS` trace; the rest
    /// of the trace is the same IMU at rest (bias and noise) except in `busy` spans, where it turns
    /// about all three axes on other sines (a carried camera between takes).
    static func longTrace(_ rig: SyntheticRig, lengthS: Double, busy: [ClosedRange<Double>], keepClip: Bool = true)
        -> (shifts: [VideoShift], readings: [IMUReading])
    {
        let (shifts, clip) = rig.make()
        var rng = SplitMix(rig.seed &+ 1)
        func filler(_ t: Double) -> IMUReading {
            var r = [0.0, 0.0, 0.0]
            if busy.contains(where: { $0.contains(t) }) {
                r = [0.6 * sin(0.9 * t) + 0.3 * sin(2.7 * t + 1), 0.5 * sin(1.7 * t + 2) + 0.2 * sin(5.3 * t), 0.4 * sin(1.1 * t + 0.5)]
            }
            let g = (0..<3).map { r[$0] + rig.bias[$0] + rig.gyroNoise * rng.gaussian() }
            return IMUReading(t: Int64((t * 1e9).rounded()), gyro: SIMD3(g[0], g[1], g[2]))
        }
        let first = Double(clip[0].t) / 1e9, last = Double(clip[clip.count - 1].t) / 1e9
        var readings: [IMUReading] = []
        var t = 0.0
        while t < first - 1e-6 { readings.append(filler(t)); t += 1 / rig.imuHz }
        readings += keepClip ? clip : clip.map { filler(Double($0.t) / 1e9) }
        t = last + 1 / rig.imuHz
        while t <= lengthS { readings.append(filler(t)); t += 1 / rig.imuHz }
        return (shifts, readings)
    }

    func testAShortClipAgainstALongTraceFindsTheOffsetWithinAMillisecond() throws {
        for name in ["XYZ", "xZy", "YxZ"] {
            var rig = SyntheticRig()
            rig.seconds = 6
            rig.mapping = .orientation(name)
            // The clip starts 400.19 s into the IMU's clock: video = IMU + offset.
            rig.clock = .constant(offsetMs: -400_187.3)
            let (shifts, readings) = Self.longTrace(rig, lengthS: 500, busy: [100...250, 430...480])
            let clock = ContinuousClock()
            var result: GyroSync.Result?
            let took = try clock.measure { result = try GyroSync.run(shifts: shifts, readings: readings, options: .init()) }
            let r = try XCTUnwrap(result)
            print("long trace \(name): \(readings.count) readings over 500 s, search \(r.searchedMs) ms, took \(took), offset \(r.clock.offsetMs(atVideo: 0)) ms, confidence \(r.confidence)")
            XCTAssertLessThan(r.searchedMs.lowerBound, -490_000, name)
            XCTAssertGreaterThan(r.searchedMs.upperBound, 0, name)
            XCTAssertEqual(r.clock.offsetMs(atVideo: 0), -400_187.3, accuracy: 1, name)
            let found = try XCTUnwrap(SignedPermutation(r.mapping)), truth = try XCTUnwrap(SignedPermutation(rig.mapping))
            XCTAssertEqual(found.axes[0...1], truth.axes[0...1], name)
            XCTAssertEqual(found.signs[0...1], truth.signs[0...1], name)
            XCTAssertGreaterThan(r.confidence, 0.7, name)
        }
    }

    /// The same long trace with the clip's own stretch replaced by rest: what is left moves, but
    /// not like the video, and must not be trusted.
    func testALongTraceWithoutTheClipsMotionIsNotTrusted() throws {
        var rig = SyntheticRig()
        rig.seconds = 6
        rig.clock = .constant(offsetMs: -400_187.3)
        let (shifts, readings) = Self.longTrace(rig, lengthS: 500, busy: [100...250, 430...480], keepClip: false)
        do {
            let r = try GyroSync.run(shifts: shifts, readings: readings, options: .init())
            print("unrelated long trace: offset \(r.clock.offsetMs(atVideo: 0)) ms, confidence \(r.confidence)")
            XCTAssertLessThan(r.confidence, 0.3)
        } catch {
            print("unrelated long trace: \(error)")
        }
    }

    /// Where the whole range is cheap enough to scan, the first pass must find what the scan of
    /// every offset finds: the same orientation and offset, forced on by a limit of 0.
    func testTheFirstPassFindsWhatTheFullScanFinds() throws {
        for (name, offset) in [("XYZ", 143.0), ("xZy", 2500), ("zXy", -1700), ("YxZ", 143)] {
            var rig = SyntheticRig()
            rig.mapping = .orientation(name)
            rig.clock = .constant(offsetMs: offset)
            let (shifts, readings) = rig.make()
            let full = try GyroSync.run(shifts: shifts, readings: readings, options: .init())
            let near = try GyroSync.run(shifts: shifts, readings: readings, options: .init(exhaustiveSearchLimit: 0))
            print(
                "\(name) \(offset) ms: full scan \(full.clock.offsetMs(atVideo: 0)) ms, confidence \(full.confidence), runner-up \(full.runnerUpPeak); first pass \(near.clock.offsetMs(atVideo: 0)) ms, confidence \(near.confidence), runner-up \(near.runnerUpPeak)"
            )
            XCTAssertEqual(near.mapping, full.mapping, name)
            XCTAssertEqual(near.clock.offsetMs(atVideo: 0), full.clock.offsetMs(atVideo: 0), accuracy: 0.01, name)
            XCTAssertEqual(near.clock.offsetMs(atVideo: 0), offset, accuracy: 1, name)
            XCTAssertEqual(near.searchScore, full.searchScore, accuracy: 1e-9, name)
            XCTAssertEqual(near.confidence, full.confidence, accuracy: 0.05, name)
        }
    }

    /// The first pass keeps the full scan's rule: an answer at the edge of the range is refused.
    func testAPeakAtTheEdgeOfTheRangeIsStillRefused() throws {
        let (shifts, readings) = SyntheticRig().make()
        XCTAssertThrowsError(try GyroSync.run(shifts: shifts, readings: readings, options: .init(searchMs: 50, exhaustiveSearchLimit: 0))) {
            XCTAssertTrue("\($0)".contains("outside the search range") && "\($0)".contains("--search-ms"), "\($0)")
        }
    }

    /// One glitched timestamp three years after the rest (a valid timestamp on its own): the
    /// default range spans the trace, and its grid of offsets (and the first pass's cells) ran
    /// the process out of memory. Now one sentence (the limit is a day: GyroSync's range check).
    func testATraceSpanningYearsIsRefusedWithASentence() throws {
        var rig = SyntheticRig()
        rig.seconds = 6
        let (shifts, clip) = rig.make()
        var readings = clip
        readings.append(IMUReading(t: clip[clip.count - 1].t + 94_608_000_000_000_000, gyro: SIMD3(0, 0, 0)))
        XCTAssertThrowsError(try GyroSync.run(shifts: shifts, readings: readings, options: .init())) {
            XCTAssertTrue("\($0)".hasPrefix("the trace spans 9460800"), "\($0)")
            XCTAssertTrue("\($0)".hasSuffix(" s, and calibrate searches offsets over at most 86400 s (a day): cut the trace to the session around the video, or give --search-ms"), "\($0)")
        }
    }

    /// A long trace that never moves: no candidate, one sentence saying so.
    func testAStillLongTraceIsRefusedWithASentence() throws {
        var rig = SyntheticRig()
        rig.seconds = 6
        rig.clock = .constant(offsetMs: -400_187.3)
        rig.gyroNoise = 0
        let (shifts, readings) = Self.longTrace(rig, lengthS: 500, busy: [], keepClip: false)
        XCTAssertThrowsError(try GyroSync.run(shifts: shifts, readings: readings, options: .init())) {
            XCTAssertEqual("\($0)", "no stretch of the trace moves like the video at any offset in the search range (-497014 to +2984 ms): is it the right trace?")
        }
    }
}
