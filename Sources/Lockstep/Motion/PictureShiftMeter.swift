/// The picture's own shift from frame to frame, for the snake's report: the centre square of the
/// luma box-downscaled to `size` x `size` samples (the rule of Motion's `PhaseCorrelator.downscale`,
/// rounded to bytes), then phase correlation on FFTW, the measurement calibrate makes
/// (`FrameMotionExtractor`). Its buffers and plans are made once: a frame allocates nothing.
final class PictureShiftMeter {
    let size: Int
    private let correlator: FFTWCorrelator
    private var previous: CorrelationSpectrum, current: CorrelationSpectrum
    private var square: [UInt8]
    private var primed = false

    init(size: Int = 128) {
        self.size = size
        correlator = FFTWCorrelator(size: size)
        previous = CorrelationSpectrum(size: size); current = CorrelationSpectrum(size: size)
        square = [UInt8](repeating: 0, count: size * size)
    }

    /// The next picture (`row(y)`: its luma row y, `width` samples); its shift from the previous
    /// one in picture pixels (content moving right and down is positive), nil for the first.
    func next(width: Int, height: Int, row: (Int) -> UnsafePointer<UInt8>) -> (dx: Double, dy: Double)? {
        let n = size, side = min(width, height)
        let k = max(1, side / n)
        let x0 = (width - k * n) / 2, y0 = (height - k * n) / 2
        square.withUnsafeMutableBufferPointer { out in
            if side >= n {
                let area = k * k
                for y in 0..<n {
                    for x in 0..<n {
                        var s = 0
                        for dy in 0..<k { let r = row(y0 + y * k + dy) + x0 + x * k; for dx in 0..<k { s += Int(r[dx]) } }
                        out[y * n + x] = UInt8((s + area / 2) / area)
                    }
                }
            } else {
                // A picture narrower or lower than the square: its centre, one sample per pixel,
                // the edge pixels repeated past it.
                for y in 0..<n {
                    let r = row(min(max(y0 + y, 0), height - 1))
                    for x in 0..<n { out[y * n + x] = r[min(max(x0 + x, 0), width - 1)] }
                }
            }
        }
        square.withUnsafeBufferPointer { correlator.spectrum(of: $0, into: current) }
        defer { swap(&previous, &current); primed = true }
        guard primed else { return nil }
        let s = correlator.shift(from: previous, to: current)
        return (s.dx * Double(k), s.dy * Double(k))
    }
}
