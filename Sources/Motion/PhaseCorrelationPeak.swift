import RealModule

/// Where a phase correlation peaks, to a small fraction of a sample: shared by Motion's
/// `PhaseCorrelator` and Lockstep's FFTW one, so both measure the same thing.
///
/// Why not a parabola through the peak and its neighbours: the normalised cross-power
/// spectrum's inverse is a sampled sinc (Dirichlet kernel), which a parabola fits badly: it pulls
/// every shift towards the nearest whole sample by up to 0.13 px and scatters most near half a
/// sample (measured against scripts/fixtures/make-synthetic-camera-2's exact motion: 0.13 px rms).
/// Instead the normalised spectrum is weighted by a Gaussian (`weight`), which turns the peak
/// into a sampled Gaussian of `sigma` samples centred on the true shift, and three samples of a
/// Gaussian give its centre exactly: a parabola through their logarithms (`offset`). The weight
/// also damps the highest frequencies, where compression noise lives (0.074 px rms on the same
/// clip, the same as an exhaustive 1/50-sample upsampled search of the weighted peak).
public enum PhaseCorrelationPeak {
    /// Width of the peak in samples: 1 keeps its neighbours well above zero (0.61 of the peak at
    /// a whole-sample shift) while the spectrum's Gaussian (sigma n / (2 pi) bins) is still near
    /// zero at the Nyquist frequency, so the sampled peak is a Gaussian and not a clipped one.
    public static let sigma = 1.0

    /// The Gaussian weight of frequency (kx, ky) of an n x n spectrum (indices as FFT outputs
    /// them: k and k - n are the same frequency), 1 at zero frequency.
    public static func weight(kx: Int, ky: Int, size n: Int) -> Double {
        let fx = Double(kx <= n / 2 ? kx : kx - n) / Double(n), fy = Double(ky <= n / 2 ? ky : ky - n) / Double(n)
        return Double.exp(-2 * Double.pi * Double.pi * sigma * sigma * (fx * fx + fy * fy))
    }

    /// The sum of `weight` over the whole n x n spectrum: the peak's height when two pictures
    /// are the same picture moved by whole samples, used to scale peak heights to 1.
    public static func totalWeight(size n: Int) -> Double {
        var sum = 0.0
        for ky in 0..<n { for kx in 0..<n { sum += weight(kx: kx, ky: ky, size: n) } }
        return sum
    }

    /// The peak's offset from the middle sample (in -0.5...0.5 when `centre` is the largest):
    /// the vertex of a parabola through the logarithms, exact for a Gaussian. Where a neighbour is
    /// not positive (no clean peak) the plain parabola stands in.
    @inline(__always)
    public static func offset(_ left: Double, _ centre: Double, _ right: Double) -> Double {
        if left > 0, centre > 0, right > 0 {
            let l = Double.log(left), c = Double.log(centre), r = Double.log(right)
            let d = l - 2 * c + r
            return d < -1e-12 ? 0.5 * (l - r) / d : 0
        }
        let d = left - 2 * centre + right
        return d < -1e-12 ? max(-0.5, min(0.5, 0.5 * (left - right) / d)) : 0
    }
}
