import Compositor
import Foundation

/// Where each input of a segment render (`--frames A:B`) starts, worked out from the input's
/// frame times alone (its `KeyframeIndex`), with the sync's own rules, so the segment picks
/// the same source frame at every tick as the single pass. Pure: no I/O.
enum SegmentPlan {
    /// One input's frames: presentation-order pts (its time base) and each frame's duration.
    struct Frames: Equatable {
        var pts: [Int64]
        var durations: [Int64]
        var timeBase: Rational
    }

    struct Start: Equatable {
        /// The first source frame the segment needs (the frame tick A uses).
        var first: Int
        /// Decoding starts at the keyframe before this frame: `first`, or earlier so that the
        /// audio decoder has `audioLead` of packets to settle before the segment's first sample.
        var seekFrom: Int
    }

    /// Ticks the single pass could serve from this input alone: the output's length is the
    /// least of these (under `.time` as `FrameSync` ends an input: its last frame's time plus
    /// its duration).
    static func ticks(_ f: Frames, sync: SyncMode, frameRate: Rational) -> Int64 {
        switch sync {
        case .index:
            return Int64(f.pts.count)
        case .time:
            guard let last = f.pts.last, let first = f.pts.first else { return 0 }
            let end = f.timeBase * (last - first + f.durations[f.durations.count - 1]) - rounding(f.timeBase)
            // The least k with k / fps >= end.
            let k = end * frameRate
            return max(0, k.num <= 0 ? 0 : (k.num + k.den - 1) / k.den)
        }
    }

    /// Half a time-base unit, at most 1 ms: `FrameSync`'s tolerance for rounded stored times.
    static func rounding(_ timeBase: Rational) -> Rational { min(timeBase * Rational(1, 2), Rational(1, 1000)) }

    /// The source frame tick `tick` takes from this input (nil: the input has none).
    static func frame(atTick tick: Int64, _ f: Frames, sync: SyncMode, frameRate: Rational) -> Int? {
        guard tick < ticks(f, sync: sync, frameRate: frameRate) else { return nil }
        switch sync {
        case .index: return Int(tick)
        case .time: return last(f, atOrBefore: frameRate.inverse * tick + rounding(f.timeBase))
        }
    }

    /// The last frame whose time (from the first frame's) is at most t; 0 if none.
    static func last(_ f: Frames, atOrBefore t: Rational) -> Int {
        var lo = 0, hi = f.pts.count  // answer in [lo, hi)
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if f.timeBase * (f.pts[mid] - f.pts[0]) <= t { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// Where an input starts for a segment from tick `start`: nil if the input has no frame for
    /// it. `audioLead`: with audio, how long before the segment's first sample (output time
    /// start / fps on the input's clock) decoding must begin.
    static func start(tick: Int64, _ f: Frames, sync: SyncMode, frameRate: Rational, audioLead: Rational?) -> Start? {
        guard let first = frame(atTick: tick, f, sync: sync, frameRate: frameRate) else { return nil }
        guard let lead = audioLead else { return Start(first: first, seekFrom: first) }
        let audioTime = frameRate.inverse * tick - lead
        let before = audioTime < Rational(0, 1) ? 0 : last(f, atOrBefore: audioTime)
        return Start(first: first, seekFrom: min(first, before))
    }
}
