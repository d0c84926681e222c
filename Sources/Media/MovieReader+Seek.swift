import CFFmpeg
import Compositor

/// Where a segment render started reading a movie. Owned by its `MovieReader`.
struct SeekState {
    /// The video's frames in presentation order: once set, every picture is numbered from it
    /// (its place in the whole stream), not by counting the pictures decoded.
    var index: KeyframeIndex?
    /// Pictures before this presentation frame are decoded (later pictures refer to them) and
    /// dropped.
    var first = 0
    /// The keyframe packet decoding starts from, until it has been read: video packets the
    /// demuxer gives before it are skipped.
    var key: KeyframeIndex.Packet?
    /// Where `keyframeIndex()` took the packet records from.
    var source: KeyframeIndex.Source?
}

/// Starting a `MovieReader` part way in (`--frames`): seek to a keyframe, decode forward, drop
/// the pictures before the first one wanted, and number pictures by their place in the stream.
extension MovieReader {
    /// Every video frame's place and where decoding can start: from an MP4/MOV's sample table
    /// where it lists every sample's shown time (no packet read), else one pass over the video
    /// packets without decoding (Matroska has no per-frame index; with B-frames FFmpeg's index
    /// holds decode times only), after which the demuxer is back at the start. Call before reading.
    public func keyframeIndex() throws -> KeyframeIndex {
        let (packets, source) = try input.keyframePackets(of: videoStream, into: Packet())
        seekState.source = source
        return try KeyframeIndex(packets: packets, video: video, path: path, containerName: containerName)
    }

    /// Where `keyframeIndex()` found the frames, once called.
    public var keyframeIndexSource: KeyframeIndex.Source? { seekState.source }

    /// Packets read from the demuxer so far (every stream's, the index pass's included).
    public var packetsRead: Int { input.packetsRead }

    /// Starts at presentation frame `first`: seeks to the keyframe of the GOP holding frame `from`
    /// (at most `first`; earlier to give the audio decoder time to settle), so pictures from
    /// there are decoded and those before `first` dropped. Audio starts wherever the demuxer's
    /// seek put it (each stream at or before the keyframe's time). Call once, before reading.
    public func start(at first: Int, seekingFrom from: Int, index: KeyframeIndex) throws {
        precondition(picturesDecoded == 0 && framesOut == 0, "start(at:) after reading")
        precondition(first >= 0 && first < index.frameCount, "frame \(first) outside 0..<\(index.frameCount)")
        seekState.index = index
        seekState.first = first
        let segment = index.segment(of: min(from, first))
        // Segment 0 is where the demuxer already is.
        guard segment > 0, let key = try input.seekLandingAtOrBefore(stream: videoStream, segment: segment, of: index, packet: Packet()) else { return }
        seekState.key = key
    }

    /// True while the demuxer is still before the keyframe decoding starts from (it may land a
    /// packet or two early); a demuxer that lands past it is an error, never a silent shift.
    func skipsUntilKeyframe(_ packet: Packet) throws -> Bool {
        guard let key = seekState.key else { return false }
        let p = packet.pointer.pointee
        if (p.flags & AV_PKT_FLAG_KEY) != 0 && p.pts == (key.pts ?? NOPTS) && p.dts == (key.dts ?? NOPTS) {
            seekState.key = nil
            return false
        }
        if let d = key.dts, p.dts != NOPTS, p.dts > d {
            throw MediaError(
                "seeking to the keyframe at \(seconds(Timestamp(d, video.timeBase))) landed past it; this file cannot be started part way in",
                path: path, kind: .unreadable)
        }
        return true
    }

    /// True for a picture before the first one wanted: decoded only because later ones need it.
    func dropsBeforeStart(_ frame: Frame) throws -> Bool {
        guard let index = seekState.index else { return false }
        let t = frame.pointer.pointee.best_effort_timestamp
        return try presentationIndex(of: t, in: index) < seekState.first
    }

    func presentationIndex(of pts: Int64, in index: KeyframeIndex) throws -> Int {
        guard pts != NOPTS, let i = index.frame(withPTS: pts) else {
            let when = pts == NOPTS ? "without a timestamp" : "at \(seconds(Timestamp(pts, video.timeBase)))"
            throw MediaError("a decoded picture \(when) is not among the stream's packets; its place in the picture order is unknown", path: path, kind: .unreadable)
        }
        return i
    }
}

extension KeyframeIndex {
    /// The index of a movie's video packets, its problems as the sentences a user reads; an MP4
    /// whose packets are fewer than its sample table lists is a cut file.
    init(packets: [Packet], video: VideoInfo, path: String, containerName: String) throws {
        if let expected = video.indexedFrames, packets.count < expected, containerName.contains("mp4") {
            throw MediaError("truncated file: its index lists \(expected) video frames, only \(packets.count) could be read", path: path, kind: .unreadable)
        }
        do {
            try self.init(packets: packets, timeBase: video.timeBase)
        } catch let problem as KeyframeIndex.Problem {
            switch problem {
            case .noFrames: throw MediaError("the video stream has no frames", path: path, kind: .unreadable)
            case .noTimestamp(let p): throw MediaError("video packet \(p) has no timestamp; its place in the picture order is unknown", path: path, kind: .unreadable)
            case .repeatedTimestamp(let t): throw MediaError("two video frames have the same time \(seconds(Timestamp(t, video.timeBase)))", path: path, kind: .unreadable)
            case .timestampOutOfRange(let p, let v):
                throw MediaError("video packet \(p) has the timestamp \(v) (of \(video.timeBase.num)/\(video.timeBase.den) s), beyond the 2^61 Lockstep computes with", path: path, kind: .unreadable)
            }
        }
    }
}

extension MovieReader {
    /// Where the first decoded audio frame starts, in seconds. From the start of the file, its
    /// pts. After a seek, a container that rounds times (Matroska: 1 ms, so AAC frame 199 at
    /// 4.24533 s is stored as 4.245, 16 samples early) would shift every sample that follows:
    /// the frame goes back onto the grid of whole codec frames from the stream's start, where
    /// the single pass, counting samples from there, has it.
    /// `frameSamples`, `rate`: the decoded frame's length and sample rate (codec frames are all
    /// that long but the last).
    func audioStart(_ pts: Int64, timeBase tb: Rational, frameSamples frameSize: Int64, rate: Int64) -> Rational {
        let t = tb * pts
        guard seekState.index != nil, audioStream >= 0 else { return t }
        let st = input.stream(audioStream).pointee
        guard frameSize > 0, rate > 0, tb > Rational(1, rate) else { return t }
        let origin = tb * (st.start_time != NOPTS ? st.start_time : 0)
        let frame = Rational(frameSize, rate)
        let n = Rational.rescale(1, from: t - origin, to: frame)
        let snapped = origin + frame * n
        return (snapped < t ? t - snapped : snapped - t) <= tb ? snapped : t
    }
}
