import AudioAlign
import Foundation

/// The weighted correlation (`SpectralWeight`) on a plain radix-2 FFT in Double: a second,
/// independent implementation of what Lockstep does with FFTW, so the aligner is tested with no
/// C library and no I/O.
struct PlainCorrelationEngine: CorrelationEngine {
    func prepare(reference: ArraySlice<Float>, longestProbe: Int) -> any PreparedReference {
        Prepared(reference: Array(reference), longestProbe: longestProbe)
    }

    struct Prepared: PreparedReference {
        let count: Int
        let size: Int
        let re: [Double], im: [Double]
        init(reference: [Float], longestProbe: Int) {
            count = reference.count
            var n = 64
            while n < reference.count + longestProbe { n *= 2 }
            size = n
            var r = [Double](repeating: 0, count: n), i = [Double](repeating: 0, count: n)
            for (k, v) in reference.enumerated() { r[k] = Double(v) }
            PlainCorrelationEngine.fft(&r, &i, inverse: false)
            re = r; im = i
        }

        func correlate(_ probe: ArraySlice<Float>) -> [Float] {
            let n = size
            var pr = [Double](repeating: 0, count: n), pi = [Double](repeating: 0, count: n)
            for (k, v) in probe.enumerated() { pr[k] = Double(v) }
            PlainCorrelationEngine.fft(&pr, &pi, inverse: false)
            var xr = [Double](repeating: 0, count: n), xi = [Double](repeating: 0, count: n)
            for k in 0...(n / 2) {
                let g = SpectralWeight.gaussian(bin: k, size: n)
                let (a, b) = SpectralWeight.weigh(Float(re[k]), Float(im[k]), Float(pr[k]), Float(pi[k]), gaussian: g)
                xr[k] = Double(a); xi[k] = Double(b)
                if k > 0 && k < n / 2 { xr[n - k] = Double(a); xi[n - k] = -Double(b) }  // Hermitian: a real result
            }
            PlainCorrelationEngine.fft(&xr, &xi, inverse: true)
            let p = probe.count
            return (0..<(p - 1 + count)).map { idx in
                let lag = idx - (p - 1)
                return Float(xr[lag >= 0 ? lag : n + lag])
            }
        }
    }

    /// In-place iterative radix-2 FFT (inverse unscaled: only the peak's place and its height
    /// relative to the rest matter).
    static func fft(_ re: inout [Double], _ im: inout [Double], inverse: Bool) {
        let n = re.count
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var len = 2
        while len <= n {
            let angle = (inverse ? 2 : -2) * Double.pi / Double(len)
            let wr = cos(angle), wi = sin(angle)
            var start = 0
            while start < n {
                var cr = 1.0, ci = 0.0
                for k in 0..<(len / 2) {
                    let a = start + k, b = a + len / 2
                    let tr = re[b] * cr - im[b] * ci, ti = re[b] * ci + im[b] * cr
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                    let ncr = cr * wr - ci * wi
                    ci = cr * wi + ci * wr; cr = ncr
                }
                start += len
            }
            len *= 2
        }
    }
}
