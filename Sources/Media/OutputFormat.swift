import CFFmpeg

/// Owns one muxing AVFormatContext and the AVIOContext it writes the file through. `init` frees
/// and clears what it made before rethrowing; `finish()` writes the trailer and closes checked,
/// so a failed last flush is an error, never a success; `deinit` only releases what is left
/// (after a failure the caller removes the file).
final class OutputFormat {
    let path: String
    private var handle: UnsafeMutablePointer<AVFormatContext>?

    /// The context, valid until `close()`.
    var context: UnsafeMutablePointer<AVFormatContext> { handle! }

    /// `container`: a muxer name ("mp4", "mov"). Opens the file for writing at once, so an
    /// unwritable place fails before any encoder is made.
    init(path: String, container: String) throws {
        FFmpegLog.configured
        self.path = path
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&ctx, nil, container, path), "avformat_alloc_output_context2", path: path)
        handle = ctx
        do {
            try check(avio_open(&ctx!.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open", path: path)
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    /// Closes without checking: only for paths already failing.
    private func release() {
        guard let h = handle else { return }
        handle = nil
        if h.pointee.pb != nil { avio_closep(&h.pointee.pb) }
        avformat_free_context(h)
    }

    var needsGlobalHeader: Bool { (context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 }

    /// A new stream described by an opened encoder; it lives as long as this context.
    func addStream(for encoder: Encoder) throws -> UnsafeMutablePointer<AVStream> {
        guard let st = avformat_new_stream(context, nil) else { fatalError("avformat_new_stream: out of memory") }
        try check(avcodec_parameters_from_context(st.pointee.codecpar, encoder.context), "avcodec_parameters_from_context", path: path)
        st.pointee.time_base = encoder.context.pointee.time_base
        return st
    }

    /// MP4/MOV: the movie timescale is 48000 (FFmpeg's default is 1000), so an edit list (the
    /// AAC priming) ends on the exact sample: at 1000 a 4.6667 s track was cut to 4.666 s.
    /// `metadataTags`: the container's tags are written as `mdta` keys (movflags
    /// use_metadata_tags), under their own names: MP4's iTunes list has no place for a camera's
    /// `firmware`, and FFmpeg's demuxer reads the keys back as tags of the same names.
    func writeHeader(metadataTags: Bool = false) throws {
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if av_opt_find(UnsafeMutableRawPointer(context), "movie_timescale", nil, 0, AV_OPT_SEARCH_CHILDREN) != nil {
            av_dict_set(&options, "movie_timescale", "48000", 0)
            if metadataTags { av_dict_set(&options, "movflags", "use_metadata_tags", 0) }
        }
        try check(avformat_write_header(context, &options), "avformat_write_header", path: path)
    }

    func write(_ packet: Packet) throws {
        try check(av_interleaved_write_frame(context, packet.pointer), "av_interleaved_write_frame", path: path)
    }

    /// The trailer, then `close()`.
    func finish() throws {
        let trailer = av_write_trailer(context)
        if trailer < 0 {
            release()
            throw MediaError(code: trailer, function: "av_write_trailer", path: path)
        }
        try close()
    }

    /// Flushes and closes the file, checking both (a full disk shows up here first), and frees
    /// the context. Idempotent.
    func close() throws {
        guard let h = handle else { return }
        handle = nil
        defer { avformat_free_context(h) }
        guard h.pointee.pb != nil else { return }
        avio_flush(h.pointee.pb)
        let flushed = h.pointee.pb.pointee.error
        let closed = avio_closep(&h.pointee.pb)
        if flushed < 0 { throw MediaError(code: flushed, function: "avio_flush", path: path) }
        try check(closed, "avio_closep", path: path)
    }
}
