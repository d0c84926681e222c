import AudioAlign
import Foundation
import TestSupport
import XCTest

/// A sound defined at every instant, so an input with a drifting clock is sampled exactly where
/// its clock says, with no resampling of our own in between: short tone grains (a Gaussian
/// envelope of 3 to 40 ms, 80 to 3,500 Hz) at random times, about 60 a second.
struct GrainSound {
    struct Grain { var centre: Double, width: Double, frequency: Double, phase: Double, amplitude: Double }
    let grains: [Grain]
    init(seconds: Double, seed: UInt64) {
        var g = SeededGenerator(seed: seed)
        grains = (0..<Int(seconds * 60)).map { _ in
            Grain(
                centre: Double.random(in: 0..<seconds, using: &g), width: Double.random(in: 0.003...0.04, using: &g),
                frequency: Double.random(in: 80...3500, using: &g), phase: Double.random(in: 0..<(2 * .pi), using: &g),
                amplitude: Double.random(in: 0.02...0.3, using: &g))
        }.sorted { $0.centre < $1.centre }
    }

    /// Samples at `rate` of the sound at times `time(n)`, n in 0..<count (increasing).
    func sample(count: Int, time: (Int) -> Double) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        var first = 0
        for n in 0..<count {
            let t = time(n)
            while first < grains.count && grains[first].centre + 4 * 0.04 < t { first += 1 }
            var s = 0.0, i = first
            while i < grains.count && grains[i].centre - 4 * 0.04 <= t {
                let gr = grains[i], d = (t - gr.centre) / gr.width
                if abs(d) < 4 { s += gr.amplitude * exp(-0.5 * d * d) * sin(2 * .pi * gr.frequency * t + gr.phase) }
                i += 1
            }
            out[n] = Float(s)
        }
        return out
    }
}

final class SoundAlignerTests: XCTestCase {
    static let rate = 8000
    /// Smaller than `align`'s own (fewer, shorter windows): the plain FFT is slow in a debug build.
    static var settings: SoundAligner.Settings {
        var s = SoundAligner.Settings()
        s.fineWindow = 1; s.fineWindows = 12; s.coarseWindows = 4
        return s
    }

    /// The event from `from` s, `seconds` long, on a clock whose second lasts `scale` event seconds.
    func record(_ sound: GrainSound, from: Double, seconds: Double, scale: Double = 1, gain: Float = 1, noise: Float = 0, seed: UInt64 = 7) -> AlignSignal {
        let r = Double(Self.rate)
        var x = sound.sample(count: Int(seconds * r)) { from + Double($0) / r * scale }
        var g = SeededGenerator(seed: seed)
        for i in x.indices { x[i] = gain * x[i] + noise * Float.random(in: -1...1, using: &g) }
        return AlignSignal(samples: x, rate: Self.rate, start: 0)
    }

    func testFindsOffsetAndDriftUnderNoiseAndGain() throws {
        let event = GrainSound(seconds: 40, seed: 1)
        // The reference starts at event time 2; the input at 9.5 with a clock 300 ppm fast (its
        // second lasts 1/1.0003 event seconds), at a third of the level, in noise as loud as it.
        let reference = record(event, from: 2, seconds: 30)
        let scale = 1 / 1.0003
        let input = record(event, from: 9.5, seconds: 25, scale: scale, gain: 0.3, noise: 0.05)
        let aligner = SoundAligner(reference: reference, engine: PlainCorrelationEngine(), settings: Self.settings)
        let a = try aligner.align(input).get()
        // Reference time = 7.5 + scale * input time.
        XCTAssertEqual(a.offset, 7.5, accuracy: 0.0002)
        XCTAssertEqual(a.driftPpm, 300, accuracy: 10)
        XCTAssertEqual(a.scale, scale, accuracy: 10e-6)
        XCTAssertGreaterThan(a.confidence, 0.9)
        XCTAssertEqual(a.overlap.lowerBound, 7.5, accuracy: 0.01)
        XCTAssertEqual(a.overlap.upperBound, 30, accuracy: 0.01)
    }

    func testInputStartingBeforeTheReference() throws {
        let event = GrainSound(seconds: 30, seed: 2)
        let reference = record(event, from: 6.25, seconds: 20)
        let input = record(event, from: 1, seconds: 15, noise: 0.02)
        let a = try SoundAligner(reference: reference, engine: PlainCorrelationEngine(), settings: Self.settings).align(input).get()
        XCTAssertEqual(a.offset, -5.25, accuracy: 0.0002)
        XCTAssertEqual(a.driftPpm, 0, accuracy: 10)
    }

    /// A short reference inside a long input falls between the input's coarse windows: the
    /// reference's windows are searched in the input instead, and the answer turned round.
    func testShortReferenceInsideALongInput() throws {
        let event = GrainSound(seconds: 60, seed: 9)
        let reference = record(event, from: 22, seconds: 8)
        let input = record(event, from: 0, seconds: 60, noise: 0.02)
        let a = try SoundAligner(reference: reference, engine: PlainCorrelationEngine(), settings: Self.settings).align(input).get()
        XCTAssertEqual(a.offset, -22, accuracy: 0.0002)
        XCTAssertEqual(a.driftPpm, 0, accuracy: 25)
        XCTAssertEqual(a.overlap.lowerBound, 0, accuracy: 0.01)
        XCTAssertEqual(a.overlap.upperBound, 8, accuracy: 0.01)
    }

    func testRefusesSilence() {
        let reference = record(GrainSound(seconds: 12, seed: 3), from: 0, seconds: 12)
        let silent = AlignSignal(samples: [Float](repeating: 0, count: 10 * Self.rate), rate: Self.rate, start: 0)
        let r = SoundAligner(reference: reference, engine: PlainCorrelationEngine(), settings: Self.settings).align(silent)
        XCTAssertEqual(r.failure, .silent)
    }

    func testRefusesAnotherEvent() {
        let reference = record(GrainSound(seconds: 20, seed: 4), from: 0, seconds: 20)
        let other = record(GrainSound(seconds: 20, seed: 5), from: 0, seconds: 15)
        let r = SoundAligner(reference: reference, engine: PlainCorrelationEngine(), settings: Self.settings).align(other)
        guard case .noMatch(_, let lead)? = r.failure else { return XCTFail("\(r)") }
        XCTAssertLessThan(lead, 1.6)
    }

    func testRefusesASoundHeardTwice() {
        // The reference holds the same 8 s twice: the input could be at either.
        let event = GrainSound(seconds: 8, seed: 6)
        let once = record(event, from: 0, seconds: 8).samples
        let reference = AlignSignal(samples: once + once, rate: Self.rate, start: 0)
        let input = AlignSignal(samples: Array(once[(2 * Self.rate)..<(7 * Self.rate)]), rate: Self.rate, start: 0)
        let r = SoundAligner(reference: reference, engine: PlainCorrelationEngine(), settings: Self.settings).align(input)
        guard case .ambiguous(let offsets)? = r.failure else { return XCTFail("\(r)") }
        XCTAssertEqual(Set(offsets.map { ($0 * 10).rounded() / 10 }), [2, 10])
    }

    func testRefusesTooLittleSound() {
        let event = GrainSound(seconds: 10, seed: 8)
        let reference = record(event, from: 0, seconds: 10)
        let input = record(event, from: 3, seconds: 0.5)
        XCTAssertEqual(
            SoundAligner(reference: reference, engine: PlainCorrelationEngine(), settings: Self.settings).align(input).failure,
            .tooShort(seconds: 0.5))
    }
}

extension Result {
    var failure: Failure? { if case .failure(let f) = self { return f }; return nil }
}
