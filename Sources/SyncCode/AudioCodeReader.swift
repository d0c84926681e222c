import RealModule
import Spectral

/// One audio code block found: the frame number it carries and where its preamble starts, in
/// seconds on the clock of the samples given (the stream's own time).
public struct AudioCodeHit: Equatable, Sendable {
    public var frame: Int
    public var time: Double
    /// Normalised correlation of the preamble, 0-1.
    public var score: Double
    public init(frame: Int, time: Double, score: Double) { self.frame = frame; self.time = time; self.score = score }
}

/// Finds `AudioCode` blocks in a stream of mono samples, incrementally (memory bounded by one
/// FFT block whatever the length). The samples are averaged in pairs first (the code lies under
/// 6 kHz; half the rate halves the work); the template is made the same way, so the pairing's
/// half-sample delay cancels. The preamble is found by FFT correlation (overlap-save),
/// normalised by the local energy so gain does not matter; a peak is a local maximum over
/// +-5 ms above 0.5, refined by a parabola to a fraction of a sample. Each peak's data symbols
/// are then decided by Goertzel energies at the two tones, and its word checked.
public struct AudioCodeReader {
    public let inputRate: Int
    let rate: Double
    private let fft: any ComplexFFT
    private let templateRe: [Double], templateIm: [Double]
    private let templateLength: Int, templateNorm: Double
    private let peakWindow: Int, dataEnd: Int, step: Int
    private var buffer: [Double] = []
    private var bufferStart: Int64 = 0
    private var pending: Float?
    private var started = false
    private var inputStart: Int64 = 0
    private var re: [Double], im: [Double], energy: [Double], ncc: [Double]
    public private(set) var hits: [AudioCodeHit] = []
    /// Preambles whose data failed its checksum.
    public private(set) var rejected = 0
    public static let threshold = 0.5

    /// `fft`: FFTW's in the jobs (`lockstep verify --coded`), the pure one by default.
    public init(rate: Int, fftSize: Int = 32768, fft makeFFT: ComplexFFTMaker = RadixTwoFFT.make) {
        inputRate = rate
        self.rate = Double(rate) / 2
        fft = makeFFT(fftSize)
        // The preamble rendered at the input rate and paired like the input.
        let full = Int((AudioCode.preambleSeconds * Double(rate)).rounded(.up)) + 2
        var t = [Double](repeating: 0, count: full / 2)
        for i in t.indices {
            t[i] = (AudioCode.preamble(Double(2 * i) / Double(rate)) + AudioCode.preamble(Double(2 * i + 1) / Double(rate))) / 2
        }
        templateLength = t.count
        templateNorm = t.reduce(0) { $0 + $1 * $1 }.squareRoot()
        var tr = [Double](repeating: 0, count: fftSize), ti = [Double](repeating: 0, count: fftSize)
        for i in t.indices { tr[i] = t[i] }
        fft.forward(&tr, &ti)
        templateRe = tr; templateIm = ti
        peakWindow = Int(0.005 * self.rate)
        dataEnd = Int(((AudioCode.blockSignalSeconds + 0.002) * self.rate).rounded(.up))
        step = fftSize - peakWindow - max(templateLength + peakWindow, dataEnd)
        precondition(step > 0, "FFT too small for the code")
        re = [Double](repeating: 0, count: fftSize); im = re; energy = re; ncc = re
    }

    /// Appends samples; `start` is the first one's index on the stream's clock (at `inputRate`).
    public mutating func add(_ samples: UnsafeBufferPointer<Float>, start: Int64) {
        if !started {
            started = true
            inputStart = start
            // Leading zeros so the first real samples can be peaks (the window looks back).
            buffer = [Double](repeating: 0, count: peakWindow)
            bufferStart = -Int64(peakWindow)
        }
        for s in samples {
            if let p = pending {
                buffer.append(Double(p + s) / 2); pending = nil
            } else {
                pending = s
            }
        }
        while buffer.count >= fft.size { process() }
    }

    /// Processes what is left; returns every block found, in order.
    public mutating func finish() -> [AudioCodeHit] {
        guard started else { return hits }
        let end = bufferStart + Int64(buffer.count)
        while bufferStart + Int64(peakWindow) < end {
            if buffer.count < fft.size { buffer.append(contentsOf: repeatElement(0, count: fft.size - buffer.count)) }
            process()
        }
        buffer = []
        return hits
    }

    private mutating func process() {
        let n = fft.size, m = templateLength
        for i in 0..<n { re[i] = buffer[i]; im[i] = 0 }
        fft.forward(&re, &im)
        for i in 0..<n {
            // x * conj(template): correlation.
            let a = re[i], b = im[i], c = templateRe[i], d = templateIm[i]
            re[i] = a * c + b * d; im[i] = b * c - a * d
        }
        fft.inverse(&re, &im)
        // Local energy under the template at each lag, by a running sum.
        var e = 0.0
        for i in 0..<m { e += buffer[i] * buffer[i] }
        for i in 0...(n - m) {
            energy[i] = e
            if i + m < n { e += buffer[i + m] * buffer[i + m] - buffer[i] * buffer[i] }
        }
        let last = min(n - m - peakWindow, peakWindow + step)
        for i in 0..<min(n - m + 1, last + peakWindow + 1) {
            ncc[i] = energy[i] > 1e-12 ? re[i] / (templateNorm * energy[i].squareRoot()) : 0
        }
        var i = peakWindow
        while i < last {
            let v = ncc[i]
            if v > Self.threshold && isPeak(i) {
                decode(at: i)
                i += peakWindow
                continue
            }
            i += 1
        }
        buffer.removeFirst(step)
        bufferStart += Int64(step)
    }

    private func isPeak(_ i: Int) -> Bool {
        let v = ncc[i]
        for j in (i - peakWindow)..<i where ncc[j] >= v { return false }
        for j in (i + 1)...(i + peakWindow) where ncc[j] > v { return false }
        return true
    }

    private mutating func decode(at i: Int) {
        // Parabolic refinement of the correlation peak.
        let y0 = re[i - 1], y1 = re[i], y2 = re[i + 1]
        let den = y0 - 2 * y1 + y2
        let delta = abs(den) > 1e-12 ? max(-0.5, min(0.5, 0.5 * (y0 - y2) / den)) : 0
        let position = Double(i) + delta
        var word: UInt64 = 0
        let symbol = AudioCode.symbolSeconds * rate
        for j in 0..<CodeWord.bits {
            let s = position + (AudioCode.dataStart + Double(j) * AudioCode.symbolSeconds) * rate
            // The middle three quarters of the symbol: timing slop and tone switching stay out.
            let from = Int((s + symbol / 8).rounded()), to = Int((s + symbol * 7 / 8).rounded())
            guard from >= 0, to <= buffer.count else { rejected += 1; return }
            if power(AudioCode.oneTone, from, to) > power(AudioCode.zeroTone, from, to) { word |= 1 << UInt64(j) }
        }
        guard let frame = CodeWord.decode(word) else { rejected += 1; return }
        // Analysis sample p is input samples 2p and 2p+1 from the first one given.
        let time = (Double(inputStart) + 2 * (Double(bufferStart) + position)) / Double(inputRate)
        hits.append(AudioCodeHit(frame: frame, time: time, score: ncc[i]))
    }

    /// Goertzel power at `f` over buffer[from..<to].
    private func power(_ f: Double, _ from: Int, _ to: Int) -> Double {
        let k = 2 * Double.cos(2 * Double.pi * f / rate)
        var s1 = 0.0, s2 = 0.0
        for x in from..<to {
            let s = buffer[x] + k * s1 - s2
            s2 = s1; s1 = s
        }
        return s1 * s1 + s2 * s2 - k * s1 * s2
    }
}
