import Foundation

/// How far apart two pictures' samples are, for the tests' comparisons with outside references.
/// TestSupport is built optimised with the product (LOCKSTEP_OPTIMIZE, Package.swift), the test
/// targets are not: in a debug build these loops took 0.1 s for one 1080p frame's PSNR and about
/// 3 s for one `flatPSNR`, and the colour, keying and deinterlacing suites make dozens. The
/// element types are concrete, not generic: a generic would be specialised, unoptimised, in the
/// calling test.
public enum PixelDifference {
    /// The sum of |a - b| over every `stride`-th sample of the first `count` (default: all of the
    /// shorter).
    public static func absoluteSum(_ a: [UInt8], _ b: [UInt8], count: Int? = nil, stride step: Int = 1) -> Int {
        let n = min(count ?? Int.max, a.count, b.count)
        return a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                var sum = 0
                for i in Swift.stride(from: 0, to: n, by: step) { sum += abs(Int(a[i]) - Int(b[i])) }
                return sum
            }
        }
    }

    /// The mean of |a - b| over two equally long arrays; infinity when their lengths differ or
    /// they are empty.
    public static func meanAbsolute(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        return Double(absoluteSum(a, b)) / Double(a.count)
    }

    /// The largest |a - b| over the shorter array.
    public static func maxAbsolute(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                var worst = 0
                for i in 0..<min(a.count, b.count) { worst = max(worst, abs(Int(a[i]) - Int(b[i]))) }
                return worst
            }
        }
    }

    /// The sum of (a - b)^2 over the shorter array.
    public static func squaredSum(_ a: [UInt8], _ b: [UInt8]) -> Double {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in squaredSum(a, b) } }
    }

    /// The sum of (a - b)^2 over the shorter array (10- to 16-bit samples).
    public static func squaredSum(_ a: [UInt16], _ b: [UInt16]) -> Double {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in squaredSum(a, b) } }
    }

    /// Specialised here, in this optimised module, for each public caller's element type.
    private static func squaredSum<Sample: FixedWidthInteger>(_ a: UnsafeBufferPointer<Sample>, _ b: UnsafeBufferPointer<Sample>) -> Double {
        var sum = 0.0
        for i in 0..<min(a.count, b.count) { let d = Double(Int(a[i]) - Int(b[i])); sum += d * d }
        return sum
    }

    /// PSNR in dB of a mean squared error for samples that peak at `peak`; infinity for 0.
    public static func psnr(meanSquaredError mse: Double, peak: Double) -> Double {
        mse == 0 ? .infinity : 10 * log10(peak * peak / mse)
    }

    /// PSNR of two equally long, non-empty byte arrays (all planes), dB.
    public static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        return psnr(meanSquaredError: squaredSum(a, b) / Double(a.count), peak: 255)
    }

    /// PSNR of two rgb24 pictures (`width` x `height`) over the pixels where the reference `b` is
    /// flat: no channel varies by 6 codes or more in the 7x7 pixels around (colour, not edges:
    /// ColorReference.flatPSNR says why). `share`: the part of the picture compared.
    public static func flatPSNR(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> (psnr: Double, share: Double) {
        precondition(a.count == width * height * 3 && b.count == a.count)
        // Each channel's range over 7 columns, then over 7 rows of those.
        var across = [Int](repeating: 0, count: width * height * 6)  // min, max per channel
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 {
                    var lo = 255, hi = 0
                    for k in max(x - 3, 0)...min(x + 3, width - 1) { let v = Int(b[(y * width + k) * 3 + c]); lo = min(lo, v); hi = max(hi, v) }
                    across[(y * width + x) * 6 + 2 * c] = lo; across[(y * width + x) * 6 + 2 * c + 1] = hi
                }
            }
        }
        var sum = 0.0, flat = 0
        for y in 0..<height {
            for x in 0..<width {
                var range = 0
                for c in 0..<3 {
                    var lo = 255, hi = 0
                    for k in max(y - 3, 0)...min(y + 3, height - 1) {
                        lo = min(lo, across[(k * width + x) * 6 + 2 * c]); hi = max(hi, across[(k * width + x) * 6 + 2 * c + 1])
                    }
                    range = max(range, hi - lo)
                }
                guard range < 6 else { continue }
                flat += 1
                for c in 0..<3 { let i = (y * width + x) * 3 + c, d = Double(Int(a[i]) - Int(b[i])); sum += d * d }
            }
        }
        let mse = flat == 0 ? .infinity : sum / Double(3 * flat)
        return (psnr(meanSquaredError: mse, peak: 255), Double(flat) / Double(width * height))
    }
}
