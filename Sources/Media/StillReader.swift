import CFFmpeg
import Compositor

extension InputFormat {
    /// Moves the demuxer to the last keyframe at or before `pts` (in the time base of stream
    /// `index`). The caller flushes its decoder and drops the frames before its target: a seek
    /// lands on a keyframe, the target is usually after it.
    func seek(stream index: Int32, toPts pts: Int64) throws {
        do {
            try check(av_seek_frame(context, index, pts, AVSEEK_FLAG_BACKWARD), "av_seek_frame", path: path)
        } catch let e as MediaError { throw e.unreadable() }
    }
}

/// One movie's video stream decoded from any time: `seek(toSeconds:)` goes to the keyframe at or
/// before it and the decode runs forward from there, handing out only frames at or after the
/// time asked for. For stills (thumbnails, contact sheets), where a whole decode from the start
/// would be wasted. Times are seconds from the stream's first timestamp.
/// Not thread-safe: one thread owns it; only its `CancellationToken` crosses threads.
public final class StillReader {
    public let path: String
    public let video: VideoInfo
    /// The video's length in seconds: the stream's duration, else the container's; nil if
    /// neither says.
    public let duration: Double?

    private let input: InputFormat
    private let streamIndex: Int32
    private let decoder: Decoder
    private let packet = Packet()
    /// The stream's first timestamp (its start_time, else 0): time 0 of `seek` and `next`.
    private let origin: Int64
    private var pending = false
    private var ended = false
    private var readEnded = false
    /// Frames with an earlier pts than this are decoded (they are needed as references) but not
    /// handed out: the keyframe a seek lands on is usually before the time asked for.
    private var skipBefore: Int64?
    private var lastPts: Int64?
    private var frameStep: Int64
    /// Whether anything has been read since opening or the last seek (a seek to 0 of a fresh
    /// reader is then free, and works on inputs that cannot seek, like pipes).
    private var moved = false
    /// Frames handed out since the last seek, and whether that seek was already retried from
    /// the file's start: a keyframe FFmpeg's decoder will not start from (an open GOP's I-frame
    /// without a recovery point holds back every picture) must not pass for "nothing after it".
    private var outSinceSeek = 0
    private var retriedFromStart = false
    /// The last seek went past the start (a decode that then gives nothing is retried from it).
    private var seekedAway = false

    public init(path: String, cancellation: CancellationToken = CancellationToken()) throws {
        self.path = path
        input = try InputFormat(path: path, cancellation: cancellation)
        let ctx = input.context
        let vs = try input.onlyBestVideoStream()
        streamIndex = vs
        let stream = input.stream(vs)
        // Two threads: stills decode a few hundred frames at most, and the machine is shared.
        decoder = try Decoder(stream: stream, path: path, threads: 2)
        video = MovieReader.describeVideo(ctx, stream)
        let start = stream.pointee.start_time
        origin = start != NOPTS ? start : 0
        let d = ctx.pointee.duration
        if let streamDuration = video.duration {
            duration = streamDuration.seconds
        } else if d > 0 && d != NOPTS {
            // The container's duration runs from its own start, which may be before the video's.
            let containerStart = ctx.pointee.start_time != NOPTS ? Double(ctx.pointee.start_time) / Double(AV_TIME_BASE) : 0
            duration = Double(d) / Double(AV_TIME_BASE) - max(0, (video.timeBase * origin).seconds - containerStart)
        } else {
            duration = nil
        }
        let rate = video.frameRate ?? Rational(25, 1)
        frameStep = max(1, Rational.rescale(1, from: rate.inverse, to: video.timeBase))
    }

    /// The token this reader's open and reads obey.
    public var cancellation: CancellationToken { input.cancellation }

    /// Goes to the keyframe at or before `seconds` (from the video's first timestamp) and makes
    /// `next` skip the frames before `seconds`.
    public func seek(toSeconds seconds: Double) throws {
        let target = origin + Int64((max(0, seconds) / video.timeBase.seconds).rounded(.down))
        if moved || seconds > 0 {
            try input.seek(stream: streamIndex, toPts: target)
            avcodec_flush_buffers(decoder.context)
        }
        skipBefore = seconds > 0 ? target : nil
        pending = false; ended = false; readEnded = false; lastPts = nil
        moved = true
        outSinceSeek = 0; retriedFromStart = false
        seekedAway = seconds > 0
    }

    /// Decodes the frame on screen at `seconds` into `frame`: the last one whose time is at or
    /// before it (the first frame, for a time before it). Returns its time; nil for a clip with
    /// no frame.
    public func frame(atSeconds seconds: Double, into frame: Frame) throws -> Double? {
        try seek(toSeconds: seconds)
        skipBefore = nil
        let next = Frame()
        var shown: Double?
        while let time = try self.next(into: next) {
            if let shown, time > seconds, shown <= seconds { break }
            try frame.reference(next)
            shown = time
            if time > seconds { break }
        }
        return shown
    }

    /// Decodes the next frame (at or after the last seek's time) into `frame`, as the decoder
    /// gives it; returns its time in seconds from the video's first timestamp, nil at the end.
    public func next(into frame: Frame) throws -> Double? {
        moved = true
        while true {
            if pending && !ended {
                switch try decoder.receive(frame.pointer) {
                case .produced:
                    let pts = timestamp(frame)
                    if let skip = skipBefore, pts < skip { frame.unref(); continue }
                    outSinceSeek += 1
                    return Timestamp(pts - origin, video.timeBase).seconds
                case .needsInput: pending = false
                case .endOfStream: ended = true
                }
            }
            if ended && outSinceSeek == 0 && seekedAway && !retriedFromStart {
                // Nothing came out after the seek: decode from the start, dropping what is before.
                retriedFromStart = true
                try input.seek(stream: streamIndex, toKeyframeAtOrBefore: nil)
                avcodec_flush_buffers(decoder.context)
                pending = false; ended = false; readEnded = false; lastPts = nil
                continue
            }
            if ended { return nil }
            if readEnded { pending = true; continue }
            guard try input.read(into: packet) else {
                readEnded = true
                _ = try decoder.send(nil)
                pending = true
                continue
            }
            defer { packet.unref() }
            guard packet.pointer.pointee.stream_index == streamIndex else { continue }
            if try decoder.send(packet.pointer) == .needsInput {
                throw MediaError("video decoder refused a packet", path: path)
            }
            pending = true
        }
    }

    private func timestamp(_ frame: Frame) -> Int64 {
        var pts = frame.pointer.pointee.best_effort_timestamp
        // No timestamp at all: count frames at the nominal rate.
        if pts == NOPTS { pts = (lastPts ?? (origin - frameStep)) + frameStep }
        lastPts = pts
        return pts
    }
}

extension Frame {
    /// Makes this frame another reference to `other`'s picture (no copy: FFmpeg's buffers are
    /// reference counted), so a decoded picture can be kept while the decoder goes on.
    public func reference(_ other: Frame) throws {
        unref()
        try check(av_frame_ref(pointer, other.pointer), "av_frame_ref")
    }

}
