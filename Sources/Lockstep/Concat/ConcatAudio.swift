import Compositor
import Foundation
import Media

/// Where `ConcatAudio` reads one clip's audio: its AudioLane (on the clip's own clock, 0 = its
/// first video frame; before 0 is what it has before that frame). Tests hand it arrays.
protocol ConcatAudioSource: AnyObject {
    /// Clip-clock position up to which `read` answers (Int64.max once the clip's audio ended).
    var readyUntil: Int64 { get }
    func wait(until position: Int64)
    /// Samples [from, from + count), silence where there are none; reads only go forward.
    func read(from: Int64, count: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>)
}

extension AudioLane: ConcatAudioSource {}

/// The audio of a concat, written clip after clip on one output clock. Clip k owns output
/// samples [start, end), where start is where the video before it ends and end where its own
/// video ends, both `AudioTimeline.samples(coveringFrames:)` of the frame counts: clip k + 1's
/// first sample is exactly where clip k's video ends. Inside its span a clip's audio is placed by
/// its own pts relative to its first video frame (its AudioLane's origin), as `composite` does:
/// what it lacks is silence, what it has past its video is cut. A clip without audio is silence.
///
/// With a crossfade (`--crossfade-ms`, `half` samples each side) the audio of the two clips
/// overlaps around each join, centred on it: clip k goes on past its video's end (the audio its
/// file has there) under a falling cos gain while clip k + 1 comes in early (the audio its file
/// has before its first frame) under a rising sin gain, so the gains' squares sum to 1 (equal
/// power) and the total length is unchanged. Where a clip has no such audio that side is
/// silence. A fade never reaches past the middle of either clip, so fades never overlap; until
/// the next clip's length is known to allow the whole fade, the samples it covers are held back.
/// Used by the job's thread alone.
final class ConcatAudio {
    private struct Clip { let source: ConcatAudioSource?; let start: Int64; var end: Int64? }
    /// Output sample where one clip's video ends and the next begins; `half`: the crossfade's
    /// half width there once known (0 without a crossfade).
    private struct Join { let at: Int64; var half: Int64? }

    /// Where finished samples go (a MovieWriter's or a PacketCopyWriter's `writeAudio`).
    private let sink: (UnsafePointer<Float>, UnsafePointer<Float>, Int) throws -> Void
    /// The crossfade's half width asked for, in samples (0: plain joins).
    let fade: Int64
    private let chunk = 4096
    private let left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>
    private let clipLeft: UnsafeMutablePointer<Float>, clipRight: UnsafeMutablePointer<Float>
    /// Output samples written so far.
    private(set) var written: Int64 = 0
    /// The clips that may still be heard from `written` on, oldest first, and the joins between
    /// them (joins[i] follows clips[i]).
    private var clips: [Clip] = []
    private var joins: [Join] = []

    /// `start`: the first output sample made (a cut that seeked into a clip: the cut's first
    /// sample); what lies before it is never asked for.
    init(fadeSamples: Int64, start: Int64 = 0, sink: @escaping (UnsafePointer<Float>, UnsafePointer<Float>, Int) throws -> Void) {
        self.sink = sink
        written = start
        fade = max(0, fadeSamples)
        left = .allocate(capacity: chunk); right = .allocate(capacity: chunk)
        clipLeft = .allocate(capacity: chunk); clipRight = .allocate(capacity: chunk)
        clips.reserveCapacity(4); joins.reserveCapacity(4)
    }
    deinit { left.deallocate(); right.deallocate(); clipLeft.deallocate(); clipRight.deallocate() }

    /// Clip `source` (nil: no audio) starts at output sample `start`, which must be where the
    /// previous clip's video ended. The first clip may start before the first sample made (a
    /// cut that seeked into it): its sound is read from there on, and a join's fade is as wide
    /// as from the clip's true start.
    func begin(_ source: ConcatAudioSource?, at start: Int64) {
        precondition(clips.last.map { start == $0.end! } ?? (start <= written), "a clip's audio must start where the previous one ended")
        if !clips.isEmpty { joins.append(Join(at: start, half: fade == 0 ? 0 : nil)) }
        clips.append(Clip(source: source, start: start, end: nil))
    }

    /// Writes as far as the current clip's audio is decoded, up to `limit` (the video written
    /// so far), keeping back what a crossfade at the next join might still change.
    func writeAvailable(until limit: Int64) throws {
        guard let current = clips.last else { return }
        // The join before this clip: its whole fade fits once this clip is twice as long.
        if let j = joins.indices.last, joins[j].half == nil, limit - joins[j].at >= 2 * fade {
            joins[j].half = min(fade, (joins[j].at - clips[j].start) / 2)
        }
        var ready = limit - fade
        // An undecided fade: nothing it may cover is written yet.
        if let j = joins.last, j.half == nil { ready = min(ready, j.at - fade) }
        if let source = current.source {
            let r = source.readyUntil
            ready = min(ready, r == .max ? .max : r == .min ? .min : current.start + r)
        }
        if ready > written { try write(until: ready) }
    }

    /// The current clip's video ended at output sample `end`: waits for its audio to get there
    /// (and `fade` past it when `join`: another clip follows), writes what can be written.
    func finish(at end: Int64, join: Bool) throws {
        guard let c = clips.indices.last else { return }
        clips[c].source?.wait(until: end - clips[c].start + (join ? fade : 0))
        clips[c].end = end
        if let j = joins.indices.last, joins[j].half == nil {
            joins[j].half = min(fade, (joins[j].at - clips[j].start) / 2, (end - joins[j].at) / 2)
        }
        try write(until: join ? end - fade : end)
    }

    /// Output samples of clip `c` with `join` half-widths: in and out gains (equal power).
    static func gains(at t: Int64, join: Int64, half: Int64) -> (out: Float, in: Float) {
        if t < join - half { return (1, 0) }
        if t >= join + half { return (0, 1) }
        let x = (Double(t - (join - half)) + 0.5) / Double(2 * half)
        return (Float(cos(Double.pi / 2 * x)), Float(sin(Double.pi / 2 * x)))
    }

    private func write(until target: Int64) throws {
        while written < target {
            let n = Int(min(Int64(chunk), target - written))
            left.update(repeating: 0, count: n); right.update(repeating: 0, count: n)
            for (c, clip) in clips.enumerated() {
                guard let source = clip.source else { continue }
                let inJoin = c > 0 ? joins[c - 1] : nil, outJoin = c < joins.count ? joins[c] : nil
                // Where this clip is heard: an undecided fade is not reached yet (held back).
                let from = inJoin.map { $0.at - ($0.half ?? 0) } ?? clip.start
                let to = outJoin.map { $0.at + ($0.half ?? 0) } ?? clip.end ?? .max
                guard from < written + Int64(n), to > written else { continue }
                source.read(from: written - clip.start, count: n, left: clipLeft, right: clipRight)
                for i in 0..<n {
                    let t = written + Int64(i)
                    guard t >= from, t < to else { continue }
                    var g: Float = 1
                    if let inJoin, let h = inJoin.half, t < inJoin.at + h { g *= Self.gains(at: t, join: inJoin.at, half: h).in }
                    if let outJoin, let h = outJoin.half, t >= outJoin.at - h { g *= Self.gains(at: t, join: outJoin.at, half: h).out }
                    left[i] += g * clipLeft[i]; right[i] += g * clipRight[i]
                }
            }
            try sink(left, right, n)
            written += Int64(n)
            // A clip whose fade out is written is heard no more.
            while let first = joins.first, let h = first.half, written >= first.at + h {
                joins.removeFirst(); clips.removeFirst()
            }
        }
    }
}
