import RealModule

/// A complex FFT of one size, in place on split arrays (the real parts, the imaginary parts):
/// FFTW's in the jobs (Engine's `FFTWComplexFFT`), `RadixTwoFFT` in pure code's defaults and in
/// the tests. Forward is e^(-2 pi i k n / N), unscaled; `inverse` is scaled by 1/N, so
/// `inverse(forward(x)) == x`.
public protocol ComplexFFT: Sendable {
    var size: Int { get }
    func forward(_ re: inout [Double], _ im: inout [Double])
    func inverse(_ re: inout [Double], _ im: inout [Double])
}

/// Makes the transform of a size (a power of two).
public typealias ComplexFFTMaker = @Sendable (Int) -> any ComplexFFT

/// An in-place radix-2 complex FFT of one size, its twiddles and bit-reversal made once; `forward`
/// and `inverse` allocate nothing. The pure modules' own (no C library), and the tests' reference
/// for FFTW's.
public struct RadixTwoFFT: ComplexFFT {
    public static let make: ComplexFFTMaker = { RadixTwoFFT(size: $0) }

    public let size: Int
    private let cosines: [Double], sines: [Double]
    private let reversed: [Int]

    public init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        cosines = (0..<size / 2).map { Double.cos(-2 * Double.pi * Double($0) / Double(size)) }
        sines = (0..<size / 2).map { Double.sin(-2 * Double.pi * Double($0) / Double(size)) }
        var bits = 0
        while 1 << bits < size { bits += 1 }
        reversed = (0..<size).map { i in
            var r = 0
            for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            return r
        }
    }

    public func forward(_ re: inout [Double], _ im: inout [Double]) { transform(&re, &im, sign: 1) }

    /// The inverse, scaled by 1/size.
    public func inverse(_ re: inout [Double], _ im: inout [Double]) {
        transform(&re, &im, sign: -1)
        let s = 1 / Double(size)
        for i in 0..<size { re[i] *= s; im[i] *= s }
    }

    private func transform(_ re: inout [Double], _ im: inout [Double], sign: Double) {
        precondition(re.count == size && im.count == size)
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                cosines.withUnsafeBufferPointer { cs in
                    sines.withUnsafeBufferPointer { sn in
                        for i in 0..<size {
                            let j = reversed[i]
                            if j > i { re.swapAt(i, j); im.swapAt(i, j) }
                        }
                        var half = 1
                        while half < size {
                            let stride = size / (half * 2)
                            var start = 0
                            while start < size {
                                for k in 0..<half {
                                    let wr = cs[k * stride], wi = sign * sn[k * stride]
                                    let a = start + k, b = a + half
                                    let tr = re[b] * wr - im[b] * wi
                                    let ti = re[b] * wi + im[b] * wr
                                    re[b] = re[a] - tr; im[b] = im[a] - ti
                                    re[a] += tr; im[a] += ti
                                }
                                start += half * 2
                            }
                            half *= 2
                        }
                    }
                }
            }
        }
    }
}
