import CFFmpeg
import Compositor

/// What `lockstep probe` reports of a file: the container's claims beside what its packets show.
public struct ProbeReport: Codable, Equatable, Sendable {
    public struct Stream: Codable, Equatable, Sendable {
        public var index: Int
        public var type: String
        public var codec: String
        public var duration: Double?
        public var startTime: Double?
        public var packets: Int
        // video
        public var width: Int?
        public var height: Int?
        public var displayWidth: Int?
        public var displayHeight: Int?
        /// The display matrix's rotation as ffprobe prints it (`side_data` "rotation"): degrees
        /// counter-clockwise, -90 for a phone held upright (turned 90 degrees clockwise to show),
        /// in -180...180 (ffprobe's -180 for a picture upside down); nil without a display matrix.
        public var rotation: Int?
        public var pixelFormat: String?
        public var averageFrameRate: String?
        /// Frames per second measured from the timestamps: (frames - 1) / (last pts - first pts).
        public var measuredFrameRate: Double?
        /// The frames shown: the stream's packets less those an edit list hides (which every
        /// other command, and ffprobe's decoded count, leaves out).
        public var frames: Int?
        /// Packets an edit list hides (the demuxer marks them to be decoded, not shown); nil: none.
        public var hiddenFrames: Int?
        /// The colour tags as the stream carries them (ffprobe's names; nil: unspecified), what
        /// Lockstep takes them to mean, and the bits per sample.
        public var color: ColorTags?
        public var colorMeaning: String?
        public var bitDepth: Int?
        /// `progressive`, `tt` (top field first), `bb`, `tb`, `bt` as ffprobe says; nil: unknown.
        public var fieldOrder: String?
        public var dolbyVision: DolbyVision?
        /// Mastering display luminance (min/max nits) and MaxCLL/MaxFALL, when the stream has them.
        public var masteringLuminance: [Double]?
        public var contentLight: [Int]?
        // audio
        public var sampleRate: Int?
        public var channels: Int?
        public var layout: String?
        /// Samples per codec frame (AAC: 1024), where the codec has a fixed one: an encoder
        /// ends its audio on a whole frame unless the container trims it.
        public var frameSize: Int?
        /// Encoder priming (samples) the container states it discards (an MP4 edit list, a
        /// Matroska CodecDelay); nil where it states none.
        public var initialPadding: Int?
    }
    public var path: String
    public var container: String
    public var duration: Double?
    public var streams: [Stream]
}

public enum MovieProbe {
    /// ffprobe's "rotation": the display matrix's angle (counter-clockwise degrees, rounded),
    /// -90 for a picture shown turned 90 degrees clockwise; nil without a matrix.
    static func displayMatrixRotation(_ st: UnsafeMutablePointer<AVStream>) -> Int? {
        guard let matrix = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, nil) else { return nil }
        let theta = av_display_rotation_get(UnsafeRawPointer(matrix).assumingMemoryBound(to: Int32.self))
        guard theta.isFinite else { return nil }
        return Int(theta.rounded())
    }

    /// Reads every packet (no decoding) to count frames and measure timing. Errors are
    /// `MediaError`s; kind `.unreadable` when the file cannot be read as a movie.
    public static func probe(_ path: String, cancellation: CancellationToken = CancellationToken()) throws -> ProbeReport {
        let reader = try MovieReader(path: path, audio: true, cancellation: cancellation)  // validates like composite does
        let input = try InputFormat(path: path, cancellation: cancellation)
        let ctx = input.context
        let n = Int(ctx.pointee.nb_streams)
        var packets = [Int](repeating: 0, count: n), hidden = [Int](repeating: 0, count: n)
        var minPts = [Int64?](repeating: nil, count: n), maxPts = [Int64?](repeating: nil, count: n)
        var endPts = [Int64?](repeating: nil, count: n)
        let packet = Packet()
        while try input.read(into: packet) {
            let p = packet.pointer.pointee
            let i = Int(p.stream_index)
            packets[i] += 1
            // A packet an edit list hides is decoded (the next pictures may refer to it), never shown.
            if (p.flags & AV_PKT_FLAG_DISCARD) != 0 {
                hidden[i] += 1
                packet.unref()
                continue
            }
            if p.pts != NOPTS {
                minPts[i] = min(minPts[i] ?? p.pts, p.pts)
                maxPts[i] = max(maxPts[i] ?? p.pts, p.pts)
                endPts[i] = max(endPts[i] ?? p.pts, p.pts + p.duration)
            }
            packet.unref()
        }
        var streams: [ProbeReport.Stream] = []
        for i in 0..<n {
            let st = ctx.pointee.streams[i]!
            let par = st.pointee.codecpar.pointee
            let tb = st.pointee.time_base.rational
            var s = ProbeReport.Stream(
                index: i, type: av_get_media_type_string(par.codec_type).map { String(cString: $0) } ?? "unknown",
                codec: String(cString: avcodec_get_name(par.codec_id)), packets: packets[i])
            if st.pointee.duration > 0 && st.pointee.duration != NOPTS {
                s.duration = (tb * st.pointee.duration).seconds
            } else if let lo = minPts[i], let hi = endPts[i] {
                s.duration = (tb * (hi - lo)).seconds
            }
            if st.pointee.start_time != NOPTS { s.startTime = (tb * st.pointee.start_time).seconds }
            if par.codec_type == AVMEDIA_TYPE_VIDEO {
                let v = (i == Int(av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0))) ? reader.video : nil
                s.width = Int(par.width); s.height = Int(par.height)
                s.displayWidth = v?.displaySize.width; s.displayHeight = v?.displaySize.height
                s.rotation = Self.displayMatrixRotation(st)
                s.pixelFormat = av_get_pix_fmt_name(AVPixelFormat(rawValue: par.format)).map { String(cString: $0) }
                let avg = st.pointee.avg_frame_rate
                if avg.num > 0 && avg.den > 0 { s.averageFrameRate = avg.rational.description }
                s.frames = packets[i] - hidden[i]
                s.hiddenFrames = hidden[i] > 0 ? hidden[i] : nil
                s.color = ColorTags(par)
                let reading = ColorReading(par)
                s.colorMeaning = reading.description.description + reading.notes.map { " (\($0))" }.joined()
                s.bitDepth = reading.description.bitDepth
                s.fieldOrder = FieldOrder(par.field_order)?.name
                s.dolbyVision = DolbyVision.of(st)
                let hdr = HDRMetadata.of(st)
                if let lo = hdr.minLuminance, let hi = hdr.maxLuminance { s.masteringLuminance = [lo, hi] }
                if let c = hdr.maxCLL { s.contentLight = [c, hdr.maxFALL ?? 0] }
                if let lo = minPts[i], let hi = maxPts[i], hi > lo, packets[i] - hidden[i] > 1 {
                    s.measuredFrameRate = Double(packets[i] - hidden[i] - 1) / (tb * (hi - lo)).seconds
                }
            } else if par.codec_type == AVMEDIA_TYPE_AUDIO {
                s.sampleRate = Int(par.sample_rate); s.channels = Int(par.ch_layout.nb_channels)
                if par.frame_size > 0 { s.frameSize = Int(par.frame_size) }
                if par.initial_padding > 0 { s.initialPadding = Int(par.initial_padding) }
                var layout = [CChar](repeating: 0, count: 64)
                var l = par.ch_layout
                av_channel_layout_describe(&l, &layout, layout.count)
                s.layout = cString(layout)
            }
            streams.append(s)
        }
        let d = ctx.pointee.duration
        return ProbeReport(
            path: path, container: input.containerName,
            duration: d > 0 && d != NOPTS ? Double(d) / Double(AV_TIME_BASE) : nil, streams: streams)
    }
}
