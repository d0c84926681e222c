import RealModule
import Spectral

/// The global shift between two pictures by phase correlation: the normalised cross-power
/// spectrum of the two, back to space, peaks at the shift. Pictures are luma, downscaled to a
/// power-of-two square first (motion of the whole frame is what calibration needs), with a Hann
/// window so the edges do not dominate. The peak is found to a fraction of a sample as
/// `PhaseCorrelationPeak` says (a Gaussian-weighted spectrum, a Gaussian fit).
///
/// The product measures with Lockstep's FFTW correlator (calibrate's `FrameMotionExtractor`, the
/// snake report's `PictureShiftMeter`); this plain version, in doubles, is the reference the
/// tests hold those to (FrameMotionTests, PictureShiftMeterTests).
public struct PhaseCorrelator {
    public let size: Int
    private let window: [Double]
    /// `PhaseCorrelationPeak.weight` of every frequency, and the peak height of a perfect match.
    private let weights: [Double]
    private let perfectPeak: Double
    private var re: [Double], im: [Double], reB: [Double], imB: [Double]
    private var previous: (re: [Double], im: [Double])?
    private var planes: PlaneFFT

    public init(size: Int = 64) {
        precondition(size >= 8 && size & (size - 1) == 0, "size must be a power of two")
        self.size = size
        var w = [Double](repeating: 0, count: size)
        for i in 0..<size { w[i] = 0.5 - 0.5 * Double.cos(2 * .pi * Double(i) / Double(size)) }
        window = w
        weights = (0..<(size * size)).map { PhaseCorrelationPeak.weight(kx: $0 % size, ky: $0 / size, size: size) }
        perfectPeak = PhaseCorrelationPeak.totalWeight(size: size) / Double(size * size)
        re = Array(repeating: 0, count: size * size); im = re; reB = re; imB = re
        planes = PlaneFFT(size: size)
    }

    /// Box-downscales the centre square of a luma picture into size x size samples; returns the
    /// scale (source pixels per sample) to turn shifts back into source pixels.
    public static func downscale(_ luma: [UInt8], width: Int, height: Int, size: Int) -> (samples: [Double], scale: Int) {
        let side = min(width, height)
        let k = max(1, side / size)
        let x0 = (width - k * size) / 2, y0 = (height - k * size) / 2
        var out = [Double](repeating: 0, count: size * size)
        guard side < size else {
            for y in 0..<size {
                for x in 0..<size {
                    var s = 0
                    for dy in 0..<k { let row = (y0 + y * k + dy) * width + x0 + x * k; for dx in 0..<k { s += Int(luma[row + dx]) } }
                    out[y * size + x] = Double(s) / Double(k * k)
                }
            }
            return (out, k)
        }
        // A picture narrower or lower than size samples (a 160x120 clip against snake's 128): its
        // centre, one sample per pixel, with the edge pixels repeated past the picture (reading
        // past it trapped).
        for y in 0..<size {
            let row = min(max(y0 + y, 0), height - 1) * width
            for x in 0..<size { out[y * size + x] = Double(luma[row + min(max(x0 + x, 0), width - 1)]) }
        }
        return (out, 1)
    }

    /// Feeds the next picture (size x size samples); returns its shift relative to the previous
    /// one in samples (content moving right and down is positive), or nil for the first.
    public mutating func next(_ samples: [Double]) -> (dx: Double, dy: Double, peak: Double)? {
        precondition(samples.count == size * size)
        let mean = samples.reduce(0, +) / Double(samples.count)
        for y in 0..<size { for x in 0..<size { re[y * size + x] = (samples[y * size + x] - mean) * window[x] * window[y]; im[y * size + x] = 0 } }
        planes.transform(&re, &im, inverse: false)
        defer { previous = (re, im) }
        guard let prev = previous else { return nil }
        // R = conj(prev) * current / |...|: its inverse peaks at the current picture's shift.
        for i in 0..<(size * size) {
            let a = prev.re[i], b = -prev.im[i], c = re[i], d = im[i]
            let pr = a * c - b * d, pi = a * d + b * c
            let m = (pr * pr + pi * pi).squareRoot()
            reB[i] = m > 1e-12 ? pr / m * weights[i] : 0; imB[i] = m > 1e-12 ? pi / m * weights[i] : 0
        }
        planes.transform(&reB, &imB, inverse: true)
        var best = 0
        for i in 1..<(size * size) where reB[i] > reB[best] { best = i }
        let bx = best % size, by = best / size
        func at(_ x: Int, _ y: Int) -> Double { reB[((y + size) % size) * size + (x + size) % size] }
        var dx = Double(bx) + PhaseCorrelationPeak.offset(at(bx - 1, by), at(bx, by), at(bx + 1, by))
        var dy = Double(by) + PhaseCorrelationPeak.offset(at(bx, by - 1), at(bx, by), at(bx, by + 1))
        if dx > Double(size) / 2 { dx -= Double(size) }
        if dy > Double(size) / 2 { dy -= Double(size) }
        return (dx, dy, reB[best] / perfectPeak)
    }
}

/// A size x size complex transform, row major: every row, then every column, through one
/// `RadixTwoFFT` (a column is copied out and back).
struct PlaneFFT {
    let line: RadixTwoFFT
    private var lineRe: [Double], lineIm: [Double]

    init(size: Int) {
        line = RadixTwoFFT(size: size)
        lineRe = Array(repeating: 0, count: size); lineIm = lineRe
    }

    mutating func transform(_ re: inout [Double], _ im: inout [Double], inverse: Bool) {
        let n = line.size
        for pass in 0..<2 {
            for k in 0..<n {
                // Pass 0: row k (stride 1); pass 1: column k (stride n).
                let (start, step) = pass == 0 ? (k * n, 1) : (k, n)
                for i in 0..<n { lineRe[i] = re[start + i * step]; lineIm[i] = im[start + i * step] }
                if inverse { line.inverse(&lineRe, &lineIm) } else { line.forward(&lineRe, &lineIm) }
                for i in 0..<n { re[start + i * step] = lineRe[i]; im[start + i * step] = lineIm[i] }
            }
        }
    }
}
