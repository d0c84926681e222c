import CFFmpeg
import Compositor

/// One movie's video stream read out of order: its `KeyframeIndex` is built when it opens (from
/// an MP4's sample table, or else one pass over the packets, no decoding), then `decode(_:)` seeks to the keyframe a range of
/// frames needs and decodes from there, handing over only the frames of the range. Memory is
/// the decoder's own (its reference pictures and frame threads), whatever the length of the
/// file or of its GOPs: what the caller keeps of the frames handed over is the caller's.
///
/// Pictures before the range that no other picture refers to are not decoded at all
/// (`skip_frame` = non-reference while the packets are before the range).
/// Not thread-safe: one thread owns it; only its `CancellationToken` crosses threads.
public final class SeekingVideoReader {
    public let path: String
    public let video: VideoInfo
    public let index: KeyframeIndex
    /// Pictures the decoder produced, and seeks made, since the reader opened: the cost of
    /// reading out of order.
    public private(set) var picturesDecoded = 0
    public private(set) var seeks = 0

    private let input: InputFormat
    private let stream: Int32
    private let decoder: Decoder
    private let packet = Packet()
    private let decoded = Frame()
    /// The deinterlacer's picture (`decode(_:deinterlace:_:)`; made for an interlaced input
    /// only), and whether the pictures are interlaced (decided at the first one decoded
    /// through it; nil until then).
    lazy var deinterlaced = Frame()
    var interlaced: Bool?

    /// `threads`: the decoder's frame threads (each holds a picture in flight).
    public init(path: String, threads: Int32 = 2, cancellation: CancellationToken = CancellationToken()) throws {
        self.path = path
        input = try InputFormat(path: path, cancellation: cancellation)
        let ctx = input.context
        // The other streams are discarded before indexing: the index pass skips their packets.
        let vs = try input.onlyBestVideoStream()
        stream = vs
        let st = input.stream(vs)
        video = MovieReader.describeVideo(ctx, st)
        let packets = try input.keyframePackets(of: vs, into: packet).packets
        index = try KeyframeIndex(packets: packets, video: video, path: path, containerName: input.containerName)
        decoder = try Decoder(stream: st, path: path, threads: threads, explode: true)
    }

    /// The token this reader's reads obey.
    public var cancellation: CancellationToken { input.cancellation }

    /// Decodes presentation frames `range` and hands each to `body` in presentation order, with
    /// its index, in a frame the reader reuses after `body` returns (take its buffers with
    /// `Frame.take(from:)`, no copy, to keep it).
    public func decode(_ range: Range<Int>, _ body: (Int, Frame) throws -> Void) throws {
        guard !range.isEmpty else { return }
        precondition(range.lowerBound >= 0 && range.upperBound <= index.frameCount, "frames \(range) outside 0..<\(index.frameCount)")
        // A keyframe the decoder will not start from (an open GOP's I-frame without a recovery
        // point: FFmpeg holds it back as not recovered, `ffmpeg -ss` shows nothing either) leaves
        // frames out: start again one segment earlier, down to the file's start, for the frames
        // not yet handed over.
        var segment = index.segment(of: range.lowerBound)
        var next = range.lowerBound
        while true {
            do {
                try decode(next..<range.upperBound, fromSegment: segment) { i, f in
                    try body(i, f); next = i + 1
                }
                return
            } catch let e as MediaError where e.kind == .unreadable && segment > 0 && next < range.upperBound && e.message.hasPrefix("frame ") {
                segment -= 1
            }
        }
    }

    private func decode(_ range: Range<Int>, fromSegment segment: Int, _ body: (Int, Frame) throws -> Void) throws {
        let key = try input.seek(stream: stream, toSegment: segment, of: index)
        seeks += 1
        avcodec_flush_buffers(decoder.context)
        var awaitingKey = key != nil
        var restarted = false
        let firstPTS = index.pts[range.lowerBound]
        var next = range.lowerBound
        defer { decoder.context.pointee.skip_frame = AVDISCARD_DEFAULT }

        // Takes every picture the decoder has ready; true once the range is complete.
        func receive() throws -> Bool {
            while next < range.upperBound {
                guard try decoder.receive(decoded.pointer) == .produced else { return false }
                picturesDecoded += 1
                defer { decoded.unref() }
                let t = decoded.pointer.pointee.best_effort_timestamp
                guard let i = index.frame(withPTS: t), i >= next else { continue }  // before the range
                guard i == next else {
                    throw MediaError("frame \(next) (\(seconds(Timestamp(index.pts[next], video.timeBase)))) did not come out of the decoder", path: path, kind: .unreadable)
                }
                if i >= range.upperBound { return true }
                try body(i, decoded)
                next += 1
            }
            return true
        }

        while next < range.upperBound {
            if try receive() { break }
            guard try input.read(into: packet) else {
                _ = try decoder.send(nil)
                _ = try receive()
                break
            }
            defer { packet.unref() }
            let p = packet.pointer.pointee
            guard p.stream_index == stream else { continue }
            if awaitingKey, let key {
                if (p.flags & AV_PKT_FLAG_KEY) != 0 && p.pts == (key.pts ?? NOPTS) && p.dts == (key.dts ?? NOPTS) {
                    awaitingKey = false
                } else {
                    // The demuxer landed past the keyframe (its index is not by decode time):
                    // start again from the file's start, once.
                    if let d = key.dts, p.dts != NOPTS, p.dts > d, !restarted {
                        restarted = true
                        try input.seek(stream: stream, toKeyframeAtOrBefore: nil)
                    }
                    continue
                }
            }
            let t = p.pts != NOPTS ? p.pts : p.dts
            decoder.context.pointee.skip_frame = t != NOPTS && t < firstPTS ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
            while try decoder.send(packet.pointer) == .needsInput {
                if try receive() { break }
            }
        }
        if next < range.upperBound {
            throw MediaError("frame \(next) (\(seconds(Timestamp(index.pts[next], video.timeBase)))) could not be decoded", path: path, kind: .unreadable)
        }
    }
}

extension Frame {
    /// Takes `other`'s picture (its buffers and properties, no copy); `other` is left empty.
    public func take(from other: Frame) {
        av_frame_unref(pointer)
        av_frame_move_ref(pointer, other.pointer)
    }
}
