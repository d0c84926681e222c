import RealModule

/// Lowers the sample rate by an integer factor with a windowed-sinc low-pass (Hann window,
/// cutoff at 0.45 of the new rate, 8 taps per output sample on each side), centred on each
/// output sample: output m is the input's time m * factor, with no delay, so a decimated sound
/// keeps its place on its clock.
public struct Decimator: Sendable {
    public let factor: Int
    private let taps: [Float]

    public init(factor: Int) {
        precondition(factor >= 1)
        self.factor = factor
        let half = 8 * factor, cutoff = 0.45 / Double(factor)  // cycles per input sample
        var h = (-half...half).map { k -> Double in
            let x = Double(k)
            let sinc = k == 0 ? 2 * cutoff : Double.sin(2 * Double.pi * cutoff * x) / (Double.pi * x)
            return sinc * (0.5 + 0.5 * Double.cos(Double.pi * x / Double(half + 1)))
        }
        let sum = h.reduce(0, +)
        h = h.map { $0 / sum }
        taps = h.map(Float.init)
    }

    public func callAsFunction(_ x: [Float]) -> [Float] {
        guard factor > 1 else { return x }
        let n = x.count / factor, half = taps.count / 2
        var y = [Float](repeating: 0, count: n)
        x.withUnsafeBufferPointer { x in
            taps.withUnsafeBufferPointer { h in
                y.withUnsafeMutableBufferPointer { y in
                    for m in 0..<n {
                        let c = m * factor
                        let lo = max(0, c - half), hi = min(x.count - 1, c + half)
                        var s: Float = 0
                        for i in lo...hi { s += h[i - c + half] * x[i] }
                        y[m] = s
                    }
                }
            }
        }
        return y
    }
}
