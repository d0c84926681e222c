import CFFTW
import Spectral

/// FFTW's complex transform of one size, double precision, on split arrays (the layout of
/// `ComplexFFT`): what calibrate's long-trace first pass (`MagnitudeSearch`, `FlightChoice`) and
/// the sync kit's audio code reader run in the jobs. Two plans made once (FFTW_ESTIMATE), forward
/// and backward, in place on interleaved complex numbers; each call copies the two arrays into a
/// buffer of its own from `fftw_alloc_complex` (so its alignment is the plans'), runs the
/// new-array execute there (thread-safe: one transform may serve several threads) and copies
/// back. (FFTW's split-array execute would save the copies, but it requires the distance between
/// the real and imaginary arrays to be the one planned on, which two Swift arrays do not keep.)
package final class FFTWComplexFFT: ComplexFFT, @unchecked Sendable {  // the plans are immutable once made
    package let size: Int
    private let forwardPlan: OpaquePointer, backwardPlan: OpaquePointer

    package static let make: ComplexFFTMaker = { FFTWComplexFFT(size: $0) }

    package init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        guard let buffer = fftw_alloc_complex(size) else { fatalError("fftw_alloc_complex: out of memory") }
        defer { fftw_free(buffer) }
        let (f, b) = withFFTWPlanner {
            (
                fftw_plan_dft_1d(Int32(size), buffer, buffer, FFTW_FORWARD, UInt32(FFTW_ESTIMATE)),
                fftw_plan_dft_1d(Int32(size), buffer, buffer, FFTW_BACKWARD, UInt32(FFTW_ESTIMATE))
            )
        }
        guard let f, let b else { fatalError("fftw_plan_dft_1d failed for \(size) points") }
        forwardPlan = f; backwardPlan = b
    }

    deinit {
        withFFTWPlanner {
            fftw_destroy_plan(forwardPlan); fftw_destroy_plan(backwardPlan)
        }
    }

    package func forward(_ re: inout [Double], _ im: inout [Double]) { run(forwardPlan, &re, &im, scale: 1) }

    package func inverse(_ re: inout [Double], _ im: inout [Double]) { run(backwardPlan, &re, &im, scale: 1 / Double(size)) }

    private func run(_ plan: OpaquePointer, _ re: inout [Double], _ im: inout [Double], scale: Double) {
        precondition(re.count == size && im.count == size)
        guard let buffer = fftw_alloc_complex(size) else { fatalError("fftw_alloc_complex: out of memory") }
        defer { fftw_free(buffer) }
        // fftw_complex is two doubles, real first.
        let pairs = UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: Double.self)
        for k in 0..<size { pairs[2 * k] = re[k]; pairs[2 * k + 1] = im[k] }
        fftw_execute_dft(plan, buffer, buffer)
        for k in 0..<size { re[k] = pairs[2 * k] * scale; im[k] = pairs[2 * k + 1] * scale }
    }
}
