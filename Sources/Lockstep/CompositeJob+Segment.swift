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
}

extension CompositeJob {
    /// How long before a segment's first sample an input's audio decoding starts: AAC's
    /// overlapped transform needs the packet before (1024 samples, 21 ms) to rebuild its first
    /// samples; 100 ms covers that and a demuxer that places audio a little late after a seek.
    static let audioLead = Rational(1, 10)

    /// Opens every input at the place the segment needs: the index of its video packets (one
    /// pass, no decoding), the frame tick A takes from it by the sync's rules, a seek to the
    /// keyframe before that frame (or before the segment's first audio sample, if earlier).
    /// Throws (naming the input) when the single pass would end before B.
    static func startSegment(_ range: FrameRange, lanes: [InputLane], sync: SyncMode, frameRate: Rational,
                             withAudio: Bool) throws -> SegmentSetup {
        var origins: [Timestamp] = [], lengths: [Int64] = []
        var plans: [(SegmentPlan.Start?, KeyframeIndex)] = []
        for lane in lanes {
            let index = try lane.reader.keyframeIndex()
            let frames = SegmentPlan.Frames(pts: index.pts, durations: index.durations, timeBase: index.timeBase)
            lengths.append(SegmentPlan.ticks(frames, sync: sync, frameRate: frameRate))
            origins.append(Timestamp(index.pts[0], index.timeBase))
            let lead = withAudio && lane.audio != nil ? audioLead : nil
            plans.append((SegmentPlan.start(tick: range.start, frames, sync: sync, frameRate: frameRate, audioLead: lead), index))
        }
        let length = lengths.min()!
        if range.end > length {
            let i = lengths.firstIndex(of: length)!
            throw FrameRange.pastEnd(range, input: i, path: lanes[i].reader.path, frames: length)
        }
        let firstSample = AudioTimeline.samples(coveringFrames: range.start, frameRate: frameRate, sampleRate: AudioFormat.sampleRate)
        for (lane, (start, index)) in zip(lanes, plans) {
            guard let start else { throw FrameRange.pastEnd(range, input: lane.index, path: lane.reader.path, frames: length) }
            try lane.reader.start(at: start.first, seekingFrom: start.seekFrom, index: index)
            let origin = Rational.rescale(index.pts[0], from: index.timeBase, to: Rational(1, Int64(AudioFormat.sampleRate)))
            lane.audioOrigin = origin + firstSample
        }
        return SegmentSetup(origins: origins, outputLength: length)
    }
}
