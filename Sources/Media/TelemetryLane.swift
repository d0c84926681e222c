import CFFmpeg
import Compositor

/// An output's telemetry track: a packet lane beside the picture and the sound. Packets wait
/// here on the output's clock and are written as the picture passes their time, so the muxer
/// interleaves them with the frames (instead of holding every frame until the track ends);
/// those that begin at or after the picture's end are dropped at `finish`. The bytes are the
/// source's: nothing is parsed or rewritten. Not thread-safe: the writer's thread owns it.
final class TelemetryLane {
    /// 1/90000 s: the MP4 track's timescale. It holds GoPro's 1/1000 and every frame time at
    /// 24, 25, 30, 50 and 60 fps and their 1000/1001 rates but 24000/1001 exactly; a cut there
    /// is placed within half a tick (5.6 us).
    static let timeBase = Rational(1, 90_000)
    let format: TelemetryTrackFormat
    private let output: OutputFormat
    private let stream: UnsafeMutablePointer<AVStream>
    private let packet = Packet()
    private var queue: [TelemetryTrackPacket] = []
    private var next = 0
    private var lastTick = Int64.min
    /// Packets written so far.
    private(set) var written = 0

    /// Adds the track's stream to `output` (before its header) and, for `format.firmware`, the
    /// container tag (written as an MP4 `mdta` key: `OutputFormat.writeHeader(metadataTags:)`).
    init(output: OutputFormat, format: TelemetryTrackFormat) throws {
        if let why = format.unwritable { throw MediaError("cannot carry the \(format.kind.rawValue) telemetry track: \(why)", path: output.path) }
        guard let st = avformat_new_stream(output.context, nil) else { fatalError("avformat_new_stream: out of memory") }
        let par = st.pointee.codecpar!
        par.pointee.codec_type = AVMEDIA_TYPE_DATA
        par.pointee.codec_id = AV_CODEC_ID_BIN_DATA
        // movenc.c writes the `gpmd` sample entry, the `meta` handler and the `gmhd` header for this tag.
        par.pointee.codec_tag = MovieWriter.fourCC("gpmd")
        st.pointee.time_base = Self.timeBase.av
        av_dict_set(&st.pointee.metadata, "handler_name", format.handlerName, 0)
        if let firmware = format.firmware { av_dict_set(&output.context.pointee.metadata, "firmware", firmware, 0) }
        self.output = output; self.format = format; stream = st
    }

    /// Queues `packets` (times on the output's clock). Packets still queued that begin at or
    /// after `start` are dropped first: a clip's telemetry past its picture's end, when the next
    /// clip's takes over there.
    func append(_ packets: [TelemetryTrackPacket], from start: Double) {
        queue = Array(queue[next...].filter { $0.time < start }) + packets.sorted { $0.time < $1.time }
        next = 0
    }

    /// Writes the queued packets that begin at or before `t` (seconds, the output's clock).
    func write(until t: Double) throws {
        while next < queue.count, queue[next].time <= t {
            try write(queue[next])
            next += 1
        }
    }

    /// Writes the packets that begin before `end` (the picture's end), drops the rest.
    func finish(end: Double) throws {
        while next < queue.count, queue[next].time < end {
            try write(queue[next])
            next += 1
        }
        queue = []; next = 0
    }

    static func ticks(_ seconds: Double) -> Int64 { Int64((seconds * Double(timeBase.den)).rounded()) }

    private func write(_ p: TelemetryTrackPacket) throws {
        let tick = Self.ticks(p.time)
        // A track's samples follow one another: one that would go back (a clip's packet from
        // before its picture's start, after the previous clip's) is left out, as is an empty one.
        guard tick >= lastTick, !p.bytes.isEmpty else { return }
        let pkt = packet.pointer
        try check(av_new_packet(pkt, Int32(p.bytes.count)), "av_new_packet", path: output.path)
        p.bytes.withUnsafeBufferPointer { pkt.pointee.data.update(from: $0.baseAddress!, count: $0.count) }
        pkt.pointee.pts = tick; pkt.pointee.dts = tick
        pkt.pointee.duration = max(0, Self.ticks(p.time + p.duration) - tick)
        pkt.pointee.stream_index = stream.pointee.index
        pkt.pointee.flags |= AV_PKT_FLAG_KEY
        try output.write(packet)
        lastTick = tick
        written += 1
    }
}
