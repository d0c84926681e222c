import CFFTW
import Foundation
import Motion

/// FFTW's planner (and plan destruction) is not thread-safe; executing a plan is. Every plan is
/// made and destroyed inside `withFFTWPlanner`, one at a time in the process (single and double
/// precision alike); the threads then execute plans with the new-array functions.
private let plannerLock = NSLock()

package func withFFTWPlanner<T>(_ body: () -> T) -> T {
    plannerLock.lock()
    defer { plannerLock.unlock() }
    return body()
}

/// One picture's spectrum for phase correlation: the Hann-windowed, mean-free picture's 2D
/// real-to-complex FFT (size x (size/2 + 1) complex values), in FFTW-aligned memory.
package final class CorrelationSpectrum {
    package let size: Int
    package let values: UnsafeMutablePointer<fftwf_complex>
    package init(size: Int) {
        self.size = size
        guard let v = fftwf_alloc_complex(size * (size / 2 + 1)) else { fatalError("fftwf_alloc_complex: out of memory") }
        values = v
    }
    deinit { fftwf_free(values) }
}

/// Phase correlation on FFTW 3 (single precision), the same measurement as Motion's
/// `PhaseCorrelator` (same window, same normalised cross-power spectrum, same sub-sample peak:
/// `PhaseCorrelationPeak`'s Gaussian-weighted spectrum and Gaussian fit) at a fraction of the cost. One instance per thread: it owns its plans and
/// scratch memory, so `spectrum` and `shift` allocate nothing.
package final class FFTWCorrelator {
    package let size: Int
    private let window: [Float]
    /// `PhaseCorrelationPeak.weight` of each frequency of the half spectrum (size x (size/2 + 1)).
    private let weights: [Float]
    /// The inverse's value at the peak of a perfect whole-sample match (FFTW's inverse is unnormalised).
    private let perfectPeak: Double
    private let real: UnsafeMutablePointer<Float>
    private let cross: UnsafeMutablePointer<fftwf_complex>
    private let forward: OpaquePointer
    private let inverse: OpaquePointer

    package init(size: Int) {
        precondition(size >= 8 && size & (size - 1) == 0, "size must be a power of two")
        self.size = size
        window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
        let half = size / 2 + 1
        weights = (0..<(size * half)).map { Float(PhaseCorrelationPeak.weight(kx: $0 % half, ky: $0 / half, size: size)) }
        perfectPeak = PhaseCorrelationPeak.totalWeight(size: size)
        guard let r = fftwf_alloc_real(size * size), let c = fftwf_alloc_complex(size * (size / 2 + 1)) else {
            fatalError("fftwf_alloc: out of memory")
        }
        real = r; cross = c
        let n = Int32(size)
        // FFTW_MEASURE times a few algorithms the first time a size is planned in the process
        // (it writes over the arrays, which hold nothing yet) and keeps that as wisdom, so
        // every later plan of the size is instant. The new-array execute functions need only
        // the same alignment, which fftwf_alloc_* guarantees.
        let (f, i) = withFFTWPlanner { (fftwf_plan_dft_r2c_2d(n, n, r, c, UInt32(FFTW_MEASURE)), fftwf_plan_dft_c2r_2d(n, n, c, r, UInt32(FFTW_MEASURE))) }
        guard let f, let i else { fatalError("fftwf_plan_dft_2d failed for \(size)x\(size)") }
        forward = f; inverse = i
    }

    deinit {
        withFFTWPlanner {
            fftwf_destroy_plan(forward); fftwf_destroy_plan(inverse)
        }
        fftwf_free(real); fftwf_free(cross)
    }

    /// The spectrum of one picture (size x size gray samples, rows top to bottom).
    package func spectrum(of samples: UnsafeBufferPointer<UInt8>, into out: CorrelationSpectrum) {
        precondition(samples.count >= size * size && out.size == size)
        let n = size, src = samples.baseAddress!
        // Plain pointer loops with wrapping sums: the compiler turns both into vector code.
        var sum: UInt32 = 0
        for i in 0..<(n * n) { sum &+= UInt32(src[i]) }
        let mean = Float(sum) / Float(n * n)
        window.withUnsafeBufferPointer { window in
            let w = window.baseAddress!
            for y in 0..<n {
                let wy = w[y], s = src + y * n, d = real + y * n
                for x in 0..<n { d[x] = (Float(s[x]) - mean) * (w[x] * wy) }
            }
        }
        fftwf_execute_dft_r2c(forward, real, out.values)
    }

    /// The shift of `current` relative to `previous` in samples (content moving right and down
    /// is positive) and the correlation peak's height (1: the same picture moved; near 0: no
    /// match).
    package func shift(from previous: CorrelationSpectrum, to current: CorrelationSpectrum) -> (dx: Double, dy: Double, peak: Double) {
        let n = size, half = n / 2 + 1
        // R = conj(prev) * current / |...|: its inverse peaks at the current picture's shift.
        let p = UnsafeMutableRawPointer(previous.values).assumingMemoryBound(to: Float.self)
        let c = UnsafeMutableRawPointer(current.values).assumingMemoryBound(to: Float.self)
        let r = UnsafeMutableRawPointer(cross).assumingMemoryBound(to: Float.self)
        weights.withUnsafeBufferPointer { g in
            // Wrapping index arithmetic and a select rather than a branch: vector code.
            let w = g.baseAddress!
            for i in 0..<(n * half) {
                let re = i &<< 1, im = re &+ 1
                let a = p[re], b = -p[im], cr = c[re], ci = c[im]
                let pr = a * cr - b * ci, pi = a * ci + b * cr
                let m = (pr * pr + pi * pi).squareRoot()
                let s = m > 1e-12 ? w[i] / m : 0
                r[re] = pr * s; r[im] = pi * s
            }
        }
        fftwf_execute_dft_c2r(inverse, cross, real)
        var best = 0
        for i in 1..<(n * n) where real[i] > real[best] { best = i }
        let bx = best % n, by = best / n
        func at(_ x: Int, _ y: Int) -> Double { Double(real[((y + n) % n) * n + (x + n) % n]) }
        var dx = Double(bx) + PhaseCorrelationPeak.offset(at(bx - 1, by), at(bx, by), at(bx + 1, by))
        var dy = Double(by) + PhaseCorrelationPeak.offset(at(bx, by - 1), at(bx, by), at(bx, by + 1))
        if dx > Double(n) / 2 { dx -= Double(n) }
        if dy > Double(n) / 2 { dy -= Double(n) }
        return (dx, dy, Double(real[best]) / perfectPeak)
    }
}
