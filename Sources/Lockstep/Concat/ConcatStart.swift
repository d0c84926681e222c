import Compositor
import Foundation
import Media

/// Where a concat cut by `--from` starts reading. The clips wholly before the cut are not
/// decoded: each one's place on the joined timeline (its time 0, S_c, and its first output
/// tick) comes from its frames' times alone (its `KeyframeIndex`), run through the same
/// `FrameSync` the decoding loop runs, so the ticks it fills and its length are the ones the
/// decoded clip gives. The clip holding the cut's first frame is started at the keyframe before
/// the frame that tick shows (or before its sound's lead, if earlier) and decoded forward from
/// there. Pure: the clips' frame times come from the caller.
struct ConcatStart: Equatable {
    /// One clip as its packets give it.
    struct Clip: Equatable {
        var frames: SegmentPlan.Frames
        /// The last frame's packet duration (0: none; the decoder then gives it none either).
        var lastPacketDuration: Int64
        /// Where its container says its video ends (an edit list can end the last frame early).
        var streamEnd: Timestamp?
        /// Its declared rate, for `ConcatJob.length`'s snap of rounded times.
        var nominalFrameRate: Rational?
        /// How long before the cut its sound must start decoding (nil: a clip without sound).
        var audioLead: Rational?
    }

    /// The first clip read; those before it are skipped.
    var clip: Int
    /// Per clip up to and including `clip`: where its time 0 lies on the output's clock (by time).
    var starts: [Rational]
    /// Per clip up to and including `clip`: the first output tick it fills.
    var firstTicks: [Int64]
    /// Where `clip` starts reading: nil, from its start (frames before the cut decoded and let go).
    var seek: SegmentPlan.Start?

    /// Reading everything from the first clip on (no cut, or nothing could be skipped).
    static let fromTheStart = ConcatStart(clip: 0, starts: [Rational(0, 1)], firstTicks: [0], seek: nil)

    /// The start for a cut from output tick `firstK`. `clip(c)` gives clip c's frames, or nil
    /// when they cannot stand in for decoding it (a pipe, read once; a clock that goes back; an
    /// index that cannot be made): reading starts at that clip, from its start. So does a still
    /// (one frame), or a clip that would fill no tick (the decoding loop names it). With a
    /// crossfade (`fadeSamples`), a cut whose first sample is within a fade of its clip's start
    /// reads the clip before from its start too: that clip's sound is heard there.
    static func plan(
        cutFrom firstK: Int64, clips count: Int, sync mode: SyncMode, frameRate: Rational, fadeSamples: Int64,
        clip: (Int) -> Clip?
    ) -> ConcatStart {
        guard firstK > 0 else { return .fromTheStart }
        var starts = [Rational(0, 1)], ticks: [Int64] = [0]
        for c in 0..<count {
            guard let info = clip(c), info.frames.pts.count > 1 else { break }
            let run = Run(info, from: ticks[c], at: starts[c], until: firstK, sync: mode, frameRate: frameRate)
            if let shown = run.shown {
                let firstSample = AudioTimeline.samples(coveringFrames: firstK, frameRate: frameRate, sampleRate: AudioFormat.sampleRate)
                let clipSample =
                    mode == .time
                    ? Rational.rescale(1, from: starts[c], to: Rational(1, Int64(AudioFormat.sampleRate)))
                    : AudioTimeline.samples(coveringFrames: ticks[c], frameRate: frameRate, sampleRate: AudioFormat.sampleRate)
                if c > 0 && fadeSamples > 0 && firstSample < clipSample + fadeSamples {
                    return ConcatStart(clip: c - 1, starts: Array(starts.dropLast()), firstTicks: Array(ticks.dropLast()), seek: nil)
                }
                let seek = start(info, showing: shown, tick: firstK, clipTick: ticks[c], at: starts[c], sync: mode, frameRate: frameRate)
                return ConcatStart(clip: c, starts: starts, firstTicks: ticks, seek: seek)
            }
            guard let end = run.endTick, end > ticks[c], c + 1 < count else { break }
            starts.append(mode == .time ? starts[c] + (run.length ?? Rational(0, 1)) : starts[c])
            ticks.append(end)
        }
        return ConcatStart(clip: starts.count - 1, starts: starts, firstTicks: ticks, seek: nil)
    }

    /// One clip run through the decoding loop's sync, frame times only.
    private struct Run {
        /// The frame shown at the cut's first tick, if the clip reaches it.
        var shown: Int?
        /// The tick after its last (the next clip's first), when it ended before the cut.
        var endTick: Int64?
        /// Its length as the decoding loop measures it (by time).
        var length: Rational?

        init(_ clip: ConcatStart.Clip, from tick: Int64, at start: Rational, until firstK: Int64, sync mode: SyncMode, frameRate: Rational) {
            let f = clip.frames, tb = f.timeBase, last = f.pts.count - 1
            var sync = FrameSync<Int>(
                mode: mode, inputs: 1, frameRate: frameRate, startTick: tick,
                placement: SyncPlacement(clocks: [InputClock(offset: start)]), start: Rational(0, 1))
            if mode == .time, let end = clip.streamEnd { sync.setStreamEnd(end, input: 0) }
            var next = 0
            var shown: Int?
            // The decoder's picture durations are its packets'; only the last one's is ever read.
            let ending = sync.drive(
                pull: { _ in
                    guard next <= last else { return .end }
                    defer { next += 1 }
                    let d = next == last ? clip.lastPacketDuration : f.durations[next]
                    return .frame(SourceFrame(index: next, pts: Timestamp(f.pts[next], tb), duration: d > 0 ? tb * d : nil), next)
                },
                release: { _ in },
                emit: { sync, t in
                    guard t == firstK else { return true }
                    shown = sync.chosenFrame(0).index
                    return false
                })
            self.shown = shown
            if shown == nil, case .ended(_, let end) = ending {
                endTick = end
                if mode == .time, let measured = sync.endTime(input: 0) {
                    length = ConcatJob.length(measured, frames: Int64(f.pts.count), nominal: clip.nominalFrameRate, timeBase: tb)
                }
            }
        }
    }

    /// Where the clip starts to show frame `shown` at output tick `firstK`: decoding from the
    /// keyframe before it, or before the frame on screen `audioLead` before the cut's first
    /// sample (the sound decoder's settling time), if earlier. The clip's sound lies on its
    /// time from `start` (by time) or from its first tick `clipTick` (`--keep-frames`).
    private static func start(
        _ clip: Clip, showing shown: Int, tick firstK: Int64, clipTick: Int64, at start: Rational, sync mode: SyncMode, frameRate: Rational
    ) -> SegmentPlan.Start {
        guard let lead = clip.audioLead else { return SegmentPlan.Start(first: shown, seekFrom: shown) }
        let clipTime =
            mode == .time
            ? InputClock(offset: start).inputTime(atReference: frameRate.inverse * firstK) : frameRate.inverse * (firstK - clipTick)
        let audioTime = clipTime - lead
        let before = audioTime < Rational(0, 1) ? 0 : SegmentPlan.last(clip.frames, atOrBefore: audioTime)
        return SegmentPlan.Start(first: shown, seekFrom: min(shown, before))
    }
}
