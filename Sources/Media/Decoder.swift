import CFFmpeg

/// Owns one decoding AVCodecContext. send/receive give results, not errors, for EAGAIN and EOF.
/// `explode`: damage in the stream is an error (AV_EF_EXPLODE), not concealed silently.
final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let path: String

    init(stream: UnsafeMutablePointer<AVStream>, path: String, threads: Int32 = 0, explode: Bool = false) throws {
        self.path = path
        let par = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(par.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(par.pointee.codec_id))
            throw MediaError("no decoder for codec \(name)", path: path)
        }
        guard let ctx = avcodec_alloc_context3(codec) else { fatalError("avcodec_alloc_context3: out of memory") }
        context = ctx
        try check(avcodec_parameters_to_context(ctx, par), "avcodec_parameters_to_context", path: path)
        ctx.pointee.pkt_timebase = stream.pointee.time_base
        ctx.pointee.thread_count = threads
        ctx.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        if explode { ctx.pointee.err_recognition |= AV_EF_EXPLODE }
        try check(avcodec_open2(ctx, codec, nil), "avcodec_open2", path: path)
    }
    deinit { var c: UnsafeMutablePointer<AVCodecContext>? = context; avcodec_free_context(&c) }

    /// Sends a packet, or nil to start draining.
    func send(_ packet: UnsafeMutablePointer<AVPacket>?) throws -> CodecStep {
        let r = avcodec_send_packet(context, packet)
        if r == AVERROR_EAGAIN { return .needsInput }  // caller must receive first
        if r == AVERROR_EOF_CODE { return .endOfStream }
        try check(r, "avcodec_send_packet", path: path)
        return .produced
    }

    func receive(_ frame: UnsafeMutablePointer<AVFrame>) throws -> CodecStep {
        let r = avcodec_receive_frame(context, frame)
        if r == AVERROR_EAGAIN { return .needsInput }
        if r == AVERROR_EOF_CODE { return .endOfStream }
        try check(r, "avcodec_receive_frame", path: path)
        return .produced
    }
}
