import Foundation
import Media

/// One input's audio between its reader thread and the writer's mixer, on the input's own clock
/// (48 kHz units of its pts). The mixer reads it on the output clock: output sample 0 is the
/// input's first video frame (`origin`), so each input keeps its own A/V sync.
package final class AudioLane {
    private let condition = NSCondition()
    private var left: [Float] = []
    private var right: [Float] = []
    /// Input-clock position of left[0].
    private var base: Int64?
    private var ended = false
    /// Set by `drop()`: the one reading this copy has gone (a failed variant); nothing more is kept.
    private var dropped = false
    /// Input samples this copy has taken in (those wholly before the output's first sample,
    /// a pre-roll's, are passed over and not counted).
    private var fedCount: Int64 = 0
    /// Input-clock position of the output's sample 0, set from the first video frame.
    private(set) var origin: Int64?
    /// Output samples where this input is heard (its trim; its own span under `--longest`);
    /// outside them it is silent. Set before the reader starts.
    package var audible: Range<Int64> = Int64.min..<Int64.max

    package init() { left.reserveCapacity(1 << 16); right.reserveCapacity(1 << 16) }

    // MARK: reader side

    package func append(_ s: AudioSamples) {
        condition.lock(); defer { condition.unlock() }
        if dropped { return }
        if let origin, s.start + Int64(s.count) <= origin {
            // Wholly before the output's first sample, so never read: a segment's pre-roll
            // (the snake's) decodes from well before it, and must not pile that audio up.
            if let b = base, b + Int64(left.count) <= origin {
                left.removeAll(keepingCapacity: true); right.removeAll(keepingCapacity: true); base = nil
            }
            return
        }
        fedCount += Int64(s.count)
        if base == nil { base = s.start }
        let end = base! + Int64(left.count)
        if s.start > end {
            // A gap in the input's audio stays a gap: silence, never a shift of what follows.
            let gap = Int(s.start - end)
            left.append(contentsOf: repeatElement(0, count: gap)); right.append(contentsOf: repeatElement(0, count: gap))
        }
        let skip = max(0, Int(end - s.start))  // overlap: keep what we have
        if skip < s.count {
            s.withSamples { l, r in
                left.append(contentsOf: l[skip...])
                right.append(contentsOf: r[skip...])
            }
        }
        condition.broadcast()
    }

    package func setOrigin(_ position: Int64) {
        condition.lock(); if origin == nil { origin = position }; condition.broadcast(); condition.unlock()
    }

    package func finish() { condition.lock(); ended = true; condition.broadcast(); condition.unlock() }

    /// The reader of this copy has gone for good: what is held is freed and whatever the
    /// reader appends from now on is ignored, so a failed variant costs no memory to the end.
    package func drop() {
        condition.lock(); defer { condition.unlock() }
        dropped = true; ended = true
        left = []; right = []
        condition.broadcast()
    }

    /// Input samples this copy has taken in so far (`fedCount`), and how many it still holds.
    package var fed: (total: Int64, held: Int) { condition.lock(); defer { condition.unlock() }; return (fedCount, left.count) }

    // MARK: mixer side

    /// Output-clock position up to which this lane can answer (Int64.max once it has ended).
    package var readyUntil: Int64 {
        condition.lock(); defer { condition.unlock() }
        return readyUntilLocked
    }

    private var readyUntilLocked: Int64 {
        guard let origin else { return ended ? .max : .min }
        if ended { return .max }
        guard let base else { return .min }
        return base + Int64(left.count) - origin
    }

    /// Blocks until the lane can answer up to `position` or has ended.
    package func wait(until position: Int64) {
        condition.lock(); defer { condition.unlock() }
        while readyUntilLocked < position { condition.wait() }
    }

    /// Copies output samples [from, from + count) into l and r, silence where the input has
    /// none, and forgets everything before `from + count`.
    package func read(from: Int64, count: Int, left l: UnsafeMutablePointer<Float>, right r: UnsafeMutablePointer<Float>) {
        condition.lock(); defer { condition.unlock() }
        l.update(repeating: 0, count: count); r.update(repeating: 0, count: count)
        defer {
            // Outside the audible span: silence (the samples are still consumed above).
            let end = from + Int64(count)
            if from < audible.lowerBound {
                let n = Int(min(Int64(count), audible.lowerBound - from))
                l.update(repeating: 0, count: n); r.update(repeating: 0, count: n)
            }
            if end > audible.upperBound {
                let skip = Int(max(0, audible.upperBound - from))
                (l + skip).update(repeating: 0, count: count - skip); (r + skip).update(repeating: 0, count: count - skip)
            }
        }
        guard let origin, let base else { return }
        let start = from + origin - base  // index into the buffers
        let lo = max(0, start), hi = min(Int64(left.count), start + Int64(count))
        if lo < hi {
            let n = Int(hi - lo), dst = Int(lo - start)
            left.withUnsafeBufferPointer { (l + dst).update(from: $0.baseAddress! + Int(lo), count: n) }
            right.withUnsafeBufferPointer { (r + dst).update(from: $0.baseAddress! + Int(lo), count: n) }
        }
        // Drop consumed samples in large steps so the buffers do not shift on every read.
        let consumed = Int(min(Int64(left.count), max(0, start + Int64(count))))
        if consumed > 1 << 15 {
            left.removeFirst(consumed); right.removeFirst(consumed)
            self.base = base + Int64(consumed)
        }
    }
}
