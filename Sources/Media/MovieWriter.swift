import CFFmpeg
import Compositor

public struct EncodeSettings: Equatable, Sendable {
    public var crf: Int = 18
    public var preset: String = "veryfast"
    public var audioBitRate: Int = 192_000
    /// Frames per GOP: a keyframe (IDR, closed GOP, no scene-cut keyframes) every `gop` frames
    /// from frame 0, so a segment starting at a multiple of it starts where the single pass
    /// has a keyframe, and segments join by copy.
    public var gop: Int = 250
    public var audioCodec: AudioCodec = .aac
    public init(crf: Int = 18, preset: String = "veryfast") { self.crf = crf; self.preset = preset }
}

/// H.264 (libx264, yuv420p; closed GOPs of `settings.gop` frames) and AAC or FLAC (48 kHz stereo) into MP4, MOV or Matroska. Frame k gets pts k in
/// 1/fps; audio sample n gets pts n in 1/48000, so both start at exactly 0. Not thread-safe:
/// one writer thread owns it. `finish()` flushes both encoders fully and writes the trailer.
public final class MovieWriter {
    public let path: String
    private let output: OutputFormat
    private let video: Encoder
    private let videoStream: UnsafeMutablePointer<AVStream>
    private let audio: AudioTrack?
    private let packet = Packet()
    private var finished = false
    /// One frame at the nominal rate in the video time base: the duration of a packet that has none.
    private let ticksPerFrame: Int64
    /// Each frame's own duration until its packet leaves the encoder (a variable rate's differ).
    private var durations = FrameDurations()
    /// The last video packet, written when the next one comes or at `finish()`; and what closes
    /// the track: the first dts, the earliest pts, the latest pts + duration (encoder time base).
    private let held = Packet()
    private var holding = false
    private var firstDTS: Int64?
    private var earliest = Int64.max, latest = Int64.min

    /// `path` is where bytes go (a temporary file); `container` is "mp4" or "mov". The file is
    /// created first: an unwritable place fails before any encoder is made. After a failure
    /// (here or later) the file may exist: the caller removes it.
    public init(path: String, container: String, canvas: Size, frameRate: Rational,
                settings: EncodeSettings, withAudio: Bool, videoTimeBase: Rational? = nil) throws {
        self.path = path
        // A finer time base than 1/fps carries variable frame durations (`writeVideo(_:pts:)`).
        let timeBase = videoTimeBase ?? frameRate.inverse
        ticksPerFrame = max(1, Rational.rescale(1, from: frameRate.inverse, to: timeBase))
        guard canvas.width >= 2, canvas.height >= 2, canvas.width % 2 == 0, canvas.height % 2 == 0 else {
            throw MediaError("cannot encode a \(canvas) picture: yuv420p needs even sizes of at least 2x2", path: path)
        }
        let output = try OutputFormat(path: path, container: container)
        self.output = output
        let globalHeader = output.needsGlobalHeader
        video = try Encoder(codecName: "libx264", configure: { c in
            c.pointee.width = Int32(canvas.width)
            c.pointee.height = Int32(canvas.height)
            c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            c.pointee.time_base = timeBase.av
            c.pointee.framerate = frameRate.av
            c.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            c.pointee.thread_count = 0
            if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
            c.pointee.gop_size = Int32(settings.gop)
            c.pointee.keyint_min = Int32(settings.gop)  // x264 clamps it to gop / 2 + 1
            c.pointee.flags |= Int32(bitPattern: UInt32(AV_CODEC_FLAG_CLOSED_GOP))  // 1 << 31
            // The working signal, said in the stream (H.264 VUI) and the container (`colr`):
            // players need not guess (an untagged SD picture would be taken as BT.601).
            c.pointee.tag(WorkingSignal.sdr)
        }, options: ["crf": String(settings.crf), "preset": settings.preset, "sc_threshold": "0",
                      // Frame side data SEI (Lockstep's provenance) goes into the stream.
                      "udu_sei": "1"])
        videoStream = try output.addStream(for: video)
        videoStream.pointee.avg_frame_rate = frameRate.av

        audio = withAudio ? try AudioTrack(settings.audioCodec, output: output, bitRate: settings.audioBitRate) : nil
        try output.writeHeader()
    }

    /// Encodes output frame `index` (its pts). The frame stays the caller's.
    public func writeVideo(_ frame: Frame, index: Int64) throws { try writeVideo(frame, pts: index) }

    /// Encodes a frame at `pts` in the video time base (1/fps unless `videoTimeBase` was given)
    /// lasting `duration` there (nil: one frame at the nominal rate); its packet carries it, so
    /// the stream ends exactly where its last frame does.
    public func writeVideo(_ frame: Frame, pts index: Int64, duration: Int64? = nil) throws {
        guard !finished else { throw MediaError("a frame was written after the file was closed", path: path) }
        frame.pointer.pointee.pts = index
        durations.sent(pts: index, duration: duration ?? ticksPerFrame)
        frame.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        try video.send(frame.pointer)
        try drain(video, videoStream)
    }

    /// Appends mixed samples (48 kHz stereo); encodes every whole AAC frame they complete.
    public func writeAudio(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws {
        guard let audio else { return }
        guard !finished else { throw MediaError("audio was written after the file was closed", path: path) }
        try audio.write(left: left, right: right, count: count)
    }

    /// Samples written so far.
    public var audioSamplesWritten: Int64 { audio?.samplesWritten ?? 0 }

    /// Flushes: the last partial AAC frame, both encoders' delayed output, the trailer; then
    /// closes the file, checked (a failed last flush is an error here, not a success).
    public func finish() throws {
        guard !finished else { return }
        try video.send(nil)
        try drain(video, videoStream)
        if holding {
            // MP4's track length is the last dts minus the first plus the last packet's duration:
            // that packet (last in decode order, not always the last shown) gets what makes it
            // the frames' total. At a constant rate that is one frame; at a variable rate the
            // dts x264 makes are spaced by the first frames' durations, not the last ones'.
            held.pointer.pointee.duration = max(1, (latest - earliest) - (held.pointer.pointee.dts - (firstDTS ?? 0)))
            try writeHeld()
        }
        try audio?.finish()
        finished = true
        try output.finish()
    }

    /// Closes the file without finishing it (after a failure elsewhere); the caller removes it.
    /// Throws if even closing fails.
    public func close() throws {
        finished = true
        try output.close()
    }

    private func drain(_ encoder: Encoder, _ stream: UnsafeMutablePointer<AVStream>) throws {
        guard encoder === video else { return try encoder.drain(into: output, stream: stream, packet: packet, missingDuration: 0) }
        while try video.receive(packet.pointer) == .produced {
            let p = packet.pointer
            // x264 in FFmpeg 5.1 gives packets no duration: each gets its own frame's.
            if p.pointee.duration == 0 { p.pointee.duration = durations.take(pts: p.pointee.pts, fallback: ticksPerFrame) }
            if firstDTS == nil { firstDTS = p.pointee.dts }
            earliest = min(earliest, p.pointee.pts)
            latest = max(latest, p.pointee.pts + p.pointee.duration)
            if holding { try writeHeld() }
            av_packet_move_ref(held.pointer, p)
            holding = true
        }
    }

    /// Writes the held video packet (the muxer takes its reference).
    private func writeHeld() throws {
        av_packet_rescale_ts(held.pointer, video.context.pointee.time_base, videoStream.pointee.time_base)
        held.pointer.pointee.stream_index = videoStream.pointee.index
        holding = false
        try output.write(held)
    }
}

extension AVCodecContext {
    /// The colour tags of pictures in `signal`.
    mutating func tag(_ signal: WorkingSignal) {
        switch signal {
        case .sdr:
            color_primaries = AVCOL_PRI_BT709; color_trc = AVCOL_TRC_BT709; colorspace = AVCOL_SPC_BT709
        case .hlg:
            color_primaries = AVCOL_PRI_BT2020; color_trc = AVCOL_TRC_ARIB_STD_B67; colorspace = AVCOL_SPC_BT2020_NCL
        case .pq:
            color_primaries = AVCOL_PRI_BT2020; color_trc = AVCOL_TRC_SMPTE2084; colorspace = AVCOL_SPC_BT2020_NCL
        }
        color_range = AVCOL_RANGE_MPEG
        chroma_sample_location = AVCHROMA_LOC_LEFT
    }
}
