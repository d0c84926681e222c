import Compositor
import Spectral
import XCTest

@testable import SyncCode

/// The audio code read back after simulated damage: resampling (48 -> 44.1 -> 48 kHz, linear),
/// a low-pass (a 64k AAC keeps little above 8 kHz), a gain change, noise and a delay.
final class AudioCodeTests: XCTestCase {
    let code = AudioCode(frameRate: Rational(30, 1))

    func render(seconds: Double, rate: Int = 48000) -> [Float] {
        var out = [Float](repeating: 0, count: Int(seconds * Double(rate)))
        out.withUnsafeMutableBufferPointer { code.render(first: 0, rate: rate, into: $0) }
        return out
    }

    /// Linear resampling from `from` to `to` Hz.
    func resample(_ x: [Float], from: Int, to: Int) -> [Float] {
        let n = Int(Double(x.count) * Double(to) / Double(from))
        return (0..<n).map { i in
            let t = Double(i) * Double(from) / Double(to)
            let a = Int(t), f = Float(t - Double(a))
            return a + 1 < x.count ? x[a] * (1 - f) + x[a + 1] * f : x[min(a, x.count - 1)]
        }
    }

    func read(_ x: [Float], start: Int64 = 0, chunk: Int = 1000) -> [AudioCodeHit] {
        var r = AudioCodeReader(rate: 48000)
        var i = 0
        while i < x.count {
            let n = min(chunk, x.count - i)
            x.withUnsafeBufferPointer { r.add(UnsafeBufferPointer(rebasing: $0[i..<(i + n)]), start: start + Int64(i)) }
            i += n
        }
        return r.finish()
    }

    func testBlocksStartAtFrameTimesAndCarryTheirFrame() {
        XCTAssertEqual(code.framesPerBlock, 15)
        let hits = read(render(seconds: 3))
        XCTAssertEqual(hits.map(\.frame), [0, 15, 30, 45, 60, 75])
        for h in hits { XCTAssertEqual(h.time, Double(h.frame) / 30, accuracy: 0.00002) }
    }

    func testResampledLowPassedQuieterNoisyDelayedAudioGivesTheDelayToAFractionOfAMillisecond() {
        var x = resample(render(seconds: 4, rate: 48000), from: 48000, to: 44100)
        // One-pole low-pass at about 8 kHz, gain 0.3, noise at -40 dB.
        var y: Float = 0, s: UInt64 = 1
        let a: Float = 0.68
        for i in x.indices {
            y = a * y + (1 - a) * x[i]
            s = s &* 6364136223846793005 &+ 1442695040888963407
            x[i] = 0.3 * y + Float(Int(s >> 40) % 2001 - 1000) / 1000 * 0.003
        }
        let back = resample(x, from: 44100, to: 48000)
        let delayed = [Float](repeating: 0, count: 1776) + back  // 37 ms
        let hits = read(delayed)
        XCTAssertEqual(hits.map(\.frame), [0, 15, 30, 45, 60, 75, 90, 105])
        // The low-pass delays by about (a / (1 - a)) samples at 44.1 kHz: 0.05 ms.
        for h in hits { XCTAssertEqual((h.time - Double(h.frame) / 30) * 1000, 37, accuracy: 0.1, "frame \(h.frame)") }
    }

    func testAnyOneSecondAloneNamesItsVideoTime() {
        let all = render(seconds: 6)
        for startMs in stride(from: 130, to: 5000, by: 370) {
            let from = startMs * 48
            let hits = read(Array(all[from..<(from + 48000)]), start: Int64(from))
            XCTAssertGreaterThanOrEqual(hits.count, 1, "window at \(startMs) ms")
            for h in hits { XCTAssertEqual(h.time, Double(h.frame) / 30, accuracy: 0.00002) }
        }
    }

    func testSilenceAndToneGiveNothing() {
        XCTAssertEqual(read([Float](repeating: 0, count: 96000)).count, 0)
        let tone = (0..<96000).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48000)) }
        XCTAssertEqual(read(tone).count, 0)
    }

    func testRenderingAt44100StartsBlocksAtTheSameTimes() {
        let x = resample(render(seconds: 2, rate: 44100), from: 44100, to: 48000)
        let hits = read(x)
        XCTAssertEqual(hits.map(\.frame), [0, 15, 30, 45])
        for h in hits { XCTAssertEqual(h.time, Double(h.frame) / 30, accuracy: 0.0001) }
    }

    func testFFTMatchesADirectTransform() {
        let fft = RadixTwoFFT(size: 16)
        var re = (0..<16).map { Double($0 % 5) - 2 }, im = [Double](repeating: 0, count: 16)
        let x = re
        fft.forward(&re, &im)
        for k in 0..<16 {
            var r = 0.0, i = 0.0
            for n in 0..<16 { r += x[n] * cos(-2 * .pi * Double(k * n) / 16); i += x[n] * sin(-2 * .pi * Double(k * n) / 16) }
            XCTAssertEqual(re[k], r, accuracy: 1e-9); XCTAssertEqual(im[k], i, accuracy: 1e-9)
        }
        fft.inverse(&re, &im)
        for n in 0..<16 { XCTAssertEqual(re[n], x[n], accuracy: 1e-9) }
    }
}
