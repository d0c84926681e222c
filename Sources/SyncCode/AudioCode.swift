import Compositor
import RealModule

/// The audio code, locked to the video: blocks of `framesPerBlock` frames (half a second or
/// less, so any one second of audio holds a whole block). Block b starts exactly at the video
/// time of frame c = b * framesPerBlock, c/fps, with
///   - a 20 ms linear chirp, 1 to 6 kHz, 1 ms raised-cosine ends: found by correlation, its peak
///     gives the block's start to a fraction of a sample, whatever the gain;
///   - 2 ms of silence, then the `CodeWord` of c as 36 symbols of 4 ms, 2 kHz for 0 and 3 kHz
///     for 1 (whole cycles per symbol, so the phase is continuous): decided by comparing the two
///     tones' energies, so gain, resampling and AAC leave them readable;
///   - silence to the next block.
/// The signal is defined in continuous time, so any sample rate renders the same code and
/// rendering is deterministic.
public struct AudioCode: Sendable {
    public static let preambleSeconds = 0.020
    public static let gapSeconds = 0.002
    public static let symbolSeconds = 0.004
    public static let chirpFrom = 1000.0, chirpTo = 6000.0
    public static let zeroTone = 2000.0, oneTone = 3000.0
    public static let amplitude = 0.5
    static let ramp = 0.001
    public static var dataStart: Double { preambleSeconds + gapSeconds }
    public static var blockSignalSeconds: Double { dataStart + Double(CodeWord.bits) * symbolSeconds }

    public let frameRate: Rational
    public let framesPerBlock: Int

    public init(frameRate: Rational) {
        self.frameRate = frameRate
        framesPerBlock = max(1, Int(frameRate.num / (2 * frameRate.den)))
    }

    /// The preamble at time t (seconds from its start), 0 outside it.
    public static func preamble(_ t: Double) -> Double {
        guard t >= 0, t < preambleSeconds else { return 0 }
        let k = (chirpTo - chirpFrom) / preambleSeconds
        let phase = 2 * Double.pi * (chirpFrom * t + k * t * t / 2)
        return amplitude * taper(t, length: preambleSeconds) * Double.sin(phase)
    }

    static func taper(_ t: Double, length: Double) -> Double {
        let edge = min(t, length - t)
        return edge >= ramp ? 1 : 0.5 - 0.5 * Double.cos(Double.pi * max(0, edge) / ramp)
    }

    /// The data section at time t from its start, for `word`.
    static func data(_ t: Double, word: UInt64) -> Double {
        let length = Double(CodeWord.bits) * symbolSeconds
        guard t >= 0, t < length else { return 0 }
        let j = min(CodeWord.bits - 1, Int(t / symbolSeconds))
        let f = (word >> UInt64(j)) & 1 == 1 ? oneTone : zeroTone
        let u = t - Double(j) * symbolSeconds
        return amplitude * taper(t, length: length) * Double.sin(2 * Double.pi * f * u)
    }

    /// Renders samples `first ..< first + out.count` at `rate` Hz (sample n at n / rate seconds
    /// from video frame 0).
    public func render(first: Int64, rate: Int, into out: UnsafeMutableBufferPointer<Float>) {
        let num = frameRate.num, den = frameRate.den, f = Int64(framesPerBlock), r = Int64(rate)
        var cachedBlock: Int64 = -1, word: UInt64 = 0
        for i in 0..<out.count {
            let n = first + Int64(i)
            // Block of sample n, exactly: floor(n / rate * fps / F).
            let block = n >= 0 ? (n * num) / (r * den * f) : -1
            guard block >= 0 else { out[i] = 0; continue }
            let c = block * f
            if block != cachedBlock { cachedBlock = block; word = CodeWord.encode(Int(c % Int64(CodeWord.modulus))) }
            // Time since the block's start, from an exact integer numerator.
            let t = Double(n * num - c * den * r) / Double(r * num)
            let v = t < Self.preambleSeconds ? Self.preamble(t) : Self.data(t - Self.dataStart, word: word)
            out[i] = Float(v)
        }
    }
}
