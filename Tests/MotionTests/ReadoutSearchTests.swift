import Foundation
import Motion
import XCTest

/// The rolling shutter's readout from region flow against a gyro, on flows made here: a camera
/// shaken by sines (its rotation integrated in closed form, not by the search's trapezoids),
/// a 5 x 3 grid of regions over a 1280 x 720 picture whose row y is exposed at
/// t + readout * y / 720 (y from the centre), each region moved by a pinhole's small-angle
/// projection of its own interval's turn, plus noise.
final class ReadoutSearchTests: XCTestCase {
    static let width = 1280, height = 720
    static let f = 800.0

    /// Rate (rad/s) about x, y, z at t seconds, and its integral from 0: sums of sines at hand
    /// shake frequencies (scaled by `amount`).
    struct Shake {
        var amount: Double
        let parts: [[(a: Double, hz: Double, phase: Double)]] = [
            [(0.30, 2.7, 0.3), (0.20, 6.1, 1.9), (0.12, 10.9, 4.0)],
            [(0.35, 3.3, 2.2), (0.18, 7.4, 0.7), (0.10, 9.6, 5.1)],
            [(0.15, 4.3, 1.1), (0.08, 8.2, 3.3)]
        ]
        func rate(_ t: Double) -> SIMD3<Double> {
            let v = parts.map { $0.reduce(0.0) { $0 + $1.a * sin(2 * .pi * $1.hz * t + $1.phase) } }
            return SIMD3(v[0], v[1], v[2]) * amount
        }
        func angle(_ t: Double) -> SIMD3<Double> {
            let v = parts.map { $0.reduce(0.0) { $0 - $1.a / (2 * .pi * $1.hz) * cos(2 * .pi * $1.hz * t + $1.phase) } }
            return SIMD3(v[0], v[1], v[2]) * amount
        }
    }

    /// `seconds` of 30 fps flow and a 1 kHz gyro (IMU = camera axes), noise `noisePx`; regions
    /// matched with `weight`. `matchedRow`: where a region's match sits below its centre (px),
    /// given its centre row and its shift down that interval: it moves as that row did, and the
    /// flow's `rowOffset` says so (nil: at its centre).
    static func clip(
        readoutMs: Double, shake: Shake, seconds: Double = 12, noisePx: Double = 0.05, weight: Float = 0.8, seed: UInt64 = 3,
        matchedRow: ((_ centreY: Double, _ dy: Double) -> Double)? = nil
    )
        -> (flow: BlockFlow, intervals: [(from: Int64, to: Int64)], readings: [IMUReading])
    {
        var rng = Generator(seed)
        var cx: [Double] = [], cy: [Double] = []
        for r in 0..<3 {
            for c in 0..<5 {
                cx.append(Double(c - 2) * 280); cy.append(Double(r - 1) * 300)
            }
        }
        var flow = BlockFlow(centreX: cx, centreY: cy, width: width)
        var intervals: [(from: Int64, to: Int64)] = []
        let frames = Int(seconds * 30)
        for k in 0..<(frames - 1) {
            let t0 = Double(k) / 30, t1 = Double(k + 1) / 30
            intervals.append((Int64((t0 * 1e9).rounded()), Int64((t1 * 1e9).rounded())))
            var dx: [Float] = [], dy: [Float] = [], rows: [Float] = []
            for i in cx.indices {
                // Pan about y moves the picture left, tilt about x moves it down; roll about z
                // turns it about the centre.
                func moved(row: Double) -> (dx: Double, dy: Double) {
                    let lag = readoutMs / 1000 * row / Double(height)
                    let turn = shake.angle(t1 + lag) - shake.angle(t0 + lag)
                    return (-f * turn.y - row * turn.z, f * turn.x + cx[i] * turn.z)
                }
                let offset = matchedRow.map { $0(cy[i], moved(row: cy[i]).dy) } ?? 0
                let m = moved(row: cy[i] + offset)
                dx.append(Float(m.dx + rng.normal() * noisePx))
                dy.append(Float(m.dy + rng.normal() * noisePx))
                rows.append(Float(offset))
            }
            flow.append(dx: dx, dy: dy, weight: [Float](repeating: weight, count: cx.count), rowOffset: rows)
        }
        let readings = (0..<Int((seconds + 2) * 1000)).map { j -> IMUReading in
            let t = -1 + Double(j) / 1000
            return IMUReading(t: Int64((t * 1e9).rounded()), gyro: shake.rate(t) + SIMD3(rng.normal(), rng.normal(), rng.normal()) * 0.002)
        }
        return (flow, intervals, readings)
    }

    static func estimate(_ c: (flow: BlockFlow, intervals: [(from: Int64, to: Int64)], readings: [IMUReading])) -> ReadoutEstimate {
        ReadoutSearch.estimate(
            flow: c.flow, intervals: c.intervals, readings: c.readings, bias: [0, 0, 0], clock: .constant(offsetMs: 0), mapping: .identity,
            width: width, height: height)
    }

    func testKnownReadoutsComeBackWithinTenPercentOrTwoMilliseconds() {
        for truth in [16.0, 28.0, 33.4] {
            let e = Self.estimate(Self.clip(readoutMs: truth, shake: Shake(amount: 1)))
            guard case .estimated(let ms, let se) = e else { return XCTFail("\(truth) ms: \(e.reportLine)") }
            XCTAssertEqual(ms, truth, accuracy: max(2, truth * 0.1), "\(truth) ms: \(e.reportLine)")
            XCTAssertLessThan(se, 1.5, "\(truth) ms: \(e.reportLine)")
            XCTAssertTrue(e.reportLine.hasPrefix(String(format: "readout %.2f +- %.2f ms (rows read top to bottom", ms, se)), e.reportLine)
        }
    }

    /// Regions matched off their centres, as `FrameMotionExtractor`'s blocks are: the top row's
    /// texture in its lower part (a sky above), and each edge row's match held inside the
    /// picture (its second block kept in view, so only a shift inward moves the match). Each
    /// region moves as the rows it was matched on did, and the flow says which rows: timed by
    /// them, the readout comes back; timed by the blocks' centres (the offsets dropped, as
    /// before the flow carried them), it comes back low, as measure-readout's cameras did (5-6%).
    func testRegionsAreTimedByTheRowsTheyWereMatchedOn() {
        func matched(_ centreY: Double, _ dy: Double) -> Double {
            switch centreY {
            case ..<0: 70 + max(0, dy) / 2
            case 0: dy / 2
            default: min(0, dy) / 2
            }
        }
        for truth in [16.0, 28.0] {
            var c = Self.clip(readoutMs: truth, shake: Shake(amount: 1), matchedRow: matched)
            let e = Self.estimate(c)
            guard case .estimated(let ms, _) = e else { return XCTFail("\(truth) ms: \(e.reportLine)") }
            XCTAssertEqual(ms, truth, accuracy: truth * 0.01, "\(truth) ms: \(e.reportLine)")
            c.flow.rowOffset = [Float](repeating: 0, count: c.flow.rowOffset.count)
            let centres = Self.estimate(c)
            guard case .estimated(let low, _) = centres else { return XCTFail("\(truth) ms, at the centres: \(centres.reportLine)") }
            XCTAssertLessThan(low, truth * 0.96, "\(truth) ms, at the centres: \(centres.reportLine)")
        }
    }

    /// A global shutter is 0 within its error, written as 0 (never a confident readout).
    func testAGlobalShutterComesOutZero() {
        let e = Self.estimate(Self.clip(readoutMs: 0, shake: Shake(amount: 1)))
        guard case .estimated(let ms, let se) = e else { return XCTFail(e.reportLine) }
        XCTAssertLessThan(abs(ms), max(1, 2 * se), e.reportLine)
        XCTAssertLessThan(e.readoutMs ?? 99, 1, e.reportLine)
        XCTAssertTrue(e.reportLine.contains("no rolling shutter measurable"), e.reportLine)
    }

    /// A camera held still: nothing to time the rows by, so no number.
    func testTooLittleMotionIsNotEstimated() {
        let e = Self.estimate(Self.clip(readoutMs: 28, shake: Shake(amount: 0.002), noisePx: 0.1))
        XCTAssertNil(e.readoutMs, e.reportLine)
        XCTAssertTrue(e.reportLine.hasPrefix("readout: not estimated ("), e.reportLine)
    }

    /// Regions that never matched (a white wall): the picture is too flat, said so.
    func testAFlatPictureIsNotEstimated() {
        let e = Self.estimate(Self.clip(readoutMs: 28, shake: Shake(amount: 1), weight: 0.01))
        XCTAssertEqual(e, .notEstimated("the picture is too flat: only 0 of its 15 regions matched from frame to frame often enough to be timed"))
    }

    /// No region flow at all, and a clip too short to cut into windows.
    func testMissingFlowAndShortClips() {
        let c = Self.clip(readoutMs: 16, shake: Shake(amount: 1), seconds: 1)
        XCTAssertEqual(
            ReadoutSearch.estimate(
                flow: nil, intervals: c.intervals, readings: c.readings, bias: [0, 0, 0], clock: .constant(offsetMs: 0), mapping: .identity, width: 1280,
                height: 720),
            .notEstimated("the picture's regions were not measured: the picture is too small to tell its rows apart"))
        XCTAssertEqual(Self.estimate(c), .notEstimated("the clip is too short: at least 4 windows of 12 frame intervals are needed"))
    }

    /// The lag runs across the columns instead (a picture turned against its sensor): refused.
    func testALagAcrossTheColumnsIsRefused() {
        var c = Self.clip(readoutMs: 0, shake: Shake(amount: 1))
        // Rebuild the flow with the lag along x (each region's own time from its column).
        let shake = Shake(amount: 1)
        var flow = BlockFlow(centreX: c.flow.centreX, centreY: c.flow.centreY, width: Self.width)
        for (k, iv) in c.intervals.enumerated() {
            var dx: [Float] = [], dy: [Float] = []
            for i in 0..<flow.blocks {
                let lag = 0.028 * flow.centreX[i] / Double(Self.width)
                let turn = shake.angle(Double(iv.to) / 1e9 + lag) - shake.angle(Double(iv.from) / 1e9 + lag)
                dx.append(Float(-Self.f * turn.y - flow.centreY[i] * turn.z)); dy.append(Float(Self.f * turn.x + flow.centreX[i] * turn.z))
            }
            _ = k
            flow.append(dx: dx, dy: dy, weight: [Float](repeating: 0.8, count: flow.blocks))
        }
        c.flow = flow
        let e = Self.estimate(c)
        XCTAssertNil(e.readoutMs, e.reportLine)
        XCTAssertTrue(e.reportLine.hasPrefix("readout: not estimated (the picture's columns lag one another against the gyro ("), e.reportLine)
    }

    /// SplitMix64 and Box-Muller: repeatable noise.
    struct Generator {
        var state: UInt64
        init(_ seed: UInt64) { state = seed }
        mutating func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        mutating func normal() -> Double { (-2 * log(max(1e-300, next()))).squareRoot() * cos(2 * .pi * next()) }
    }
}
