/// What `lockstep reverse` shows, as runs of source frames (presentation indices), and how a
/// backward run is read in bounded memory. Pure: tested without files.
public struct ReversePlan: Equatable, Sendable {
    public enum Run: Equatable, Sendable {
        /// Frames lower through upper, in order.
        case forward(ClosedRange<Int>)
        /// Frames upper down to lower.
        case backward(ClosedRange<Int>)

        public var count: Int {
            switch self {
            case .forward(let r), .backward(let r): return r.count
            }
        }
    }

    public let runs: [Run]

    /// `frames` source frames. Reverse: the clip backwards, `loops` times. Boomerang: forward then
    /// backward, the turning frame shown once; each further loop goes forward again from frame 1
    /// (frame 0, where the last loop ended, is not shown twice either).
    public init(frames n: Int, boomerang: Bool, loops: Int) {
        precondition(n > 0)
        self.init(frames: 0...(n - 1), boomerang: boomerang, loops: loops)
    }

    /// The same over source frames `frames` only (a cut): they are the clip.
    public init(frames r: ClosedRange<Int>, boomerang: Bool, loops: Int) {
        precondition(r.lowerBound >= 0 && loops > 0)
        let (lo, hi) = (r.lowerBound, r.upperBound)
        var runs: [Run] = []
        if !boomerang {
            runs = Array(repeating: .backward(r), count: loops)
        } else {
            runs.append(.forward(r))
            if hi > lo {
                runs.append(.backward(lo...(hi - 1)))
                for _ in 1..<loops {
                    runs.append(.forward((lo + 1)...hi))
                    runs.append(.backward(lo...(hi - 1)))
                }
            }
        }
        self.runs = runs
    }

    public var count: Int { runs.reduce(0) { $0 + $1.count } }

    /// Every output frame's source frame, in output order (for tests and small clips).
    public var sourceFrames: [Int] {
        runs.flatMap { run -> [Int] in
            switch run {
            case .forward(let r): return Array(r)
            case .backward(let r): return Array(r.reversed())
            }
        }
    }

    /// The decodes that read `frames` backwards holding at most `pool` pictures: ranges of
    /// frames, each inside one segment (a GOP: decoding starts at its keyframe), in the order
    /// they are decoded; each is then shown last frame first. A segment longer than the pool is
    /// read in sub-ranges from its end, each decoded from the segment's keyframe again.
    /// `segmentStart(i)` is the first frame of the segment holding frame i.
    public static func backwardPasses(_ frames: ClosedRange<Int>, pool: Int, segmentStart: (Int) -> Int) -> [Range<Int>] {
        precondition(pool > 0)
        var passes: [Range<Int>] = []
        var end = frames.upperBound + 1
        while end > frames.lowerBound {
            let start = max(frames.lowerBound, segmentStart(end - 1), end - pool)
            passes.append(start..<end)
            end = start
        }
        return passes
    }

    /// The decodes that read `frames` forward holding at most `pool` pictures: consecutive
    /// ranges of at most `pool` frames, each ending at a segment's start where one lies inside it,
    /// so that the next decode starts at a keyframe instead of decoding its segment again.
    /// `segmentStarts`: the first frame of every segment, increasing.
    public static func forwardPasses(_ frames: ClosedRange<Int>, pool: Int, segmentStarts: [Int]) -> [Range<Int>] {
        precondition(pool > 0)
        var passes: [Range<Int>] = []
        var start = frames.lowerBound
        while start <= frames.upperBound {
            var end = min(frames.upperBound + 1, start + pool)
            // The last segment start inside (start, end), unless the range already ends at one.
            if end <= frames.upperBound && !segmentStarts.contains(end), let k = segmentStarts.last(where: { $0 > start && $0 < end }) {
                end = k
            }
            passes.append(start..<end)
            start = end
        }
        return passes
    }

    /// Pictures decoded for those passes (each from its segment's keyframe up to its end),
    /// before the savings of skipping non-reference pictures: the extra decode cost is this
    /// over `frames.count`. For one GOP of G frames and a pool of P, with m = ceil(G / P):
    /// m * G - P * m * (m - 1) / 2.
    public static func picturesDecoded(_ passes: [Range<Int>], segmentStart: (Int) -> Int) -> Int {
        passes.reduce(0) { $0 + $1.upperBound - segmentStart($1.lowerBound) }
    }
}
