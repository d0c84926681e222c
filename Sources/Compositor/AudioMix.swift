import RealModule

/// The audio side of the timeline: how many samples a video length holds, and how several
/// inputs sum into one track.
public enum AudioTimeline {
    /// Samples at `rate` that exactly cover `frames` output frames at `frameRate`, rounded to
    /// the nearest sample: audio ends where the video ends.
    public static func samples(coveringFrames frames: Int64, frameRate: Rational, sampleRate: Int) -> Int64 {
        Rational.rescale(frames, from: frameRate.inverse, to: Rational(1, Int64(sampleRate)))
    }
}

/// Sums inputs with per-input gains, then a soft knee: below `knee` samples pass unchanged;
/// above it they bend smoothly towards full scale and never wrap or clip hard.
public struct AudioMixer: Sendable {
    public var gains: [Float]
    public var knee: Float = 0.8

    public init(gains: [Float]) { self.gains = gains }

    /// out[n] = limit(sum of gains[i] * inputs[i][n]), for `count` samples; an input given as
    /// nil is silent there.
    public func mix(_ inputs: [UnsafePointer<Float>?], count: Int, into out: UnsafeMutablePointer<Float>) {
        out.update(repeating: 0, count: count)
        for (i, input) in inputs.enumerated() {
            guard let input else { continue }
            let g = gains[i]
            for n in 0..<count { out[n] += g * input[n] }
        }
        for n in 0..<count { out[n] = limit(out[n]) }
    }

    /// Identity up to the knee, then a tanh curve that reaches 1.0 only at infinity.
    @inline(__always) public func limit(_ x: Float) -> Float {
        let m = abs(x)
        guard m > knee else { return x }
        let room = 1 - knee
        let bent = knee + room * Float.tanh((m - knee) / room)
        return x < 0 ? -bent : bent
    }
}
