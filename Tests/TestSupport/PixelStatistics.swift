/// Extremes and sums of a picture's samples, for the tests' looks at decoded frames. Here, in
/// TestSupport, built optimised with the product (as `PixelDifference`): in the test targets, at
/// -Onone, a generic `max()` over each row of a 320x240 frame took about 30 ms, and the fixture
/// checks look at every frame of several clips.
public enum PixelStatistics {
    /// The largest of `samples[range]`; nil for an empty range.
    public static func max(_ samples: [UInt8], _ range: Range<Int>) -> UInt8? {
        guard !range.isEmpty else { return nil }
        return samples.withUnsafeBufferPointer { p in
            var top = p[range.lowerBound]
            for i in range where p[i] > top { top = p[i] }
            return top
        }
    }

    /// The sum of `samples[range]` (all of them by default).
    public static func sum(_ samples: [UInt8], _ range: Range<Int>? = nil) -> Int {
        samples.withUnsafeBufferPointer { p in
            var total = 0
            for i in range ?? 0..<p.count { total += Int(p[i]) }
            return total
        }
    }
}
