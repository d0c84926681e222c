/// What a thumbnail chooser needs to know about one picture's luma: how bright it is, how much
/// it varies, and how much edge there is in it. Measured on video-range luma (black 16).
public struct PictureDetail: Equatable, Sendable {
    /// Mean luma.
    public var mean: Double
    /// The mean of the middle half of the luma values (interquartile mean): the picture's level
    /// as a fade scales it, but hardly moved by a small object changing (a counter, a logo,
    /// a barcode), which moves the plain mean by a level or more from frame to frame.
    public var level: Double
    /// Standard deviation of the luma: 0 for a flat colour, large for contrast anywhere.
    public var deviation: Double
    /// Mean absolute difference between horizontal and between vertical neighbours (levels per
    /// pixel): 0 for a flat colour and nearly 0 for a smooth ramp; edges, texture and text raise it.
    public var gradient: Double
    /// How much brighter than the frame before it, as a fade scales a picture (`rise(from:to:)`):
    /// 0.017 is a 1.7% gain above black. nil for the first frame of a run (nothing before it).
    public var rise: Double?

    public init(mean: Double, level: Double? = nil, deviation: Double, gradient: Double, rise: Double? = nil) {
        self.mean = mean; self.level = level ?? mean; self.deviation = deviation; self.gradient = gradient; self.rise = rise
    }

    /// Measures `plane` on a grid of at most about `samples` x `samples` points (every pixel of a
    /// small picture; every k-th row and column of a large one), so a 4K frame costs as much as a
    /// 256-pixel one. Neighbour differences are taken between adjacent pixels at each point, so the
    /// gradient is the picture's own, not the grid's. Allocates nothing (the histogram is on the stack).
    public static func measure(_ plane: Plane, samples: Int = 256) -> PictureDetail {
        precondition(samples >= 2)
        let w = plane.width, h = plane.height
        guard w >= 2, h >= 2 else {
            let v = w > 0 && h > 0 ? Double(plane[0, 0]) : 0
            return PictureDetail(mean: v, deviation: 0, gradient: 0)
        }
        let stepX = max(1, w / samples), stepY = max(1, h / samples)
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 256) { histogram in
            histogram.initialize(repeating: 0)
            var sum = 0, sumSquares = 0, gradientSum = 0, count = 0
            var y = 0
            while y < h - 1 {
                let row = plane.row(y), below = plane.row(y + 1)
                var x = 0
                while x < w - 1 {
                    let v = Int(row[x])
                    sum += v; sumSquares += v * v; count += 1
                    histogram[v] += 1
                    gradientSum += abs(v - Int(row[x + 1])) + abs(v - Int(below[x]))
                    x += stepX
                }
                y += stepY
            }
            let n = Double(count)
            let mean = Double(sum) / n
            let variance = max(0, Double(sumSquares) / n - mean * mean)
            return PictureDetail(
                mean: mean, level: interquartileMean(histogram, count: count),
                deviation: variance.squareRoot(), gradient: Double(gradientSum) / (2 * n))
        }
    }

    /// The mean of the values ranked in the middle half, counting a value straddling a quartile
    /// by the part of it inside; bin v holds the value `value(v)`.
    static func interquartileMean(
        _ histogram: UnsafeMutableBufferPointer<Int>, count: Int,
        value: (Int) -> Double = { Double($0) }
    ) -> Double {
        let low = Double(count) / 4, high = 3 * Double(count) / 4
        var below = 0.0, weighted = 0.0
        for v in 0..<histogram.count where histogram[v] > 0 {
            let n = Double(histogram[v])
            let inside = max(0, min(below + n, high) - max(below, low))
            weighted += inside * value(v)
            below += n
            if below >= high { break }
        }
        return weighted / (high - low)
    }

    /// The gain from `previous` to `current` (same size, consecutive frames) as a fade from
    /// black applies it, minus 1: the interquartile mean over the grid of (current - 16) /
    /// (previous - 16) - 1, at the points at least 24 levels above black in `previous` (nearer
    /// black a ratio is noise). A fade in of n frames gives frame k over frame k - 1 a gain of
    /// k / (k - 1): its last step is 1/(n - 1) (1.7% for 2 s at 30 fps), a still picture 0. The
    /// middle half leaves out what moves (less than a quarter of the picture either way) and
    /// averages grain. nil when fewer than 64 points qualify (a black or near-black frame).
    /// Binned in steps of 0.0005 within +-0.25 (the ends hold the rest); allocates nothing.
    public static func rise(from previous: Plane, to current: Plane, samples: Int = 256) -> Double? {
        precondition(samples >= 2)
        let w = min(previous.width, current.width), h = min(previous.height, current.height)
        let stepX = max(1, w / samples), stepY = max(1, h / samples)
        let bins = 1000, width = 0.0005, lowest = -0.25
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: bins) { histogram -> Double? in
            histogram.initialize(repeating: 0)
            var count = 0
            var y = 0
            while y < h {
                let before = previous.row(y), now = current.row(y)
                var x = 0
                while x < w {
                    let p = Int(before[x]) - 16
                    if p >= 24 {
                        let r = Double(Int(now[x]) - 16) / Double(p) - 1
                        histogram[max(0, min(bins - 1, Int(((r - lowest) / width).rounded(.down))))] += 1
                        count += 1
                    }
                    x += stepX
                }
                y += stepY
            }
            guard count >= 64 else { return nil }
            return interquartileMean(histogram, count: count) { lowest + (Double($0) + 0.5) * width }
        }
    }
}

/// The rule that says what a thumbnail may show: not black, not flat, not part of a fade in
/// from black. VidClips' gallery (its bug 2) took whatever frame sat at a fixed time, which for
/// phone clips is often the black first frames or a fade.
public struct ThumbnailRule: Equatable, Sendable {
    /// A picture whose mean luma is under this is black (video range: black is 16, so this
    /// allows a little noise and a dim logo).
    public var blackMean: Double = 28
    /// A picture with less luma deviation than this is flat (a slate, a colour card).
    public var minDeviation: Double = 4
    /// ... or with less edge energy than this (levels per pixel). Low: a dim, soft picture
    /// (testsrc2 at half contrast, 256 pixels wide) measures 0.5 to 1; a flat slate through
    /// x264 measures 0.
    public var minGradient: Double = 0.3
    /// A candidate is watched for this many frames: if one of them is brighter than it by more
    /// than `brighterBy`, the candidate was still brightening (a fade in) and is dropped.
    public var lookAhead: Int = 8
    /// "Brighter" (levels of `PictureDetail.level`): this fraction of the candidate's level
    /// above black, and at least `minBrighter`. Over the frame-to-frame wobble of moving
    /// pictures (a dim testsrc2 with a barcode: about 1 level); under what a fade adds in
    /// `lookAhead` frames, until its last few.
    public var brighterBy: Double = 0.03
    public var minBrighter: Double = 1
    /// A picture whose luma deviation is more than twice the previous frame's plus this is a
    /// cut (from black, a slate, another scene) and is taken at once: a fade never doubles the
    /// deviation from one frame to the next (frame k to k+1 scales it by (k+1)/k).
    public var cutMargin: Double = 2
    /// A frame whose `rise` over the frame before it is more than this ends a candidate: the
    /// frame before had not reached full level (a fade's last step is 1/(n - 1): 0.8% for a
    /// 4 s fade at 30 fps). Over what grain and x264 leave in a still picture's middle half
    /// (under 0.1%), so the frame taken from a fade is its first at full level, exactly.
    public var fadeRise: Double = 0.005

    public init() {}

    public enum Verdict: Equatable, Sendable {
        case black, flat, picture
    }

    public func classify(_ d: PictureDetail) -> Verdict {
        if d.mean < blackMean { return .black }
        if d.deviation < minDeviation || d.gradient < minGradient { return .flat }
        return .picture
    }

    /// How far above the flatness thresholds a picture is (its weaker side): the fallback's
    /// measure of "most detailed" when nothing qualifies. Black pictures score on the same
    /// scale, so an all-black clip still yields its least empty frame.
    public func score(_ d: PictureDetail) -> Double {
        min(d.deviation / minDeviation, d.gradient / minGradient)
    }
}

/// Chooses the thumbnail from a run of consecutive frames, one at a time, without holding
/// pictures itself: it tells its caller which frame to keep.
/// - Black and flat frames are skipped.
/// - A picture whose deviation more than doubles the previous frame's is a cut (from black, a
///   slate, another scene): it is the thumbnail at once.
/// - Any other picture becomes the candidate and is watched for `lookAhead` frames: if one of
///   them is brighter by more than `brighterBy` (a fade in, or a picture still brightening),
///   or rises over the frame before it by more than `fadeRise` (a fade's step, measured pixel
///   by pixel), the candidate is dropped and that frame is considered instead; otherwise the candidate is
///   the thumbnail. So from a fade the frame taken is the first that no frame in the next
///   `lookAhead` outshines: within a few frames of the fade's end (its level within a few
///   percent of the full picture's), never its middle.
public struct ThumbnailPicker: Sendable {
    public enum Step: Equatable, Sendable {
        /// Not usable, or not needed (a candidate is being watched): drop it.
        case skip
        /// Keep this frame: it is the candidate.
        case hold
        /// The held candidate is the thumbnail.
        case takeHeld
        /// This frame is the thumbnail (a cut).
        case takeThis
    }

    public let rule: ThumbnailRule
    /// The most detailed frame seen so far, as the order in which frames were offered (0 first).
    public private(set) var bestOffer: Int?
    public private(set) var bestScore = -Double.infinity
    /// Frames offered so far.
    public private(set) var offered = 0
    /// True when the frame offered last is the most detailed so far (keep it as the fallback).
    public private(set) var lastIsBest = false

    private var held: PictureDetail?
    private var watched = 0
    /// A candidate is held and being watched: the frames after it are still needed.
    public var isWatching: Bool { held != nil }
    private var previous: PictureDetail?

    public init(rule: ThumbnailRule = ThumbnailRule()) { self.rule = rule }

    /// Offers the next frame of the run.
    public mutating func offer(_ d: PictureDetail) -> Step {
        let index = offered
        offered += 1
        let s = rule.score(d)
        lastIsBest = s > bestScore
        if lastIsBest { bestScore = s; bestOffer = index }
        let before = previous
        previous = d

        if let h = held {
            // Brighter than the frame before by a fade's step: that frame was not at full level.
            let fading = (d.rise ?? 0) > rule.fadeRise
            if !fading && d.level <= h.level + max(rule.minBrighter, rule.brighterBy * (h.level - 16)) {
                watched += 1
                return watched >= rule.lookAhead ? .takeHeld : .skip
            }
            held = nil  // still brightening: consider this frame instead
        }
        guard rule.classify(d) == .picture else { return .skip }
        if let b = before, d.deviation > 2 * b.deviation + rule.cutMargin { return .takeThis }
        held = d
        watched = 0
        return .hold
    }

    /// The run ended (its last frame was offered): the candidate, if any, is taken (at the end
    /// of the clip nothing can outshine it any more; at the end of a sample it had what look
    /// ahead the sample gave).
    public mutating func finish() -> Bool {
        defer { held = nil }
        return held != nil
    }

    /// Starts a new run (after a seek), keeping the best-so-far.
    public mutating func restart() {
        held = nil; previous = nil; watched = 0
    }
}
