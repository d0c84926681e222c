import Atomics
import CFFmpeg
import Compositor

/// Set from another thread to make FFmpeg give up a blocking read (AVERROR_EXIT).
final class InterruptFlag {
    let raised = ManagedAtomic(false)
    static let callback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
        guard let opaque else { return 0 }
        return Unmanaged<InterruptFlag>.fromOpaque(opaque).takeUnretainedValue().raised.load(ordering: .relaxed) ? 1 : 0
    }
}

public struct VideoInfo: Equatable {
    public var codec: String
    public var size: Size
    /// Size as shown: sample aspect ratio applied (square pixels), turned by `rotation`.
    public var displaySize: Size
    /// Clockwise degrees a player turns the picture (display matrix), 0 if none.
    public var rotation: Int
    public var pixelFormat: String
    public var timeBase: Rational
    /// The stream's average frame rate, if the container knows it.
    public var frameRate: Rational?
    /// Frames the container's index lists (exact for MP4/MOV), if it has one.
    public var indexedFrames: Int64?
    public var duration: Rational?
    public var startTime: Timestamp?
}

public struct AudioInfo: Equatable {
    public var codec: String
    public var sampleRate: Int
    public var channels: Int
    public var layout: String
    public var duration: Rational?
    public var startTime: Timestamp?
}

/// One movie file: its video stream decoded into Lockstep frames (yuv420p, placed and scaled
/// as asked) and, optionally, its default audio stream decoded and resampled to 48 kHz stereo.
/// Not thread-safe: one reader thread owns it.
public final class MovieReader {
    public let path: String
    public let video: VideoInfo
    public let audio: AudioInfo?
    public let containerName: String
    public let containerDuration: Rational?

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private let videoStream: Int32
    private let audioStream: Int32
    private let videoDecoder: Decoder
    private let audioDecoder: Decoder?
    private let resampler: Resampler?
    private let scaler = Scaler()
    private let packet = Packet()
    private let decoded = Frame()
    private let decodedAudio = Frame()
    private let interruption = InterruptFlag()
    private var rotationScratch: YUVBuffer?

    /// Where pictures go: a `place`-sized frame, the picture inside `picture`, the rest `fill`.
    public private(set) var place: Size
    public private(set) var picture: Rect
    public private(set) var fill = YUVColor.black
    /// Off once the output needs no more pictures: packets are then only read for audio.
    public var decodesVideo = true
    /// When set, each delivered frame's `userData` holds the payload of the user-data SEI that
    /// starts with these 16 bytes (Lockstep's provenance), if any.
    public var userDataUUID: [UInt8]?

    private var videoPending = false
    private var videoEnded = false
    private var audioEnded = true
    private var readEnded = false
    private var framesOut = 0
    private var videoPacketsRead: Int64 = 0
    private var lastPts: Int64?
    private var audioNext: Int64?

    public init(path: String, audio wantAudio: Bool = true) throws {
        FFmpegLog.configured
        self.path = path
        var ctx: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        guard ctx != nil else { fatalError("avformat_alloc_context: out of memory") }
        ctx!.pointee.interrupt_callback = AVIOInterruptCB(callback: InterruptFlag.callback,
                                                          opaque: Unmanaged.passUnretained(interruption).toOpaque())
        let opened = avformat_open_input(&ctx, path, nil, nil)
        if opened < 0 { throw MovieReader.openError(opened, path: path) }
        format = ctx
        do {
            try check(avformat_find_stream_info(ctx, nil), "avformat_find_stream_info", path: path)
            let vs = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
            guard vs >= 0 else { throw MediaError("no video stream", path: path) }
            videoStream = vs
            let stream = ctx!.pointee.streams[Int(vs)]!
            videoDecoder = try Decoder(stream: stream, path: path)
            video = MovieReader.describeVideo(ctx!, stream)
            var audioIndex: Int32 = -1
            if wantAudio {
                let a = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, vs, nil, 0)
                if a >= 0 && avcodec_find_decoder(ctx!.pointee.streams[Int(a)]!.pointee.codecpar.pointee.codec_id) != nil { audioIndex = a }
            }
            audioStream = audioIndex
            if audioIndex >= 0 {
                let st = ctx!.pointee.streams[Int(audioIndex)]!
                audioDecoder = try Decoder(stream: st, path: path, threads: 1)
                resampler = Resampler(path: path)
                audio = MovieReader.describeAudio(st)
                audioEnded = false
            } else {
                audioDecoder = nil; resampler = nil; audio = nil
            }
            containerName = String(cString: ctx!.pointee.iformat.pointee.name)
            let d = ctx!.pointee.duration
            containerDuration = d > 0 && d != NOPTS ? Rational(d, Int64(AV_TIME_BASE)) : nil
            // Everything else is discarded in the demuxer: no data, subtitle or other tracks decoded.
            for i in 0..<Int(ctx!.pointee.nb_streams) where Int32(i) != vs && Int32(i) != audioIndex {
                ctx!.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
            }
        } catch {
            avformat_close_input(&format)
            throw error
        }
        place = video.displaySize
        picture = Rect(x: 0, y: 0, width: video.displaySize.width, height: video.displaySize.height)
    }

    deinit { avformat_close_input(&format) }

    /// Makes a read blocked in FFmpeg (a pipe, a stalled network source) give up; thread-safe.
    public func interrupt() { interruption.raised.store(true, ordering: .relaxed) }

    public func setTarget(place: Size, picture: Rect, fill: YUVColor) {
        self.place = place; self.picture = picture; self.fill = fill
    }

    public enum Event: Equatable {
        /// A picture is in the frame given to `next`, its `source` set.
        case video
        /// Audio went to the sink.
        case audio
        /// Nothing more: every stream is drained.
        case end
    }

    /// Decodes until a picture lands in `frame`, some audio went to `audioSink`, or the file ends.
    public func next(into frame: Frame, audioSink: (AudioSamples) -> Void) throws -> Event {
        while true {
            if videoPending && !videoEnded {
                switch try videoDecoder.receive(decoded.pointer) {
                case .produced:
                    if decodesVideo { try deliver(into: frame); return .video }
                    av_frame_unref(decoded.pointer)
                    continue
                case .needsInput: videoPending = false
                case .endOfStream: videoEnded = true
                }
            }
            if readEnded {
                if videoEnded || !decodesVideo { return .end }
                continue
            }
            let r = av_read_frame(format, packet.pointer)
            if r == AVERROR_EOF_CODE {
                readEnded = true
                try finishReading(audioSink)
                continue
            }
            try check(r, "av_read_frame", path: path)
            defer { packet.unref() }
            let index = packet.pointer.pointee.stream_index
            if index == videoStream {
                videoPacketsRead += 1
                guard decodesVideo else { continue }
                if try videoDecoder.send(packet.pointer) == .needsInput {
                    throw MediaError("video decoder refused a packet", path: path)
                }
                videoPending = true
            } else if index == audioStream, let audioDecoder {
                _ = try audioDecoder.send(packet.pointer)
                if try drainAudio(audioDecoder, audioSink) { return .audio }
            }
        }
    }

    private func finishReading(_ audioSink: (AudioSamples) -> Void) throws {
        if let expected = video.indexedFrames, videoPacketsRead < expected, containerName.contains("mp4") {
            throw MediaError("truncated file: its index lists \(expected) video frames, only \(videoPacketsRead) could be read", path: path)
        }
        _ = try videoDecoder.send(nil)
        videoPending = true
        if let audioDecoder {
            _ = try audioDecoder.send(nil)
            _ = try drainAudio(audioDecoder, audioSink)
            _ = try resampler?.convert(nil, start: audioNext ?? 0) { audioNext! += Int64($0.count); audioSink($0) }
            audioEnded = true
        }
    }

    /// Receives every frame the audio decoder has ready; true if any audio was delivered.
    private func drainAudio(_ decoder: Decoder, _ sink: (AudioSamples) -> Void) throws -> Bool {
        var delivered = false
        while try decoder.receive(decodedAudio.pointer) == .produced {
            let f = decodedAudio.pointer.pointee
            if audioNext == nil {
                let pts = f.best_effort_timestamp != NOPTS ? f.best_effort_timestamp : 0
                let tb = formatStream(audioStream).pointee.time_base.rational
                audioNext = Rational.rescale(pts, from: tb, to: Rational(1, Int64(AudioFormat.sampleRate)))
            }
            let n = try resampler!.convert(decodedAudio.pointer, start: audioNext!) { sink($0) }
            audioNext! += Int64(n)
            delivered = delivered || n > 0
            av_frame_unref(decodedAudio.pointer)
        }
        return delivered
    }

    private func formatStream(_ i: Int32) -> UnsafeMutablePointer<AVStream> { format!.pointee.streams[Int(i)]! }

    /// Moves or converts the decoded picture into `frame` and stamps it.
    private func deliver(into frame: Frame) throws {
        let d = decoded.pointer.pointee
        let tb = video.timeBase
        var pts = d.best_effort_timestamp
        if pts == NOPTS {
            // No timestamp at all: count frames at the nominal rate.
            let step = (video.frameRate ?? Rational(25, 1)).inverse
            pts = (lastPts ?? -1) + max(1, Rational.rescale(1, from: step, to: tb))
        }
        lastPts = pts
        let duration = d.pkt_duration > 0 ? tb * d.pkt_duration : nil
        let userData = userDataUUID.flatMap { findUserData(decoded.pointer, uuid: $0) }
        let passthrough = video.rotation == 0 && d.format == AV_PIX_FMT_YUV420P.rawValue && d.color_range != AVCOL_RANGE_JPEG
            && Int(d.width) == place.width && Int(d.height) == place.height
            && picture == Rect(x: 0, y: 0, width: place.width, height: place.height)
        if passthrough {
            frame.unref()
            av_frame_move_ref(frame.pointer, decoded.pointer)
        } else {
            if !frame.hasBuffers || !frame.isYUV420P || frame.width != place.width || frame.height != place.height {
                try frame.allocate(width: place.width, height: place.height)
                PlaneKernels.fill(frame.image, fill)
            }
            let target = frame.image.cropped(to: picture)
            if video.rotation == 0 {
                try scaler.scale(decoded.pointer, into: target)
            } else {
                // Scale in the stored orientation, then turn into place.
                let stored = video.rotation == 180 ? Size(width: picture.width, height: picture.height)
                                                   : Size(width: picture.height, height: picture.width)
                if rotationScratch?.width != stored.width || rotationScratch?.height != stored.height {
                    rotationScratch = YUVBuffer(width: stored.width, height: stored.height)
                }
                try scaler.scale(decoded.pointer, into: rotationScratch!.image)
                PlaneKernels.rotate(rotationScratch!.image, clockwise: video.rotation, into: target)
            }
            av_frame_unref(decoded.pointer)
        }
        frame.source = SourceFrame(index: framesOut, pts: Timestamp(pts, tb), duration: duration)
        frame.userData = userData
        framesOut += 1
    }

    /// x264 writes a user-data SEI of its own on the first frame: match on the UUID.
    private func findUserData(_ f: UnsafeMutablePointer<AVFrame>, uuid: [UInt8]) -> [UInt8]? {
        for i in 0..<Int(f.pointee.nb_side_data) {
            guard let sd = f.pointee.side_data[i], sd.pointee.type == AV_FRAME_DATA_SEI_UNREGISTERED,
                  sd.pointee.size >= uuid.count else { continue }
            let bytes = UnsafeBufferPointer(start: sd.pointee.data, count: Int(sd.pointee.size))
            if Array(bytes.prefix(uuid.count)) == uuid { return Array(bytes.dropFirst(uuid.count)) }
        }
        return nil
    }

    private static func openError(_ code: Int32, path: String) -> MediaError {
        if code == swift_AVERROR_INVALIDDATA() {
            return MediaError("not a movie FFmpeg can read (\(MediaError.text(for: code)))", path: path)
        }
        return MediaError(code: code, function: "avformat_open_input", path: path)
    }

    private static func describeVideo(_ ctx: UnsafeMutablePointer<AVFormatContext>, _ st: UnsafeMutablePointer<AVStream>) -> VideoInfo {
        let par = st.pointee.codecpar.pointee
        let tb = st.pointee.time_base.rational
        let w = Int(par.width), h = Int(par.height)
        let sar = av_guess_sample_aspect_ratio(ctx, st, nil)
        var dw = w
        if sar.num > 0 && sar.den > 0 && sar.num != sar.den {
            dw = Int((Double(w) * Double(sar.num) / Double(sar.den)).rounded())
        }
        var rotation = 0
        // Players turn the picture by the display matrix; only right angles are honoured.
        if let matrix = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, nil) {
            let theta = av_display_rotation_get(UnsafeRawPointer(matrix).assumingMemoryBound(to: Int32.self))
            if theta.isFinite { rotation = ((-Int(theta.rounded())) % 360 + 360) % 360 }
            rotation = (rotation + 45) / 90 * 90 % 360
        }
        let displayed = rotation == 90 || rotation == 270 ? Size(width: h, height: dw) : Size(width: dw, height: h)
        let rate = st.pointee.avg_frame_rate.num > 0 ? st.pointee.avg_frame_rate.rational
            : (st.pointee.r_frame_rate.num > 0 ? st.pointee.r_frame_rate.rational : nil)
        let nb = st.pointee.nb_frames
        let dur = st.pointee.duration
        let start = st.pointee.start_time
        return VideoInfo(
            codec: String(cString: avcodec_get_name(par.codec_id)),
            size: Size(width: w, height: h), displaySize: displayed, rotation: rotation,
            pixelFormat: Scaler.formatName(par.format), timeBase: tb, frameRate: rate,
            indexedFrames: nb > 0 ? nb : nil,
            duration: dur > 0 && dur != NOPTS ? tb * dur : nil,
            startTime: start != NOPTS ? Timestamp(start, tb) : nil)
    }

    private static func describeAudio(_ st: UnsafeMutablePointer<AVStream>) -> AudioInfo {
        let par = st.pointee.codecpar
        var layout = [CChar](repeating: 0, count: 64)
        av_channel_layout_describe(&par!.pointee.ch_layout, &layout, layout.count)
        let tb = st.pointee.time_base.rational
        let dur = st.pointee.duration, start = st.pointee.start_time
        return AudioInfo(codec: String(cString: avcodec_get_name(par!.pointee.codec_id)),
                         sampleRate: Int(par!.pointee.sample_rate), channels: Int(par!.pointee.ch_layout.nb_channels),
                         layout: String(cString: layout),
                         duration: dur > 0 && dur != NOPTS ? tb * dur : nil,
                         startTime: start != NOPTS ? Timestamp(start, tb) : nil)
    }
}
