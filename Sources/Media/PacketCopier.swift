import CFFmpeg
import Compositor

/// What must be equal for two clips' compressed video to play as one stream: the decoder is set
/// up once, from the first clip's parameters, so everything it reads from them must match.
public struct CopyParameters: Equatable, Sendable {
    public var codec: String
    public var profile: String
    public var level: Int
    public var size: Size
    public var pixelFormat: String
    /// Clockwise degrees a player turns the picture (one display matrix for the whole stream).
    public var rotation: Int
    /// The decoder's setup (H.264: the SPS/PPS), byte for byte.
    public var extradata: [UInt8]

    /// The first field that differs, as "its profile is Baseline, the first clip's High".
    public func mismatch(against first: CopyParameters) -> String? {
        func differ(_ what: String, _ mine: String, _ theirs: String) -> String { "its \(what) is \(mine), the first clip's \(theirs)" }
        if codec != first.codec { return differ("video codec", codec, first.codec) }
        if size != first.size { return differ("picture size", "\(size)", "\(first.size)") }
        if pixelFormat != first.pixelFormat { return differ("pixel format", pixelFormat, first.pixelFormat) }
        if profile != first.profile { return differ("profile", profile, first.profile) }
        if level != first.level { return differ("level", "\(level)", "\(first.level)") }
        if rotation != first.rotation { return differ("rotation", "\(rotation) degrees", "\(first.rotation) degrees") }
        if extradata != first.extradata { return "its codec setup (\(codec) extradata: SPS/PPS) differs from the first clip's" }
        return nil
    }
}

/// One clip's video packets, as stored (nothing decoded), for a join by copy. Opening reads the
/// first packet: `startsWithKeyframe` says whether a decoder can start there.
public final class VideoPacketReader {
    public let path: String
    public let parameters: CopyParameters
    public let timeBase: Rational
    public let startsWithKeyframe: Bool
    /// The stream's first presentation time (its start_time), if the container says.
    public let startTime: Int64?
    public let frameRate: Rational?
    private let input: InputFormat
    private let streamIndex: Int32
    let packet = Packet()
    private var pending: Bool
    /// Packets handed out so far.
    public private(set) var packetsRead: Int64 = 0
    private var lastDTS: Int64?
    private let indexedFrames: Int64?

    public init(path: String, cancellation: CancellationToken = CancellationToken()) throws {
        self.path = path
        input = try InputFormat(path: path, cancellation: cancellation)
        let vs = try input.onlyBestVideoStream()
        streamIndex = vs
        let st = input.stream(vs)
        let par = st.pointee.codecpar.pointee
        timeBase = st.pointee.time_base.rational
        indexedFrames = st.pointee.nb_frames > 0 ? st.pointee.nb_frames : nil
        startTime = st.pointee.start_time != NOPTS ? st.pointee.start_time : nil
        frameRate = st.pointee.avg_frame_rate.num > 0 ? st.pointee.avg_frame_rate.rational : nil
        let profile = avcodec_profile_name(par.codec_id, par.profile).map { String(cString: $0) } ?? "\(par.profile)"
        parameters = CopyParameters(
            codec: String(cString: avcodec_get_name(par.codec_id)), profile: profile, level: Int(par.level),
            size: Size(width: Int(par.width), height: Int(par.height)), pixelFormat: Scaler.formatName(par.format),
            rotation: VideoPacketReader.rotation(st),
            extradata: par.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(par.extradata_size))) } ?? [])
        pending = try VideoPacketReader.readVideo(input, vs, packet)
        startsWithKeyframe = pending && (packet.pointer.pointee.flags & AV_PKT_FLAG_KEY) != 0
    }

    var stream: UnsafeMutablePointer<AVStream> { input.stream(streamIndex) }

    /// The next packet's timing in `timeBase` (pts, dts: dts where pts is missing and the
    /// reverse), nil at the end. The packet itself stays here for `PacketCopyWriter.copy`.
    public func next() throws -> (pts: Int64, dts: Int64, duration: Int64)? {
        if pending {
            pending = false
        } else {
            packet.unref()
            guard try VideoPacketReader.readVideo(input, streamIndex, packet) else {
                // MP4's index says how many frames there are: fewer packets is a cut file.
                if let indexedFrames, packetsRead < indexedFrames, input.containerName.contains("mp4") {
                    throw MediaError(
                        "truncated file: its index lists \(indexedFrames) video frames, only \(packetsRead) could be read",
                        path: path, kind: .unreadable)
                }
                return nil
            }
        }
        packetsRead += 1
        let p = packet.pointer.pointee
        let pts = p.pts != NOPTS ? p.pts : p.dts
        guard pts != NOPTS else { throw MediaError("video packet \(packetsRead - 1) has no timestamp; it cannot be joined by copy", path: path) }
        var dts = p.dts
        if dts == NOPTS {
            // Matroska stores no decode times: FFmpeg's demuxer leaves them unset on the first
            // `video_delay` packets of a stream with B-frames, then lags the presentation times.
            // Those packets decode one frame apart before the first given time, so decode times
            // rise strictly, as MP4 needs (pts 0, 67, 33 would otherwise get dts 0, 67, 0).
            let step = max(p.duration, 1), delay = Int64(stream.pointee.codecpar.pointee.video_delay)
            dts = min(pts, lastDTS.map { $0 + step } ?? pts - delay * step)
        }
        lastDTS = dts
        return (pts, dts, p.duration)
    }

    private static func readVideo(_ input: InputFormat, _ index: Int32, _ packet: Packet) throws -> Bool {
        while try input.read(into: packet) {
            if packet.pointer.pointee.stream_index == index { return true }
            packet.unref()
        }
        return false
    }

    static func rotation(_ st: UnsafeMutablePointer<AVStream>) -> Int {
        guard let matrix = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, nil) else { return 0 }
        let theta = av_display_rotation_get(UnsafeRawPointer(matrix).assumingMemoryBound(to: Int32.self))
        guard theta.isFinite else { return 0 }
        return (((-Int(theta.rounded())) % 360 + 360) % 360 + 45) / 90 * 90 % 360
    }
}

/// An output whose video stream is copied from clips (`VideoPacketReader`s) and whose audio is
/// encoded here (AAC, 48 kHz stereo). `av_interleaved_write_frame` orders the two by time, so
/// the caller writes them roughly together (each clip's audio as its video goes).
public final class PacketCopyWriter {
    public let path: String
    private let output: OutputFormat
    private let videoStream: UnsafeMutablePointer<AVStream>
    private let audio: AudioTrack?
    private var finished = false
    /// H.264 only: how the copied packets delimit their NAL units (for `userData`); nil for other codecs.
    public let h264Framing: UserDataSEI.Framing?
    /// The rewritten packet (a copy with an SEI put in).
    private let rewritten = Packet()
    /// A camera's telemetry track (`carryTelemetry`), and the end of the video so far (its time base).
    private let telemetry: TelemetryLane?
    private var videoEnd = Int64.min

    /// `template`: the first clip; its parameters (and display matrix) describe the stream.
    /// `telemetry`: the output gets a telemetry track of that format, filled by `carryTelemetry`.
    public init(
        path: String, container: String, template: VideoPacketReader, withAudio: Bool, audioBitRate: Int = 192_000,
        telemetry: TelemetryTrackFormat? = nil
    ) throws {
        self.path = path
        let output = try OutputFormat(path: path, container: container)
        self.output = output
        guard let st = avformat_new_stream(output.context, nil) else { fatalError("avformat_new_stream: out of memory") }
        let source = template.stream
        try check(avcodec_parameters_copy(st.pointee.codecpar, source.pointee.codecpar), "avcodec_parameters_copy", path: path)
        st.pointee.codecpar.pointee.codec_tag = 0
        st.pointee.time_base = source.pointee.time_base
        // A container that rounds times (Matroska: 1 ms) cannot hold 1/30 s; the output's
        // frames go on the frame rate's grid instead (`ConcatCopy` snaps them to it).
        if let rate = template.frameRate, !Self.holdsFrameGrid(template.timeBase, rate: rate) { st.pointee.time_base = rate.inverse.av }
        st.pointee.avg_frame_rate = source.pointee.avg_frame_rate
        if let matrix = av_stream_get_side_data(source, AV_PKT_DATA_DISPLAYMATRIX, nil),
            let copy = av_stream_new_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, 36)
        {
            copy.update(from: matrix, count: 36)
        }
        videoStream = st
        h264Framing = template.parameters.codec == "h264" ? UserDataSEI.Framing(extradata: template.parameters.extradata) : nil
        audio = withAudio ? try AudioTrack(.aac, output: output, bitRate: audioBitRate) : nil
        self.telemetry = try telemetry.map { try TelemetryLane(output: output, format: $0) }
        try output.writeHeader(metadataTags: telemetry?.firmware != nil)
    }

    /// As `MovieWriter.carryTelemetry`: packets on the output's clock (seconds), written as the
    /// video reaches them; queued ones at or after `start` give way.
    public func carryTelemetry(_ packets: [TelemetryTrackPacket], from start: Double = -.infinity) {
        telemetry?.append(packets, from: start)
    }

    /// Telemetry packets written so far.
    public var telemetryPacketsWritten: Int { telemetry?.written ?? 0 }

    /// True when every frame time k / rate is a whole number of `timeBase` ticks.
    public static func holdsFrameGrid(_ timeBase: Rational, rate: Rational) -> Bool {
        let ticks = rate.inverse * timeBase.inverse
        return ticks.den == 1 || ticks.num % ticks.den == 0
    }

    /// The video stream's time base as the muxer settled it (after the header).
    public var videoTimeBase: Rational { videoStream.pointee.time_base.rational }

    /// Writes the packet `reader.next()` just gave, with these times (in `videoTimeBase`);
    /// `userData` (H.264 only: `h264Framing` is set): that SEI payload put into the packet in
    /// place of any Lockstep provenance it had, every other NAL unit kept byte for byte.
    public func copy(from reader: VideoPacketReader, pts: Int64, dts: Int64, duration: Int64, userData: [UInt8]? = nil) throws {
        var packet = reader.packet
        if let userData, let framing = h264Framing {
            let p = reader.packet.pointer
            let bytes = Array(UnsafeBufferPointer(start: p.pointee.data, count: Int(p.pointee.size)))
            let au: [UInt8]
            do { au = try UserDataSEI.replacingUserData(in: bytes, framing: framing, payload: userData) } catch {
                throw MediaError("video packet \(reader.packetsRead - 1) is not a whole H.264 access unit; provenance cannot be put in it", path: reader.path)
            }
            rewritten.unref()
            try check(av_new_packet(rewritten.pointer, Int32(au.count)), "av_new_packet", path: path)
            au.withUnsafeBufferPointer { rewritten.pointer.pointee.data.update(from: $0.baseAddress!, count: au.count) }
            try check(av_packet_copy_props(rewritten.pointer, p), "av_packet_copy_props", path: path)
            packet = rewritten
        }
        let seconds = videoTimeBase.seconds
        try telemetry?.write(until: Double(pts) * seconds)
        videoEnd = max(videoEnd, pts + max(duration, 0))
        let p = packet.pointer
        p.pointee.pts = pts; p.pointee.dts = dts; p.pointee.duration = duration
        p.pointee.stream_index = videoStream.pointee.index
        p.pointee.pos = -1
        // av_interleaved_write_frame takes the packet's reference and leaves it blank.
        try output.write(packet)
    }

    public func writeAudio(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws {
        try audio?.write(left: left, right: right, count: count)
    }

    public func finish() throws {
        guard !finished else { return }
        finished = true
        try telemetry?.finish(end: videoEnd > Int64.min ? Double(videoEnd) * videoTimeBase.seconds : 0)
        try audio?.finish()
        try output.finish()
    }
}
