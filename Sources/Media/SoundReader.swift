import CFFmpeg
import Compositor

/// One file's sound as a single channel at one sample rate: what `align` measures. Sample 0
/// lies at `start` seconds on the file's own presentation clock (its pts, edit lists applied),
/// each next sample 1/`rate` s later.
public struct MonoSound: Sendable {
    public var samples: [Float]
    public var rate: Int
    /// Time of sample 0 on the file's clock, seconds.
    public var start: Double
    /// The audio stream as the file holds it (codec, rate, channels).
    public var source: AudioInfo
    /// Where the file's video stream starts on the same clock (its first shown frame, as the
    /// container says; nothing decoded), seconds; nil without video.
    public var videoStart: Double?
    public var duration: Double { Double(samples.count) / Double(rate) }
    public init(samples: [Float], rate: Int, start: Double, source: AudioInfo, videoStart: Double? = nil) {
        self.samples = samples; self.rate = rate; self.start = start; self.source = source; self.videoStart = videoStart
    }
}

/// Reads only the default audio stream of a movie (or of a sound file): the video and every
/// other stream are discarded in the demuxer, so their packets are skipped, never read whole
/// or decoded. The channels are mixed down to one (libswresample's downmix matrix, which sums
/// left and right at -3 dB each) and resampled to `rate`.
public enum SoundReader {
    /// The whole sound of `path`. Throws a `MediaError` naming the file when it has no audio
    /// stream Lockstep can decode.
    /// `progress`: after each decoded packet, the sound read so far and the stream's length,
    /// both in milliseconds (for a progress line; the length as the container says).
    public static func read(
        _ path: String, rate: Int, cancellation: CancellationToken = CancellationToken(), progress: ((_ ms: Int64, _ total: Int64?) -> Void)? = nil
    ) throws -> MonoSound {
        let input = try InputFormat(path: path, cancellation: cancellation)
        let ctx = input.context
        let index = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0 else { throw MediaError("has no audio stream", path: path) }
        let video = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        let videoStart: Double? =
            video < 0
            ? nil
            : {
                let st = input.stream(video).pointee
                return st.start_time == NOPTS ? nil : (st.time_base.rational * st.start_time).seconds
            }()
        for i in 0..<Int(ctx.pointee.nb_streams) where Int32(i) != index { ctx.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL }
        let stream = input.stream(index)
        let info = MovieReader.describeAudio(stream)
        let decoder = try Decoder(stream: stream, path: path, threads: 1)
        let resampler = MonoResampler(rate: rate, path: path)
        let packet = Packet(), frame = Frame()
        var samples: [Float] = []
        if let d = info.duration { samples.reserveCapacity(Int(d.seconds * Double(rate)) + rate) }
        var start: Double?
        let tb = stream.pointee.time_base.rational
        func drain() throws {
            while try decoder.receive(frame.pointer) == .produced {
                if start == nil {
                    let pts = frame.pointer.pointee.best_effort_timestamp
                    start = pts == NOPTS ? 0 : (tb * pts).seconds
                }
                try resampler.convert(frame.pointer, into: &samples)
                frame.unref()
            }
        }
        while try input.read(into: packet) {
            defer { packet.unref() }
            guard packet.pointer.pointee.stream_index == index else { continue }
            // A packet the decoder refuses (damage) is skipped: a few ms of sound less at one
            // place moves nothing after it, since samples are counted from the first frame's pts
            // and a camera's audio frames are contiguous.
            do { _ = try decoder.send(packet.pointer) } catch let e as MediaError where e.kind != .cancelled { continue }
            try drain()
            progress?(Int64(samples.count) * 1000 / Int64(rate), info.duration.map { Rational.rescale(1, from: $0, to: Rational(1, 1000)) })
        }
        _ = try decoder.send(nil)
        try drain()
        try resampler.convert(nil, into: &samples)
        return MonoSound(samples: samples, rate: rate, start: start ?? 0, source: info, videoStart: videoStart)
    }
}

/// Owns one SwrContext turning whatever the decoder gives into mono float at one rate.
final class MonoResampler {
    private var context: OpaquePointer?
    private var key: (Int32, Int32, UInt64, Int32) = (0, 0, 0, 0)
    private let rate: Int
    private let path: String
    private var scratch: [Float] = []

    init(rate: Int, path: String) { self.rate = rate; self.path = path }
    deinit { var c = context; swr_free(&c) }

    /// Converts `frame` (nil: flush what the resampler holds) and appends the result to `out`.
    func convert(_ frame: UnsafeMutablePointer<AVFrame>?, into out: inout [Float]) throws {
        if let frame { try configure(for: frame, flushingInto: &out) }
        guard let context else { return }
        let inCount = frame.map { $0.pointee.nb_samples } ?? 0
        let room = Int(swr_get_out_samples(context, inCount)) + 16
        if scratch.count < room { scratch = [Float](repeating: 0, count: room * 2) }
        let made = try scratch.withUnsafeMutableBufferPointer { buffer -> Int32 in
            try withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<UInt8>?.self, capacity: 1) { planes -> Int32 in
                planes[0] = UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UInt8.self)
                let input: UnsafeMutablePointer<UnsafePointer<UInt8>?>? = frame.map {
                    UnsafeMutableRawPointer($0.pointee.extended_data).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                }
                return try check(swr_convert(context, planes.baseAddress, Int32(buffer.count), input, inCount), "swr_convert", path: path)
            }
        }
        out.append(contentsOf: scratch[0..<Int(made)])
    }

    private func configure(for frame: UnsafeMutablePointer<AVFrame>, flushingInto out: inout [Float]) throws {
        let f = frame.pointee
        var inLayout = AVChannelLayout()
        if f.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || f.ch_layout.nb_channels == 0 {
            av_channel_layout_default(&inLayout, max(1, f.ch_layout.nb_channels))
        } else {
            try check(av_channel_layout_copy(&inLayout, [f.ch_layout]), "av_channel_layout_copy", path: path)
        }
        defer { av_channel_layout_uninit(&inLayout) }
        let k = (f.format, f.sample_rate, inLayout.u.mask, inLayout.nb_channels)
        if context != nil && k == key { return }
        // A format change mid-stream: a new resampler (what it still held is flushed first).
        if context != nil { try convert(nil, into: &out) }
        var c = context; swr_free(&c); context = nil
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&outLayout, 1)
        var ctx: OpaquePointer?
        try check(
            swr_alloc_set_opts2(
                &ctx, &outLayout, AV_SAMPLE_FMT_FLT, Int32(rate),
                &inLayout, AVSampleFormat(rawValue: f.format), f.sample_rate, 0, nil),
            "swr_alloc_set_opts2", path: path)
        try check(swr_init(ctx), "swr_init", path: path)
        context = ctx
        key = k
    }
}
