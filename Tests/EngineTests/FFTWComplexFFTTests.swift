import Dispatch
import Foundation
import Spectral
import XCTest

@testable import Engine

/// FFTW's split complex transform (what calibrate's long-trace first pass and the sync kit's
/// audio code reader run) against the definition of the DFT and against the pure `RadixTwoFFT`
/// the pure modules' tests use, forward and inverse; and one plan run from several threads at
/// once (ThreadSanitizer runs this suite).
final class FFTWComplexFFTTests: XCTestCase {
    /// A fixed, irregular signal: no two runs differ, and no symmetry hides a swapped part.
    static func signal(_ n: Int, seed: Double) -> (re: [Double], im: [Double]) {
        ((0..<n).map { sin(Double($0) * 0.37 + seed) + Double($0 % 7) * 0.1 }, (0..<n).map { cos(Double($0) * 1.3 - seed) * 0.5 })
    }

    func testForwardIsTheDFTAndInverseUndoesIt() {
        let n = 16
        let fft = FFTWComplexFFT(size: n)
        var (re, im) = Self.signal(n, seed: 1)
        let (x, y) = (re, im)
        fft.forward(&re, &im)
        for k in 0..<n {
            var r = 0.0, i = 0.0
            for t in 0..<n {
                let a = -2 * Double.pi * Double(k * t) / Double(n)
                r += x[t] * cos(a) - y[t] * sin(a); i += x[t] * sin(a) + y[t] * cos(a)
            }
            XCTAssertEqual(re[k], r, accuracy: 1e-12, "bin \(k)"); XCTAssertEqual(im[k], i, accuracy: 1e-12, "bin \(k)")
        }
        fft.inverse(&re, &im)
        for t in 0..<n { XCTAssertEqual(re[t], x[t], accuracy: 1e-14); XCTAssertEqual(im[t], y[t], accuracy: 1e-14) }
    }

    func testTheSameAsThePureTransformAtTheSyncKitsSize() {
        let n = 32768
        let fftw = FFTWComplexFFT(size: n), pure = RadixTwoFFT(size: n)
        var (a, b) = Self.signal(n, seed: 2)
        var (c, d) = (a, b)
        fftw.forward(&a, &b); pure.forward(&c, &d)
        var worst = 0.0
        for k in 0..<n { worst = max(worst, abs(a[k] - c[k]), abs(b[k] - d[k])) }
        XCTAssertLessThan(worst, 1e-9, "forward")
        fftw.inverse(&a, &b); pure.inverse(&c, &d)
        worst = 0
        for k in 0..<n { worst = max(worst, abs(a[k] - c[k]), abs(b[k] - d[k])) }
        XCTAssertLessThan(worst, 1e-12, "inverse")
    }

    func testOnePlanFromSeveralThreadsAtOnce() {
        let n = 4096
        let fft = FFTWComplexFFT(size: n)
        var (re, im) = Self.signal(n, seed: 3)
        fft.forward(&re, &im)
        let expected = (re, im)
        // Each thread writes its own slot; concurrentPerform returns after every one has.
        let verdicts = UnsafeMutableBufferPointer<Bool>.allocate(capacity: 8)
        defer { verdicts.deallocate() }
        verdicts.initialize(repeating: false)
        nonisolated(unsafe) let slots = verdicts
        DispatchQueue.concurrentPerform(iterations: 8) { k in
            var (r, i) = Self.signal(n, seed: 3)
            fft.forward(&r, &i)
            slots[k] = r == expected.0 && i == expected.1
        }
        XCTAssertEqual(Array(verdicts), Array(repeating: true, count: 8))
    }
}
