import CFFmpeg

/// Owns one encoding AVCodecContext. send/receive give results, not errors, for EAGAIN and EOF.
final class Encoder {
    let context: UnsafeMutablePointer<AVCodecContext>

    init(codecName: String, configure: (UnsafeMutablePointer<AVCodecContext>) -> Void, options: [String: String]) throws {
        guard let codec = avcodec_find_encoder_by_name(codecName) else { throw MediaError("FFmpeg has no \(codecName) encoder") }
        guard let ctx = avcodec_alloc_context3(codec) else { fatalError("avcodec_alloc_context3: out of memory") }
        context = ctx
        configure(ctx)
        var dict: OpaquePointer?
        for (k, v) in options { av_dict_set(&dict, k, v, 0) }
        defer { av_dict_free(&dict) }
        try check(avcodec_open2(ctx, codec, &dict), "avcodec_open2(\(codecName))")
        if let left = av_dict_get(dict, "", nil, AV_DICT_IGNORE_SUFFIX) {
            throw MediaError("\(codecName) does not know the option \(String(cString: left.pointee.key))")
        }
    }
    deinit { var c: UnsafeMutablePointer<AVCodecContext>? = context; avcodec_free_context(&c) }

    /// Sends a frame, or nil to flush.
    func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        let r = avcodec_send_frame(context, frame)
        if r == AVERROR_EOF_CODE { return }
        try check(r, "avcodec_send_frame")
    }

    func receive(_ packet: UnsafeMutablePointer<AVPacket>) throws -> CodecStep {
        let r = avcodec_receive_packet(context, packet)
        if r == AVERROR_EAGAIN { return .needsInput }
        if r == AVERROR_EOF_CODE { return .endOfStream }
        try check(r, "avcodec_receive_packet")
        return .produced
    }
}
