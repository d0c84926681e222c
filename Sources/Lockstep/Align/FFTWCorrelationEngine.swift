import AudioAlign
import CFFTW
import Foundation
import NIOConcurrencyHelpers

/// `align`'s weighted correlation (`SpectralWeight`) on FFTW 3, single precision, 1D. Plans are
/// made once per transform size (FFTW_ESTIMATE: the sizes vary with the inputs' lengths, and
/// FFTW_MEASURE would spend seconds timing a million-point transform to save less) and
/// executed with the new-array functions, which are thread-safe: several inputs are aligned at
/// once against one prepared reference.
final class FFTWCorrelationEngine: CorrelationEngine {
    final class Plans: @unchecked Sendable {  // immutable once made
        let size: Int
        let forward: OpaquePointer
        let inverse: OpaquePointer
        /// `SpectralWeight.gaussian` of each bin 0...size/2.
        let gaussian: [Float]
        init(size: Int) {
            self.size = size
            guard let r = fftwf_alloc_real(size), let c = fftwf_alloc_complex(size / 2 + 1) else { fatalError("fftwf_alloc: out of memory") }
            defer { fftwf_free(r); fftwf_free(c) }
            let (f, i) = withFFTWPlanner { (fftwf_plan_dft_r2c_1d(Int32(size), r, c, UInt32(FFTW_ESTIMATE)), fftwf_plan_dft_c2r_1d(Int32(size), c, r, UInt32(FFTW_ESTIMATE))) }
            guard let f, let i else { fatalError("fftwf_plan_dft_1d failed for \(size) points") }
            forward = f; inverse = i
            gaussian = (0...(size / 2)).map { SpectralWeight.gaussian(bin: $0, size: size) }
        }
        deinit {
            withFFTWPlanner {
                fftwf_destroy_plan(forward); fftwf_destroy_plan(inverse)
            }
        }
    }

    /// The plans made so far, by transform size.
    private let plans = NIOLockedValueBox<[Int: Plans]>([:])

    func plans(size: Int) -> Plans {
        plans.withLockedValue { plans in
            if let p = plans[size] { return p }
            let p = Plans(size: size)
            plans[size] = p
            return p
        }
    }

    func prepare(reference: ArraySlice<Float>, longestProbe: Int) -> any PreparedReference {
        var size = 64
        while size < reference.count + longestProbe { size *= 2 }
        return FFTWPreparedReference(reference, plans: plans(size: size), longestProbe: longestProbe)
    }
}

/// One reference's spectrum in FFTW-aligned memory, freed in deinit.
final class FFTWPreparedReference: PreparedReference, @unchecked Sendable {  // immutable once made
    let count: Int
    private let longestProbe: Int
    private let plans: FFTWCorrelationEngine.Plans
    private let spectrum: UnsafeMutablePointer<fftwf_complex>

    init(_ reference: ArraySlice<Float>, plans: FFTWCorrelationEngine.Plans, longestProbe: Int) {
        count = reference.count; self.longestProbe = longestProbe; self.plans = plans
        let n = plans.size
        guard let s = fftwf_alloc_complex(n / 2 + 1), let real = fftwf_alloc_real(n) else { fatalError("fftwf_alloc: out of memory") }
        spectrum = s
        defer { fftwf_free(real) }
        real.initialize(repeating: 0, count: n)
        reference.withUnsafeBufferPointer { real.update(from: $0.baseAddress!, count: $0.count) }
        fftwf_execute_dft_r2c(plans.forward, real, spectrum)
    }
    deinit { fftwf_free(spectrum) }

    func correlate(_ probe: ArraySlice<Float>) -> [Float] {
        precondition(probe.count <= longestProbe && !probe.isEmpty)
        let n = plans.size, bins = n / 2 + 1
        guard let real = fftwf_alloc_real(n), let cross = fftwf_alloc_complex(bins) else { fatalError("fftwf_alloc: out of memory") }
        defer { fftwf_free(real); fftwf_free(cross) }
        real.initialize(repeating: 0, count: n)
        probe.withUnsafeBufferPointer { real.update(from: $0.baseAddress!, count: $0.count) }
        fftwf_execute_dft_r2c(plans.forward, real, cross)
        let r = UnsafeMutableRawPointer(spectrum).assumingMemoryBound(to: Float.self)
        let x = UnsafeMutableRawPointer(cross).assumingMemoryBound(to: Float.self)
        plans.gaussian.withUnsafeBufferPointer { g in
            for k in 0..<bins {
                let (wr, wi) = SpectralWeight.weigh(r[2 * k], r[2 * k + 1], x[2 * k], x[2 * k + 1], gaussian: g[k])
                x[2 * k] = wr; x[2 * k + 1] = wi
            }
        }
        fftwf_execute_dft_c2r(plans.inverse, cross, real)
        // Lag L >= 0 is at real[L], L < 0 at real[n + L]; n >= count + probe.count, so none overlap.
        let p = probe.count
        var out = [Float](repeating: 0, count: p - 1 + count)
        out.withUnsafeMutableBufferPointer { o in
            for i in 0..<(p - 1) { o[i] = real[n - (p - 1) + i] }
            (o.baseAddress! + (p - 1)).update(from: real, count: count)
        }
        return out
    }
}
