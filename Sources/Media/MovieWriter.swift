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
    /// The pictures' signal: SDR BT.709 or HDR BT.2020 HLG/PQ (a 10-bit codec, with `hdr`'s
    /// mastering display and light levels in the container, and in HEVC's SEI).
    public var signal = WorkingSignal.sdr
    public var hdr = HDRMetadata()
    /// `--codec`; nil: H.264 for SDR, HEVC for HDR (`videoCodec`).
    public var codec: VideoCodec?
    public init(crf: Int = 18, preset: String = "veryfast") { self.crf = crf; self.preset = preset }

    /// The codec written: the one asked for, else the signal's standard one.
    public var videoCodec: VideoCodec { codec ?? VideoCodec.standard(for: signal) }

    /// Why a picture of `size` cannot be encoded in `signal`'s codec, or nil: the jobs ask
    /// before any work, so the sentence can name the option or input the size came from (the
    /// encoders said only "Invalid argument (avcodec_open2(libx265))").
    /// - 4:2:0 halves both sides for the chroma planes: even sizes of at least 2x2.
    /// - FFmpeg's libx265 wrapper refuses pictures under 16x16 ("Image size is too small").
    /// - FFmpeg's DNxHR encoder refuses pictures under 256x120 ("input must be at least 256x120").
    /// - FFmpeg's image check (av_image_check_size2, which avcodec_open2 applies) takes a picture
    ///   only while (8 x width + 1024) x (height + 128) stays below 2^31 - 1: 16384x16128 passes,
    ///   16384x16384 does not.
    /// `codec`: the one asked for (nil: the signal's standard one, H.264 or HEVC).
    public static func problem(encoding size: Size, as signal: WorkingSignal, codec: VideoCodec? = nil) -> String? {
        guard size.width >= 2, size.height >= 2, size.width % 2 == 0, size.height % 2 == 0 else {
            return "4:2:0 pictures need even sizes of at least 2x2"
        }
        switch codec ?? VideoCodec.standard(for: signal) {
        case .hevc where size.width < 16 || size.height < 16:
            return codec == nil ? "an HDR output is HEVC, and libx265 takes pictures of at least 16x16" : "--codec hevc: libx265 takes pictures of at least 16x16"
        case .dnxhr where size.width < 256 || size.height < 120:
            return "--codec dnxhr: FFmpeg's DNxHR encoder takes pictures of at least 256x120"
        default: break
        }
        let limit = Int64(Int32.max)
        let stride = 8 * Int64(size.width) + 1024
        if stride >= limit || stride * (Int64(size.height) + 128) >= limit {
            let rows = max(0, (limit - 1) / stride - 128)
            return rows < 2 ? "a width of \(size.width) is too wide for FFmpeg's encoders" : "FFmpeg's encoders take at most \(rows) rows at a width of \(size.width)"
        }
        return nil
    }
}

/// H.264 (libx264, yuv420p; closed GOPs of `settings.gop` frames), HEVC (libx265, likewise),
/// ProRes 422 HQ or DNxHR (intra only, 4:2:2, MOV) as `settings.videoCodec` says, and AAC or
/// FLAC (48 kHz stereo) into MP4, MOV or Matroska. Frame k gets pts k in
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
    /// One frame in the video time base (1/fps): the duration of a packet that has none.
    private let ticksPerFrame: Int64 = 1
    /// The last video packet, written when the next one comes or at `finish()`; and what closes
    /// the track: the first dts, the earliest pts, the latest pts + duration (encoder time base).
    private let held = Packet()
    private var holding = false
    private var firstDTS: Int64?
    private var earliest = Int64.max, latest = Int64.min
    /// HEVC: each frame's provenance message (its user-data SEI side data) by pts, until its
    /// packet leaves the encoder and gets it (`UserDataSEI` says why not libx265's own path).
    private let carriesUserDataItself: Bool
    private var userData: [Int64: [UInt8]] = [:]
    /// A camera's telemetry track, carried (`carryTelemetry`), and the video time base in seconds.
    private let telemetry: TelemetryLane?
    private let secondsPerTick: Double
    /// The working pictures made into the encoder's pixel format, where they differ (ProRes,
    /// DNxHR: 4:2:2).
    private let converter: PictureConverter?

    /// `path` is where bytes go (a temporary file); `container` is "mp4" or "mov". The file is
    /// created first: an unwritable place fails before any encoder is made. After a failure
    /// (here or later) the file may exist: the caller removes it. `telemetry`: the output gets
    /// a telemetry track of that format, filled by `carryTelemetry`.
    public init(
        path: String, container: String, canvas: Size, frameRate: Rational,
        settings: EncodeSettings, withAudio: Bool, telemetry: TelemetryTrackFormat? = nil
    ) throws {
        self.path = path
        // Every command writes frame k at k/fps (a reversal too, since issue 43: the variable
        // time base it alone used is gone).
        let timeBase = frameRate.inverse
        secondsPerTick = timeBase.seconds
        if let problem = EncodeSettings.problem(encoding: canvas, as: settings.signal, codec: settings.codec) {
            throw MediaError("cannot encode a \(canvas) picture: \(problem)", path: path)
        }
        let codec = settings.videoCodec
        if settings.signal.isHDR && !codec.carriesHDR {
            throw MediaError("--codec \(codec.rawValue) cannot carry --hdr \(settings.signal.rawValue): H.264 HDR is not offered", path: path)
        }
        if codec.needsMOV && container != "mov" {
            throw MediaError("--codec \(codec.rawValue) goes into a .mov file, not \(container)", path: path)
        }
        let output = try OutputFormat(path: path, container: container)
        self.output = output
        let globalHeader = output.needsGlobalHeader
        let hdr = settings.signal.isHDR
        carriesUserDataItself = codec == .hevc
        let working = hdr ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P
        let pixelFormat = codec.pixelFormat(for: settings.signal)
        converter =
            pixelFormat == working ? nil : try PictureConverter(width: canvas.width, height: canvas.height, from: working, to: pixelFormat)
        video = try Encoder(
            codecName: codec.encoderName,
            configure: { c in
                c.pointee.width = Int32(canvas.width)
                c.pointee.height = Int32(canvas.height)
                c.pointee.pix_fmt = pixelFormat
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
                c.pointee.tag(settings.signal)
            },
            options: MovieWriter.encoderOptions(settings))
        videoStream = try output.addStream(for: video)
        if codec == .hevc {
            // 'hvc1' (parameter sets in the sample description): what Apple's players take.
            videoStream.pointee.codecpar.pointee.codec_tag = MovieWriter.fourCC("hvc1")
        }
        if hdr { try MovieWriter.addSideData(settings.hdr, to: videoStream) }
        videoStream.pointee.avg_frame_rate = frameRate.av

        audio = withAudio ? try AudioTrack(settings.audioCodec, output: output, bitRate: settings.audioBitRate) : nil
        self.telemetry = try telemetry.map { try TelemetryLane(output: output, format: $0) }
        try output.writeHeader(metadataTags: telemetry?.firmware != nil)
    }

    /// Queues telemetry packets (times in seconds on the output's clock, frame 0 at 0) for the
    /// track `init` was given; each is written when the picture reaches its time, those that
    /// begin after the last frame's end are dropped. Packets queued earlier that begin at or
    /// after `start` are dropped first (a clip's tail, when the next clip's packets take over).
    public func carryTelemetry(_ packets: [TelemetryTrackPacket], from start: Double = -.infinity) {
        telemetry?.append(packets, from: start)
    }

    /// Telemetry packets written so far.
    public var telemetryPacketsWritten: Int { telemetry?.written ?? 0 }

    /// Encodes output frame `index` (its pts, in 1/fps) lasting one frame; its packet carries
    /// that, so the stream ends exactly where its last frame does. The frame stays the caller's.
    public func writeVideo(_ frame: Frame, index: Int64) throws {
        guard !finished else { throw MediaError("a frame was written after the file was closed", path: path) }
        try telemetry?.write(until: Double(index) * secondsPerTick)
        frame.pointer.pointee.pts = index
        frame.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        if carriesUserDataItself, let sd = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_SEI_UNREGISTERED) {
            userData[index] = Array(UnsafeBufferPointer(start: sd.pointee.data, count: Int(sd.pointee.size)))
        }
        let picture = try converter?.convert(frame.pointer) ?? frame.pointer
        // prores_ks writes the frame's own colour fields into each frame header (not the
        // context's): the working pictures' tags are the encoder's.
        let c = video.context.pointee
        picture.pointee.color_primaries = c.color_primaries
        picture.pointee.color_trc = c.color_trc
        picture.pointee.colorspace = c.colorspace
        picture.pointee.color_range = c.color_range
        picture.pointee.chroma_location = c.chroma_sample_location
        try video.send(picture)
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
        try telemetry?.finish(end: latest > Int64.min ? Double(latest) * secondsPerTick : 0)
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
            if p.pointee.duration == 0 { p.pointee.duration = ticksPerFrame }
            if let payload = userData.removeValue(forKey: p.pointee.pts) { try put(payload, into: p) }
            if firstDTS == nil { firstDTS = p.pointee.dts }
            earliest = min(earliest, p.pointee.pts)
            latest = max(latest, p.pointee.pts + p.pointee.duration)
            if holding { try writeHeld() }
            av_packet_move_ref(held.pointer, p)
            holding = true
        }
    }

    /// `payload` as the user-data SEI of an encoded access unit (libx265's: Annex B, which the
    /// MP4, MOV and Matroska muxers turn into length-prefixed units), put in place before its
    /// first picture NAL unit: the packet grows by the SEI, nothing else is copied but the tail.
    private func put(_ payload: [UInt8], into p: UnsafeMutablePointer<AVPacket>) throws {
        let size = Int(p.pointee.size)
        guard let at = UserDataSEI.firstPictureStartCode(in: UnsafeBufferPointer(start: p.pointee.data, count: size), syntax: .hevc) else {
            throw MediaError("the HEVC encoder gave a packet with no picture in it (pts \(p.pointee.pts)); its provenance cannot be put in it", path: path)
        }
        let unit = [0, 0, 0, 1] + UserDataSEI.seiNAL(payload: payload, syntax: .hevc)
        // Grows the packet's buffer (a copy when libx265's is shared), moves the pictures up and
        // writes the SEI where they began.
        try check(av_grow_packet(p, Int32(unit.count)), "av_grow_packet", path: path)
        let data = p.pointee.data!
        memmove(data + at + unit.count, data + at, size - at)
        unit.withUnsafeBufferPointer { (data + at).update(from: $0.baseAddress!, count: unit.count) }
    }

    /// Writes the held video packet (the muxer takes its reference).
    private func writeHeld() throws {
        av_packet_rescale_ts(held.pointer, video.context.pointee.time_base, videoStream.pointee.time_base)
        held.pointer.pointee.stream_index = videoStream.pointee.index
        holding = false
        try output.write(held)
    }
}

extension MovieWriter {
    /// The encoder's options for `settings`' codec.
    static func encoderOptions(_ settings: EncodeSettings) -> [String: String] {
        switch settings.videoCodec {
        case .h264:
            return x264Options(crf: settings.crf, preset: settings.preset).merging([
                "sc_threshold": "0",
                // Frame side data SEI (Lockstep's provenance) goes into the stream.
                "udu_sei": "1"
            ]) { $1 }
        case .hevc:
            return x265Options(settings)
        case .prores, .dnxhr:
            // Intra codecs of a fixed profile: no rate factor, no preset, every frame a keyframe.
            return ["profile": settings.videoCodec.profile(for: settings.signal)!]
        }
    }

    /// libx264's options for every H.264 Lockstep writes: the same pictures give the same
    /// bitstream whatever the process did before, on any number of frame threads.
    ///
    /// MB-tree is off (issue 27, and the flaky variants test after it): Debian 12's x264
    /// (0.164.3095) lets its MB-tree lookahead read buffers it never wrote, so its output
    /// depended on what the heap held. Shown with the ffmpeg CLI alone (bg.mp4 through `rosy`,
    /// 90 frames, veryfast, CRF 18, one thread): with glibc's MALLOC_PERTURB_=1, or x264's
    /// `memalign`s filled with 0xfe or 0xff by an LD_PRELOAD shim, the pictures changed from
    /// the first frame; a bisection over the fills pointed at a fenc frame's lookahead costs;
    /// with mbtree=0 every fill gave the same bytes, with slice or frame threads, and frame
    /// threads gave the single thread's bytes. In a test process that had run other jobs, whose
    /// freed buffers x264 got back, the repeat harness (60 rounds) saw 3-10 bitstreams per chain
    /// among about 125 encodes of the same pictures, and 2-5 rounds failing; with mbtree=0, one.
    /// The cost: about 20% more bits at the same CRF on karma.mp4 at 720p (SSIM 0.9888
    /// against 0.9879 with MB-tree); x264 upstream changed these buffers after that release
    /// (7628a569, "Fix memory overread in mbtree"), not checked here.
    static func x264Options(crf: Int, preset: String) -> [String: String] {
        ["crf": String(crf), "preset": preset, "mbtree": "0"]
    }
}

extension MovieWriter {
    /// libx265's options: the x264 ones' equivalents (closed GOPs of `gop` frames, no scene-cut
    /// keyframes) and the HDR metadata in its SEI. Not `udu_sei`: the provenance SEI is put into
    /// the packets after the encoder (`UserDataSEI` says why).
    static func x265Options(_ s: EncodeSettings) -> [String: String] {
        var params = ["log-level=error", "keyint=\(s.gop)", "min-keyint=\(s.gop)", "scenecut=0", "open-gop=0"]
        if s.signal == .pq { params.append("hdr10=1") }
        if let p = s.hdr.displayPrimaries, p.count == 8, let lo = s.hdr.minLuminance, let hi = s.hdr.maxLuminance {
            // SMPTE ST 2086 in x265's units: chromaticities in 0.00002, luminance in 0.0001 nits.
            func c(_ v: Double) -> Int { Int((v / 0.00002).rounded()) }
            params.append(
                "master-display=G(\(c(p[2])),\(c(p[3])))B(\(c(p[4])),\(c(p[5])))R(\(c(p[0])),\(c(p[1])))"
                    + "WP(\(c(p[6])),\(c(p[7])))L(\(Int((hi * 10000).rounded())),\(Int((lo * 10000).rounded())))")
        }
        if let cll = s.hdr.maxCLL { params.append("max-cll=\(cll),\(s.hdr.maxFALL ?? 0)") }
        return ["crf": String(s.crf), "preset": s.preset, "x265-params": params.joined(separator: ":")]
    }

    static func fourCC(_ s: String) -> UInt32 {
        let b = Array(s.utf8)
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }

    /// The mastering display and light levels as stream side data: the MP4/MOV muxer writes
    /// them as `mdcv` and `clli` boxes.
    static func addSideData(_ hdr: HDRMetadata, to st: UnsafeMutablePointer<AVStream>) throws {
        if let p = hdr.displayPrimaries, p.count == 8, let lo = hdr.minLuminance, let hi = hdr.maxLuminance {
            guard let m = av_mastering_display_metadata_alloc() else { fatalError("av_mastering_display_metadata_alloc: out of memory") }
            func q(_ v: Double, _ den: Int32) -> AVRational { AVRational(num: Int32((v * Double(den)).rounded()), den: den) }
            m.pointee.display_primaries.0 = (q(p[0], 50000), q(p[1], 50000))
            m.pointee.display_primaries.1 = (q(p[2], 50000), q(p[3], 50000))
            m.pointee.display_primaries.2 = (q(p[4], 50000), q(p[5], 50000))
            m.pointee.white_point = (q(p[6], 50000), q(p[7], 50000))
            m.pointee.min_luminance = q(lo, 10000); m.pointee.max_luminance = q(hi, 10000)
            m.pointee.has_primaries = 1; m.pointee.has_luminance = 1
            let r = av_stream_add_side_data(
                st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, UnsafeMutableRawPointer(m).assumingMemoryBound(to: UInt8.self),
                MemoryLayout<AVMasteringDisplayMetadata>.size)
            if r < 0 { av_free(m); try check(r, "av_stream_add_side_data") }
        }
        if let cll = hdr.maxCLL {
            var size = 0
            guard let l = av_content_light_metadata_alloc(&size) else { fatalError("av_content_light_metadata_alloc: out of memory") }
            l.pointee.MaxCLL = UInt32(cll); l.pointee.MaxFALL = UInt32(hdr.maxFALL ?? 0)
            let r = av_stream_add_side_data(st, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, UnsafeMutableRawPointer(l).assumingMemoryBound(to: UInt8.self), size)
            if r < 0 { av_free(l); try check(r, "av_stream_add_side_data") }
        }
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
