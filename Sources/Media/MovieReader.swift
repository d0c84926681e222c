import CFFmpeg
import Compositor

public struct VideoInfo: Equatable, Sendable {
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
    /// Of those, the frames decoding from the start shows: an MP4 edit list can cut samples that
    /// are decoded but never shown (a `-ss ... -c copy` cut mid-GOP). nil without an index.
    public var shownFrames: Int64? = nil
    public var duration: Rational?
    public var startTime: Timestamp?
    /// The stream's own rate (FFmpeg's r_frame_rate), if it states one.
    public var statedFrameRate: Rational? = nil
    /// The rate the clip was recorded at (`NominalRate`): what the default output rate is.
    /// Measured from the shown frames' steps where the container indexes them (MP4/MOV).
    public var nominalFrameRate: Rational? = nil
    /// A picture, not a movie: an image file (JPEG, PNG, WebP: FFmpeg's image demuxers) or a
    /// stream whose index lists one frame. Held for the whole output.
    public var isStill = false
    /// Colour: the stream's tags (ffprobe's names), what they are taken to mean, its HDR
    /// metadata and Dolby Vision record; how it is scanned (MovieReader+Deinterlace.swift).
    public var color = ColorInfo()
    public var fieldOrder: FieldOrder?
}

public struct AudioInfo: Equatable, Sendable {
    public var codec: String
    public var sampleRate: Int
    public var channels: Int
    public var layout: String
    public var duration: Rational?
    public var startTime: Timestamp?
}

/// One decoded picture's facts, as the reader delivers it: what the sync needs, the provenance
/// payload it carried, and whether decoding it met damage (only ever true under `conceal`).
public struct DecodedPicture: Equatable, Sendable {
    public var source: SourceFrame
    /// The payload (after the UUID) of a user-data SEI with the reader's `userDataUUID`, if any.
    public var userData: [UInt8]?
    public var damaged: Bool
    public init(source: SourceFrame, userData: [UInt8]? = nil, damaged: Bool = false) {
        self.source = source; self.userData = userData; self.damaged = damaged
    }
}

/// A decoded frame the decoder had to conceal (a packet it refused, or damage it flagged).
public struct Damage: Equatable, Sendable, CustomStringConvertible {
    /// The delivered frame's index (presentation order, from 0) and pts.
    public var frame: Int
    public var pts: Timestamp
    public var description: String { "frame \(frame) (\(seconds(pts)))" }
}

func seconds(_ t: Timestamp) -> String {
    let s = t.seconds
    return s.isFinite ? "\((s * 1000).rounded() / 1000) s" : "\(t)"
}

/// One movie file: its video stream decoded as the decoder gives it (any pixel format, stored
/// orientation: a `Conformer` fits pictures to their place) and, optionally, its default audio
/// stream decoded and resampled to 48 kHz stereo.
/// Not thread-safe: one reader thread owns it; only its `CancellationToken` crosses threads.
public final class MovieReader {
    public let path: String
    public internal(set) var video: VideoInfo
    public let audio: AudioInfo?
    public let containerName: String
    public let containerDuration: Rational?
    /// Decode errors are concealed and reported in `damage` instead of thrown.
    public let conceal: Bool

    let input: InputFormat
    let videoStream: Int32
    let audioStream: Int32
    let videoDecoder: Decoder
    let audioDecoder: Decoder?
    private let resampler: Resampler?
    private let packet = Packet()
    private let decodedAudio = Frame()
    /// Where pictures decoded while `decodesVideo` is off go (and are dropped).
    private let discarded = Frame()

    /// Off once the output needs no more pictures: packets are then only read for audio.
    public var decodesVideo = true
    /// When set, each delivered picture's `userData` holds the payload of the user-data SEI that
    /// starts with these 16 bytes (Lockstep's provenance), if any.
    public var userDataUUID: [UInt8]?
    /// Parts per billion by which this input's clock runs fast against the reference clock (a
    /// composite's drift correction). Set before reading: the audio is then resampled onto the
    /// corrected clock and its positions (`AudioSamples.start`, `audioPosition(of:)`) are on it.
    public var audioDriftPpb: Int64 = 0 {
        didSet { resampler?.driftPpb = audioDriftPpb }
    }

    /// A time of this input's own clock (a picture's pts) in 1/48000 s of the clock its audio is
    /// delivered on: the same, or with a drift, scaled onto the corrected clock.
    public func audioPosition(of pts: Timestamp) -> Int64 {
        corrected(Rational.rescale(pts.value, from: pts.timeBase, to: Rational(1, Int64(AudioFormat.sampleRate))))
    }

    /// A position of the input's own clock (1/48000 s) on the corrected clock.
    private func corrected(_ position: Int64) -> Int64 {
        guard audioDriftPpb != 0 else { return position }
        let n = Int128(position) * 1_000_000_000, d = Int128(1_000_000_000 + audioDriftPpb)
        return Int64(clamping: n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d))
    }

    /// Every damaged frame so far, in order (only under `conceal`).
    public private(set) var damage: [Damage] = []

    private var videoPending = false
    private var videoEnded = false
    private var audioEnded = true
    private var readEnded = false
    var framesOut = 0
    /// Where a segment render started reading (`MovieReader+Seek.swift`).
    var seekState = SeekState()
    /// Pictures handed out by `next`.
    private var picturesOut = 0

    /// The error of a start part way in whose first frame does not come out of the decoder.
    private func startFailed(_ index: KeyframeIndex) -> MediaError {
        let first = seekState.first
        return MediaError(
            "frame \(first) at \(seconds(Timestamp(index.pts[first], video.timeBase))) does not come out of the decoder from its keyframe; this file cannot be started part way in",
            path: path, kind: .unreadable)
    }

    /// Pictures the video decoder produced, also those dropped before a segment's first frame.
    public internal(set) var picturesDecoded = 0
    private var videoPacketsRead: Int64 = 0
    private var lastPts: Int64?
    private var audioNext: Int64?
    /// A packet was refused since the last delivered picture: that picture is damaged.
    private var damagePending = false
    /// Damage found (not concealing), thrown once the next read shows it is not just the cut
    /// end of a truncated file (whose last packet is always refused).
    private var damageError: MediaError?
    /// Interlaced input: the deinterlacer between decoder and reader (MovieReader+Deinterlace.swift).
    var interlace = InterlaceState()

    /// `cancellation`: raised from any thread, it makes the open or a read give up with a
    /// `MediaError` of kind `.cancelled`.
    public init(
        path: String, audio wantAudio: Bool = true, conceal: Bool = false,
        cancellation: CancellationToken = CancellationToken(), frameThreads: Bool = false
    ) throws {
        self.path = path
        self.conceal = conceal
        let input = try InputFormat(path: path, cancellation: cancellation)
        self.input = input
        let ctx = input.context
        let vs = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard vs >= 0 else { throw MediaError("no video stream", path: path) }
        try input.checkPictureSize(vs)
        videoStream = vs
        let stream = input.stream(vs)
        // Damage must surface, as an error by default (AV_EF_EXPLODE) or as a damaged frame under
        // `conceal`. One decoding thread: with frame threads the decoder's concealment flag
        // (decode_error_flags, set after the slices) lands on another thread's copy of the
        // picture and is lost at random. Measured here: 1080p H.264 decodes at about 160 fps
        // on one thread, and the readers, compositor and encoder share the cores anyway.
        // `frameThreads` (a reader that only reads pictures, `verify --coded`): every core, and
        // damage is still an error (EXPLODE) though a concealed slice may go unflagged.
        videoDecoder = try Decoder(stream: stream, path: path, threads: frameThreads && !conceal ? 0 : 1, explode: !conceal)
        var info = MovieReader.describeVideo(ctx, stream)
        info.nominalFrameRate = NominalRate.of(
            measured: input.sampleSteps(of: vs).flatMap(NominalRate.measured) ?? info.frameRate,
            stated: info.statedFrameRate)
        video = info
        var audioIndex: Int32 = -1
        if wantAudio {
            let a = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, vs, nil, 0)
            if a >= 0 && avcodec_find_decoder(input.stream(a).pointee.codecpar.pointee.codec_id) != nil { audioIndex = a }
        }
        audioStream = audioIndex
        if audioIndex >= 0 {
            let st = input.stream(audioIndex)
            audioDecoder = try Decoder(stream: st, path: path, threads: 1)
            resampler = Resampler(path: path)
            self.audio = MovieReader.describeAudio(st)
            audioEnded = false
        } else {
            audioDecoder = nil; resampler = nil; self.audio = nil
        }
        containerName = input.containerName
        let d = ctx.pointee.duration
        containerDuration = d > 0 && d != NOPTS ? Rational(d, Int64(AV_TIME_BASE)) : nil
        // Everything else is discarded in the demuxer: no data, subtitle or other tracks decoded.
        for i in 0..<Int(ctx.pointee.nb_streams) where Int32(i) != vs && Int32(i) != audioIndex {
            ctx.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
        }
        try checkColor()
    }

    /// The token this reader's open and reads obey.
    public var cancellation: CancellationToken { input.cancellation }

    public enum Event: Equatable, Sendable {
        /// A picture is in the frame given to `next`, as decoded.
        case video(DecodedPicture)
        /// Audio went to the sink.
        case audio
        /// Nothing more: every stream is drained.
        case end
    }

    /// Decodes until a picture lands in `frame`, some audio went to `audioSink`, or the file ends.
    public func next(into frame: Frame, audioSink: (AudioSamples) -> Void) throws -> Event {
        while true {
            if videoPending && !videoEnded {
                let target = decodesVideo ? frame : discarded
                switch try receivePicture(into: target) {
                case .produced:
                    picturesDecoded += 1
                    if decodesVideo {
                        if try dropsBeforeStart(frame) { frame.unref(); continue }
                        return .video(try stamp(frame))
                    }
                    discarded.unref()
                    continue
                case .needsInput: videoPending = false
                case .endOfStream: videoEnded = true
                }
            }
            if readEnded {
                if videoEnded || !decodesVideo {
                    if decodesVideo, picturesOut == 0, let index = seekState.index { throw startFailed(index) }
                    // Started part way in, the decoder must give every frame to the stream's last:
                    // an open GOP's pictures after a keyframe it will not start from can be held
                    // back to the end and never come (phones/iibbibb_editlist_videoonly.mp4 from
                    // frame 8 gave 8 and 9 of 8-11), which would shorten the input silently.
                    if decodesVideo, !conceal, let index = seekState.index, framesOut < index.frameCount {
                        throw MediaError(
                            "frame \(framesOut) at \(seconds(Timestamp(index.pts[framesOut], video.timeBase))) does not come out of the decoder after a start part way in; this file cannot be started part way in",
                            path: path, kind: .unreadable)
                    }
                    return .end
                }
                continue
            }
            guard try input.read(into: packet) else {
                readEnded = true
                try checkLength()
                if let damageError { throw damageError }
                try finishReading(audioSink)
                continue
            }
            if let damageError { packet.unref(); throw damageError }
            defer { packet.unref() }
            let index = packet.pointer.pointee.stream_index
            if index == videoStream {
                videoPacketsRead += 1
                guard decodesVideo else { continue }
                if try skipsUntilKeyframe(packet) { continue }
                try sendVideo()
                videoPending = true
            } else if index == audioStream, let audioDecoder {
                _ = try audioDecoder.send(packet.pointer)
                if try drainAudio(audioDecoder, audioSink) { return .audio }
            }
        }
    }

    /// Sends the current packet; a refused one is damage (an error, or under `conceal` skipped).
    private func sendVideo() throws {
        let step: CodecStep
        do {
            step = try videoDecoder.send(packet.pointer)
        } catch let e as MediaError where e.kind != .cancelled {
            guard conceal else {
                damageError = damageError ?? damaged(e, at: "video packet \(videoPacketsRead - 1)", pts: packetTime())
                return
            }
            damagePending = true
            return
        }
        if step == .needsInput { throw MediaError("video decoder refused a packet", path: path) }
    }

    func receiveVideo(into frame: Frame) throws -> CodecStep {
        do {
            return try videoDecoder.receive(frame.pointer)
        } catch let e as MediaError where e.kind != .cancelled {
            guard conceal else { throw damaged(e, at: "frame \(framesOut)", pts: nil) }
            damagePending = true
            return .needsInput
        }
    }

    private func packetTime() -> Timestamp? {
        let p = packet.pointer.pointee
        let t = p.pts != NOPTS ? p.pts : p.dts
        return t != NOPTS ? Timestamp(t, video.timeBase) : nil
    }

    /// The error that stops a read at damage: which file, where, and the way past it.
    private func damaged(_ e: MediaError, at place: String, pts: Timestamp?) -> MediaError {
        let when = pts.map { " at \(seconds($0))" } ?? ""
        let what = e.function.isEmpty ? e.message : "\(e.message) (\(e.function))"
        return MediaError("damaged video: \(place)\(when) cannot be decoded: \(what); --conceal goes on past damage", path: path, kind: .unreadable)
    }

    /// MP4's index says how many frames there are: fewer packets is a cut file.
    private func checkLength() throws {
        if seekState.index == nil, let expected = video.indexedFrames, videoPacketsRead < expected, containerName.contains("mp4") {
            throw MediaError("truncated file: its index lists \(expected) video frames, only \(videoPacketsRead) could be read", path: path, kind: .unreadable)
        }
    }

    private func finishReading(_ audioSink: (AudioSamples) -> Void) throws {
        _ = try videoDecoder.send(nil)
        videoPending = true
        if let audioDecoder {
            _ = try audioDecoder.send(nil)
            _ = try drainAudio(audioDecoder, audioSink)
            _ = try resampler?.convert(nil, start: audioNext ?? 0) {
                audioNext! += Int64($0.count); audioSink($0)
            }
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
                let tb = input.stream(audioStream).pointee.time_base.rational
                audioNext = corrected(
                    Rational.rescale(1, from: audioStart(pts, timeBase: tb, frameSamples: Int64(f.nb_samples), rate: Int64(f.sample_rate)), to: Rational(1, Int64(AudioFormat.sampleRate))))
            }
            let n = try resampler!.convert(decodedAudio.pointer, start: audioNext!) { sink($0) }
            audioNext! += Int64(n)
            delivered = delivered || n > 0
            decodedAudio.unref()
        }
        return delivered
    }

    /// What the picture now in `frame` is: its place in the stream, its provenance, its damage.
    private func stamp(_ frame: Frame) throws -> DecodedPicture {
        let d = frame.pointer.pointee
        let tb = video.timeBase
        var pts = d.best_effort_timestamp
        if pts == NOPTS {
            // No timestamp at all: count frames at the nominal rate.
            let step = (video.frameRate ?? Rational(25, 1)).inverse
            pts = (lastPts ?? -1) + max(1, Rational.rescale(1, from: step, to: tb))
        }
        lastPts = pts
        let duration = d.pkt_duration > 0 ? tb * d.pkt_duration : nil
        let time = Timestamp(pts, tb)
        if let index = seekState.index {
            framesOut = try presentationIndex(of: pts, in: index)
            // Started part way in, the first picture must be the one asked for: a keyframe the
            // decoder will not start from (an open GOP's I-frame without a recovery point, which
            // FFmpeg holds back) would otherwise silently leave frames out.
            if picturesOut == 0 && framesOut != seekState.first { throw startFailed(index) }
        }
        picturesOut += 1
        // The decoder concealed something in this picture itself (a slice it could not read).
        let flagged = d.decode_error_flags != 0 || (d.flags & AV_FRAME_FLAG_CORRUPT) != 0
        if flagged && !conceal {
            throw MediaError(
                "damaged video: frame \(framesOut) at \(seconds(time)) is corrupt (the decoder concealed errors in it); --conceal goes on past damage",
                path: path, kind: .unreadable)
        }
        let isDamaged = flagged || damagePending
        damagePending = false
        if isDamaged { damage.append(Damage(frame: framesOut, pts: time)) }
        let picture = DecodedPicture(
            source: SourceFrame(index: framesOut, pts: time, duration: duration),
            userData: userDataUUID.flatMap { findUserData(frame.pointer, uuid: $0) },
            damaged: isDamaged)
        framesOut += 1
        return picture
    }

    /// The UUID x265 puts before the payload of a user-data SEI it is given.
    static let x265UUID: [UInt8] = [0x2C, 0xA2, 0xDE, 0x09, 0xB5, 0x17, 0x47, 0xDB, 0xBB, 0x55, 0xA4, 0xFE, 0x7F, 0xC2, 0xFC, 0x4E]

    /// x264 writes a user-data SEI of its own on the first frame: match on the UUID.
    private func findUserData(_ f: UnsafeMutablePointer<AVFrame>, uuid: [UInt8]) -> [UInt8]? {
        for i in 0..<Int(f.pointee.nb_side_data) {
            guard let sd = f.pointee.side_data[i], sd.pointee.type == AV_FRAME_DATA_SEI_UNREGISTERED,
                sd.pointee.size >= uuid.count
            else { continue }
            var bytes = UnsafeBufferPointer(start: sd.pointee.data, count: Int(sd.pointee.size))[...]
            // libx265 (3.5) wrote a message it was given after a UUID of its own: the HDR outputs
            // of Lockstep before issue 40 (now the writer puts the SEI in itself).
            if Array(bytes.prefix(16)) == MovieReader.x265UUID { bytes = bytes.dropFirst(16) }
            if Array(bytes.prefix(uuid.count)) == uuid { return Array(bytes.dropFirst(uuid.count)) }
        }
        return nil
    }

    static func describeVideo(_ ctx: UnsafeMutablePointer<AVFormatContext>, _ st: UnsafeMutablePointer<AVStream>) -> VideoInfo {
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
        let rate =
            st.pointee.avg_frame_rate.num > 0
            ? st.pointee.avg_frame_rate.rational
            : (st.pointee.r_frame_rate.num > 0 ? st.pointee.r_frame_rate.rational : nil)
        let stated = st.pointee.r_frame_rate.num > 0 && st.pointee.r_frame_rate.den > 0 ? st.pointee.r_frame_rate.rational : nil
        let container = String(cString: ctx.pointee.iformat.pointee.name)
        let nb = st.pointee.nb_frames
        let dur = st.pointee.duration
        let start = st.pointee.start_time
        return VideoInfo(
            codec: String(cString: avcodec_get_name(par.codec_id)),
            size: Size(width: w, height: h), displaySize: displayed, rotation: rotation,
            pixelFormat: Scaler.formatName(par.format), timeBase: tb, frameRate: rate,
            indexedFrames: nb > 0 ? nb : nil,
            shownFrames: InputFormat.shownSamples(ctx, st),
            duration: dur > 0 && dur != NOPTS ? tb * dur : nil,
            startTime: start != NOPTS ? Timestamp(start, tb) : nil,
            statedFrameRate: stated,
            isStill: container == "image2" || container.hasSuffix("_pipe") || nb == 1,
            color: ColorInfo(st), fieldOrder: FieldOrder(par.field_order))
    }

    static func describeAudio(_ st: UnsafeMutablePointer<AVStream>) -> AudioInfo {
        let par = st.pointee.codecpar
        var layout = [CChar](repeating: 0, count: 64)
        av_channel_layout_describe(&par!.pointee.ch_layout, &layout, layout.count)
        let tb = st.pointee.time_base.rational
        let dur = st.pointee.duration, start = st.pointee.start_time
        return AudioInfo(
            codec: String(cString: avcodec_get_name(par!.pointee.codec_id)),
            sampleRate: Int(par!.pointee.sample_rate), channels: Int(par!.pointee.ch_layout.nb_channels),
            layout: cString(layout),
            duration: dur > 0 && dur != NOPTS ? tb * dur : nil,
            startTime: start != NOPTS ? Timestamp(start, tb) : nil)
    }
}
