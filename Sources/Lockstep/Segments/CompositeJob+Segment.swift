import Compositor
import Foundation
import Media

/// What a segment render (`--frames A:B`) set up before its lanes start.
struct SegmentSetup {
    /// Each input's first frame's pts: the sync's and the snake's time origin, as in the
    /// single pass (whose first pushed frame is that frame).
    var origins: [Timestamp]
    /// The single pass's length in frames.
    var outputLength: Int64
    /// The first tick rendered: the segment's first frame, or earlier when frames before it
    /// must be rendered (not written) to rebuild state the single pass carries from frame to
    /// frame (the snake's trail).
    var firstTick: Int64
    /// The frames rendered: the range asked for, an open end (`--from` alone) closed at `outputLength`.
    var range: FrameRange
}

extension CompositeJob {
    /// How long before a segment's first sample an input's audio decoding starts: AAC's
    /// overlapped transform needs the packet before (1024 samples, 21 ms) to rebuild its first
    /// samples; 100 ms covers that and a demuxer that places audio a little late after a seek.
    static let audioLead = Rational(1, 10)

    /// Opens every input at the place the segment needs: the index of its video packets (one
    /// pass, no decoding), the frame tick A takes from it by the sync's rules, a seek to the
    /// keyframe before that frame (or before the segment's first audio sample, if earlier).
    /// Throws (naming the input) when the single pass would end before B. `preRoll` gets the
    /// first input's frames (the video's clock) and says from which tick (at most A) the
    /// pictures are needed; the audio still starts at A.
    /// `indexes`: the lanes' `keyframeIndex()` when the caller has made them already.
    static func startSegment(
        _ range: FrameRange, lanes: [InputLane], sync: SyncMode, frameRate: Rational,
        withAudio: Bool, indexes: [KeyframeIndex]? = nil, preRoll: (SegmentPlan.Frames) -> Int64 = { _ in Int64.max }
    ) throws -> SegmentSetup {
        var origins: [Timestamp] = [], lengths: [Int64] = []
        var inputs: [(SegmentPlan.Frames, KeyframeIndex)] = []
        for (i, lane) in lanes.enumerated() {
            let index = try indexes?[i] ?? lane.reader.keyframeIndex()
            let frames = SegmentPlan.Frames(pts: index.pts, durations: index.durations, timeBase: index.timeBase)
            lengths.append(SegmentPlan.ticks(frames, sync: sync, frameRate: frameRate))
            origins.append(Timestamp(index.pts[0], index.timeBase))
            inputs.append((frames, index))
        }
        let length = lengths.min()!
        let shortest = lengths.firstIndex(of: length)!
        let range = try range.resolved(length: length, input: shortest, path: lanes[shortest].reader.path, frameRate: frameRate)
        if let end = range.end, end > length {
            throw FrameRange.pastEnd(range, input: shortest, path: lanes[shortest].reader.path, frames: length, frameRate: frameRate)
        }
        let firstTick = min(range.start, preRoll(inputs[0].0))
        let plans = zip(lanes, inputs).map { lane, input -> (SegmentPlan.Start?, KeyframeIndex) in
            let (frames, index) = input
            let lead = withAudio && lane.audio != nil ? audioLead : nil
            guard let audio = SegmentPlan.start(tick: range.start, frames, sync: sync, frameRate: frameRate, audioLead: lead),
                let video = SegmentPlan.start(tick: firstTick, frames, sync: sync, frameRate: frameRate, audioLead: nil)
            else { return (nil, index) }
            return (SegmentPlan.Start(first: video.first, seekFrom: min(video.seekFrom, audio.seekFrom)), index)
        }
        let firstSample = AudioTimeline.samples(coveringFrames: range.start, frameRate: frameRate, sampleRate: AudioFormat.sampleRate)
        for (lane, (start, index)) in zip(lanes, plans) {
            guard let start else { throw FrameRange.pastEnd(range, input: lane.index, path: lane.reader.path, frames: length, frameRate: frameRate) }
            try lane.reader.start(at: start.first, seekingFrom: start.seekFrom, index: index)
            let origin = Rational.rescale(index.pts[0], from: index.timeBase, to: Rational(1, Int64(AudioFormat.sampleRate)))
            lane.audioOrigin = origin + firstSample
        }
        return SegmentSetup(origins: origins, outputLength: length, firstTick: firstTick, range: range)
    }
}
