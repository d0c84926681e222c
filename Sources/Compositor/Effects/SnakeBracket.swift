/// The second proof that a segment's pre-roll is long enough, by the pixels themselves: where
/// the trail feeds itself for ever (a steady pan keeps every trail pixel sampling the trail),
/// the taint (`SnakeTaint`) never ends, yet the old picture fades out of it in a few frames.
///
/// Why it holds. `SnakeRenderer` is monotone in its previous output P: every output pixel of
/// every plane (Y, U and V alike, each with its own tables) is
///   - a constant (the black clear and the border bands: 16 on Y, 128 on U and V), or
///   - the current frame's bilinear sample (the front quad; it does not read P), or
///   - floor((sum of w_i * P_i + 32768) / 65536) over the trail quad's four sources, with
///     integer weights w_i = (256 - fx or fx) * (256 - fy or fy), each in 0...65536 (the
///     tables' fractions are rounded into 0...256), adding up to 65536.
/// A sum with non-negative weights and floor are both non-decreasing in every P_i; the sum
/// stays within 0...255 * 65536 + 32768, so the result is within 0...255 with no clamping and no
/// wrap-around (`truncatingIfNeeded` never truncates). Hence if P <= P' pixel by pixel, then
/// out(P) <= out(P'), and by induction over any number of frames (same frames, same motion).
/// Any true previous output S lies between the all-0 and the all-255 picture, so from the same
/// start the true output at frame A lies between the two extremes' outputs; where they are
/// equal on every pixel, it is equal to them: the pre-roll is exact, whatever came before.
///
/// And closing is monotone in the pre-roll's length: started one frame earlier, both
/// extremes reach the later start as some pictures within 0...255, so they stay between the
/// later start's extremes, which already agree. So the shortest exact pre-roll is a binary
/// search away.
public final class SnakeBracket {
    public let width: Int, height: Int
    private let low: SnakeRenderer, high: SnakeRenderer
    /// Where the two renderers draw (their trails keep their own copies).
    private let sink: YUVBuffer

    public init(width: Int, height: Int, parameters: SnakeParameters) {
        self.width = width; self.height = height
        low = SnakeRenderer(width: width, height: height, parameters: parameters)
        high = SnakeRenderer(width: width, height: height, parameters: parameters)
        sink = YUVBuffer(width: width, height: height)
    }

    /// Starts both extremes with the trail's motion as it is before the first frame rendered.
    public func begin(_ trail: SnakeTrail) {
        low.restore(trail, previousFill: 0)
        high.restore(trail, previousFill: 255)
    }

    /// Renders one frame on both extremes. No allocation.
    public func render(_ current: YUVImage, motion: SnakeMotion?) {
        low.render(current, motion: motion, into: sink.image)
        high.render(current, motion: motion, into: sink.image)
    }

    /// Whether the two extremes agree on every pixel of every plane of the last frame rendered:
    /// then that frame is the same from any previous output at the start.
    public var closed: Bool { low.lastOutputEquals(high) }

    /// The last frame rendered (when `closed`: the true one).
    public func copyLastOutput(into out: YUVImage) { low.copyLastOutput(into: out) }
}

/// The frames of a segment's pre-roll window, kept once decoded, and the shortest pre-roll
/// among them that the bracket proves exact. Frames `first...last` (the last being the
/// segment's first frame A): each frame's picture before the snake (copied into buffers made
/// once), its motion, and the trail's motion before it.
public final class SnakeBracketWindow {
    public let first: Int, last: Int
    private var pictures: [YUVBuffer]
    private var motions: [SnakeMotion?]
    private var trails: [SnakeTrail]
    private let bracket: SnakeBracket

    public init(first: Int, last: Int, width: Int, height: Int, parameters: SnakeParameters) {
        precondition(first <= last)
        self.first = first; self.last = last
        let n = last - first + 1
        pictures = (0..<n).map { _ in YUVBuffer(width: width, height: height) }
        motions = Array(repeating: nil, count: n)
        trails = Array(repeating: SnakeTrail(), count: n)
        bracket = SnakeBracket(width: width, height: height, parameters: parameters)
    }

    /// Keeps frame k's picture (before the snake), its motion, and the trail before it.
    public func store(_ k: Int, picture: YUVImage, motion: SnakeMotion?, trailBefore: SnakeTrail) {
        let i = k - first
        PlaneKernels.copy(picture, into: pictures[i].image)
        motions[i] = motion
        trails[i] = trailBefore
    }

    /// Whether a pre-roll of `d` frames (frames last - d ..< last, then `last`) from the two
    /// extremes agrees at `last`.
    public func closes(preRoll d: Int) -> Bool {
        precondition(d >= 0 && d <= last - first)
        let s = last - d - first
        bracket.begin(trails[s])
        for i in s...(last - first) { bracket.render(pictures[i].image, motion: motions[i]) }
        return bracket.closed
    }

    /// The fewest frames D (0...last - first) whose pre-roll the bracket proves exact at
    /// `last`, nil if even the whole window does not. When found, `out` gets frame `last` as
    /// the single pass has it.
    public func shortestPreRoll(into out: YUVImage? = nil) -> Int? {
        var hi = last - first
        guard closes(preRoll: hi) else { return nil }
        var lo = -1  // closes(lo) false (or below the range), closes(hi) true
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if closes(preRoll: mid) { hi = mid } else { lo = mid }
        }
        if let out {
            _ = closes(preRoll: hi)
            bracket.copyLastOutput(into: out)
        }
        return hi
    }
}
