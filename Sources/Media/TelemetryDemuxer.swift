import CFFmpeg

/// Which kind of telemetry track a movie carries.
public enum TelemetryTrackKind: String, Sendable {
    /// GoPro's GPMF (`gpmd` sample entry, handler "GoPro MET").
    case gpmf
    /// Google's Camera Motion Metadata (`camm` sample entry).
    case camm
}

/// One packet of a telemetry track: its bytes and its span on the video's clock (seconds from
/// the video stream's first frame).
public struct TelemetryTrackPacket: Sendable {
    public var bytes: [UInt8]
    public var time: Double
    public var duration: Double
}

/// Opens a movie and reads the packets of its telemetry data stream, undecoded: libavformat
/// demuxes, the parsing is done in Swift (Motion). Its AVFormatContext is an InputFormat's.
/// Not thread-safe: one thread reads it.
public final class TelemetryDemuxer {
    public let path: String
    public let kind: TelemetryTrackKind
    /// The container's tags (`firmware`, `encoder`, ...): GoPro names the model in `firmware`.
    public let containerTags: [String: String]
    /// The telemetry stream's handler name, trimmed ("GoPro MET").
    public let handlerName: String?
    /// GoPro's `moov/udta/GPMF` box (the recording's settings as one GPMF payload), nil when
    /// the file has none.
    public let userDataGPMF: [UInt8]?

    private let input: InputFormat
    private let dataStream: Int32
    private let dataTimeBase: AVRational
    /// The video's first frame, seconds (0 when there is no video stream).
    private let videoStart: Double

    /// Opens `path`; throws a one-line error naming the file when it cannot be read, or when it
    /// has no GPMF or CAMM track.
    public convenience init(path: String) throws {
        // The one demuxer owner (InputFormat): it frees the context, also when this init throws.
        let input = try InputFormat(path: path, cancellation: CancellationToken())
        guard let found = TelemetryDemuxer.track(in: input) else {
            throw MediaError("has no GPMF or CAMM telemetry track", path: path)
        }
        self.init(path: path, input: input, track: found)
    }

    /// Opens `path`: nil when it has no GPMF or CAMM track; throws when it cannot be read.
    public static func open(path: String) throws -> TelemetryDemuxer? {
        let input = try InputFormat(path: path, cancellation: CancellationToken())
        return track(in: input).map { TelemetryDemuxer(path: path, input: input, track: $0) }
    }

    /// The kind of `path`'s GPMF or CAMM track, nil when it has none: the stream list alone (no
    /// packet of the track is read), for a job that only says the track is not kept.
    public static func trackKind(path: String) throws -> TelemetryTrackKind? {
        track(in: try InputFormat(path: path, cancellation: CancellationToken()))?.1
    }

    /// The first GPMF or CAMM stream: its index, kind and handler name.
    private static func track(in input: InputFormat) -> (Int32, TelemetryTrackKind, String?)? {
        let c = input.context
        for i in 0..<Int(c.pointee.nb_streams) {
            let st = c.pointee.streams[i]!
            let tag = st.pointee.codecpar.pointee.codec_tag
            let handler = TelemetryDemuxer.tag(st.pointee.metadata, "handler_name")?.trimmingWhitespace()
            if tag == TelemetryDemuxer.fourcc("gpmd") || handler == "GoPro MET" { return (Int32(i), .gpmf, handler) }
            if tag == TelemetryDemuxer.fourcc("camm") { return (Int32(i), .camm, handler) }
        }
        return nil
    }

    private init(path: String, input: InputFormat, track: (Int32, TelemetryTrackKind, String?)) {
        self.path = path
        self.input = input
        let c = input.context
        let (index, kind, handler) = track
        dataStream = index; self.kind = kind; handlerName = handler
        let st = c.pointee.streams[Int(index)]!
        dataTimeBase = st.pointee.time_base
        let video = av_find_best_stream(c, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        if video >= 0, let vs = c.pointee.streams[Int(video)], vs.pointee.start_time != NOPTS {
            videoStart = Double(vs.pointee.start_time) * av_q2d(vs.pointee.time_base)
        } else {
            videoStart = 0
        }
        containerTags = TelemetryDemuxer.tags(c.pointee.metadata)
        userDataGPMF = kind == .gpmf ? MP4Boxes.userDataGPMF(path: path) : nil
        // Only the telemetry stream's packets are wanted: the demuxer skips the rest.
        for i in 0..<Int(c.pointee.nb_streams) where Int32(i) != index {
            c.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
        }
    }

    /// Every packet of the telemetry stream, in file order, none lasting longer than its stored
    /// `stts` duration when the file has one per packet. A packet without a duration lasts until the
    /// next one's time (the last one: to the track's end).
    public func packets() throws -> [TelemetryTrackPacket] {
        let packet = Packet()
        var out: [TelemetryTrackPacket] = []
        let tb = av_q2d(dataTimeBase)
        while true {
            guard try input.read(into: packet) else { break }
            defer { packet.unref() }
            let p = packet.pointer.pointee
            guard p.stream_index == dataStream, p.size > 0, let data = p.data else { continue }
            let ts = p.pts != NOPTS ? p.pts : p.dts
            guard ts != NOPTS else { throw MediaError("telemetry packet without a timestamp", path: path) }
            let bytes = Array(UnsafeBufferPointer(start: data, count: Int(p.size)))
            out.append(TelemetryTrackPacket(bytes: bytes, time: Double(ts) * tb - videoStart, duration: Double(p.duration) * tb))
        }
        // The track's end (its start and duration in the header): where a last packet read
        // without a duration ends. The ffmpeg CLI's segment muxer writes a chapter's last payload
        // so (mov.c gives it none), and a packet of no length is a sample no reader sees.
        let st = input.context.pointee.streams[Int(dataStream)]!.pointee
        // mov.c gives a track's last sample the length left to the track's declared end, longer
        // or shorter than the one stored. Shorter is right (karma.mp4's last payload holds 28
        // gyro samples, 0.07 s, stored as 1.001 s); longer is not (the HERO7's holds 201, a
        // second's worth, stored as 1.001 s, read as 1.735 s). So a packet lasts the shorter of
        // the two, where the stored durations describe these packets one for one (mov.c's stream
        // id is the track's ID, its time base the track's timescale).
        if let stored = MP4Boxes.sampleDurations(path: path, trackID: st.id, sampleCount: out.count) {
            for i in out.indices where stored[i] > 0 {
                let kept = Double(stored[i]) * tb
                out[i].duration = out[i].duration > 0 ? min(out[i].duration, kept) : kept
            }
        }
        let trackEnd: Double? =
            st.duration > 0 ? Double((st.start_time != NOPTS ? st.start_time : 0) + st.duration) * tb - videoStart : nil
        for i in out.indices where out[i].duration <= 0 {
            let end = i + 1 < out.count ? out[i + 1].time : (trackEnd ?? out[i].time)
            out[i].duration = max(0, end - out[i].time)
        }
        return out
    }

    static func fourcc(_ s: String) -> UInt32 {
        let u = Array(s.utf8)
        return UInt32(u[0]) | UInt32(u[1]) << 8 | UInt32(u[2]) << 16 | UInt32(u[3]) << 24
    }

    static func tag(_ dict: OpaquePointer?, _ key: String) -> String? {
        guard let e = av_dict_get(dict, key, nil, 0), let v = e.pointee.value else { return nil }
        return String(cString: v)
    }

    static func tags(_ dict: OpaquePointer?) -> [String: String] {
        var out: [String: String] = [:]
        var e: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(dict, "", e, AV_DICT_IGNORE_SUFFIX) {
            out[String(cString: next.pointee.key)] = String(cString: next.pointee.value)
            e = next
        }
        return out
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace || f == "\0" { s.removeFirst() }
        while let l = s.last, l.isWhitespace || l == "\0" { s.removeLast() }
        return String(s)
    }
}
