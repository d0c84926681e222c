import Compositor

/// A reversal on the output's timeline: each run of the plan (`ReversePlan`) placed after the
/// one before, lasting as long as the source span it shows, so that the source's own timeline
/// (dropped frames, a variable rate, an edit list's end) is kept, reversed, and the frame loop
/// (`FrameSync`) picks the frame on screen at each output tick as it does for every command.
/// Times are in the source's time base, from its first frame. Pure: tested without files.
///
/// Source frame s is on screen over [starts[s], ends(s)), ends(s) = starts[s + 1] or `end`.
/// A forward run over source span [A, B) placed at P shows s from P + max(starts[s], A) - A; a
/// backward one from P + B - min(ends(s), B): the frame that left the screen last comes first.
/// A cut (`span`) keeps source time [F, T): the runs cover the frames on screen in it, the
/// first and last shortened to it.
public struct ReverseTimeline: Equatable, Sendable {
    /// One run placed in time: source span [start, end), shown from output time `at`.
    public struct Piece: Equatable, Sendable {
        public var run: ReversePlan.Run
        public var start: Int64
        public var end: Int64
        public var at: Int64
        public var length: Int64 { end - start }
        public var backward: Bool {
            if case .backward = run { return true }
            return false
        }
    }

    public let starts: [Int64]
    public let end: Int64
    /// The source time kept, [F, T).
    public let span: Range<Int64>
    public let plan: ReversePlan
    public let pieces: [Piece]

    /// `starts`: every source frame's start from the first's (increasing, starts[0] = 0);
    /// `end`: where the last leaves the screen; `cut`: the source time kept (nil: all of it),
    /// which must start before `end`.
    public init(starts: [Int64], end: Int64, boomerang: Bool, loops: Int, cut: Range<Int64>? = nil) {
        precondition(!starts.isEmpty && end > starts[starts.count - 1])
        self.starts = starts
        self.end = end
        let span = max(0, cut?.lowerBound ?? 0)..<min(end, cut?.upperBound ?? end)
        precondition(!span.isEmpty, "a cut inside the source")
        self.span = span
        // The frames on screen in the span: from the one shown at F to the last starting before T.
        let lo = Self.frame(at: span.lowerBound, starts)
        let hi = Self.frame(before: span.upperBound, starts)
        plan = ReversePlan(frames: lo...hi, boomerang: boomerang, loops: loops)
        var pieces: [Piece] = []
        var at: Int64 = 0
        for run in plan.runs {
            let r: ClosedRange<Int>
            switch run {
            case .forward(let x), .backward(let x): r = x
            }
            let a = max(starts[r.lowerBound], span.lowerBound)
            let b = min(r.upperBound + 1 < starts.count ? starts[r.upperBound + 1] : end, span.upperBound)
            pieces.append(Piece(run: run, start: a, end: b, at: at))
            at += b - a
        }
        self.pieces = pieces
    }

    /// The output's length in the source's time base.
    public var length: Int64 { pieces.last.map { $0.at + $0.length } ?? 0 }

    /// Where source frame s leaves the screen (uncut).
    public func until(_ s: Int) -> Int64 { s + 1 < starts.count ? starts[s + 1] : end }

    /// Source frame s in `piece`: where it starts on the output's timeline, and how long it lasts there.
    public func placed(_ s: Int, in piece: Piece) -> (start: Int64, length: Int64) {
        let a = max(starts[s], piece.start), b = min(until(s), piece.end)
        return (piece.backward ? piece.at + piece.end - b : piece.at + a - piece.start, b - a)
    }

    /// The last frame starting at or before t (frame 0 before it).
    static func frame(at t: Int64, _ starts: [Int64]) -> Int {
        var lo = 0, hi = starts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= t { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// The last frame starting before t (frame 0 if none).
    static func frame(before t: Int64, _ starts: [Int64]) -> Int {
        let f = frame(at: t, starts)
        return f > 0 && starts[f] >= t ? f - 1 : f
    }
}
