import Compositor
import Foundation
import Media

/// The audio of a concat, written clip after clip on one output clock. Clip k owns output
/// samples [start, end), where start is where the video before it ends and end where its own
/// video ends, both `AudioTimeline.samples(coveringFrames:)` of the frame counts: clip k + 1's
/// first sample is exactly where clip k's video ends. Inside its span a clip's audio is placed by
/// its own pts relative to its first video frame (its AudioLane's origin), as `composite` does:
/// what it lacks is silence, what it has past its video is cut. A clip without audio is silence.
///
/// With a fade (`--crossfade-ms`), the last `fade` samples before a join are held back until the
/// join is known, then faded out; the first `fade` after it are faded in (raised cosine).
/// Used by the job's thread alone.
final class ConcatAudio {
    /// Where finished samples go (a MovieWriter's or a PacketCopyWriter's `writeAudio`).
    private let sink: (UnsafePointer<Float>, UnsafePointer<Float>, Int) throws -> Void
    private let fade: Int64
    private let chunk = 4096
    private let left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>
    /// Output samples written so far.
    private(set) var written: Int64 = 0
    private var start: Int64 = 0
    private var lane: AudioLane?
    private var fadeIn = false

    init(fadeSamples: Int64, sink: @escaping (UnsafePointer<Float>, UnsafePointer<Float>, Int) throws -> Void) {
        self.sink = sink
        fade = fadeSamples
        left = .allocate(capacity: chunk); right = .allocate(capacity: chunk)
    }
    deinit { left.deallocate(); right.deallocate() }

    /// Clip `lane` (nil: no audio) starts at output sample `start`, which must be where the
    /// previous clip ended; `joined`: it follows another clip (its start fades in, with a fade).
    func begin(_ lane: AudioLane?, at start: Int64, joined: Bool) {
        precondition(start == written, "a clip's audio must start where the previous one ended")
        self.start = start; self.lane = lane; fadeIn = joined && fade > 0
    }

    /// Writes as far as the current clip's audio is decoded, up to `limit` (the video written
    /// so far), keeping back the samples a fade-out might still need.
    func writeAvailable(until limit: Int64) throws {
        var ready = limit - fade
        if let lane { ready = min(ready, satisfying(lane.readyUntil)) }
        if ready > written { try write(until: ready, end: nil) }
    }

    /// The clip's video ended at output sample `end`: waits for its audio to get there (or end),
    /// writes it all; `join`: another clip follows (fade out, with a fade).
    func finish(at end: Int64, join: Bool) throws {
        lane?.wait(until: end - start)
        try write(until: end, end: join && fade > 0 ? end : nil)
    }

    /// readyUntil is on the clip's own clock (0 = its first video frame); .max once it ended.
    private func satisfying(_ laneReady: Int64) -> Int64 {
        laneReady == .max ? .max : (laneReady == .min ? .min : start + laneReady)
    }

    private func write(until target: Int64, end: Int64?) throws {
        while written < target {
            let n = Int(min(Int64(chunk), target - written))
            if let lane {
                lane.read(from: written - start, count: n, left: left, right: right)
            } else {
                left.update(repeating: 0, count: n); right.update(repeating: 0, count: n)
            }
            if fade > 0 { applyFades(count: n, end: end) }
            try sink(left, right, n)
            written += Int64(n)
        }
    }

    private func applyFades(count n: Int, end: Int64?) {
        for i in 0..<n {
            let p = written + Int64(i)
            var g: Float = 1
            if fadeIn, p - start < fade { g *= Self.ramp(p - start, fade) }
            if let end, end - p <= fade { g *= Self.ramp(end - p - 1, fade) }
            left[i] *= g; right[i] *= g
        }
    }

    /// Raised cosine from 0 (at 0) to 1 (at length): no corner, so no click of its own.
    static func ramp(_ i: Int64, _ length: Int64) -> Float {
        let x = (Double(i) + 0.5) / Double(length)
        return Float(0.5 - 0.5 * cos(Double.pi * min(1, max(0, x))))
    }
}
