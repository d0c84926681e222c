import CFFmpeg

#if canImport(Glibc)
    import Glibc
#endif

/// Owns one demuxing AVFormatContext (and, for a FIFO, the descriptor FFmpeg reads it through).
/// The cancellation token's interrupt callback is installed before `avformat_open_input`, so the
/// open itself can be given up; `init` frees and clears everything it made before rethrowing.
final class InputFormat {
    let path: String
    private var handle: UnsafeMutablePointer<AVFormatContext>?
    /// A FIFO we opened ourselves (FFmpeg's `pipe:` protocol does not close it), else -1.
    private(set) var fifo: Int32 = -1
    /// Kept alive here: the context's interrupt callback points at it, unretained.
    let cancellation: CancellationToken

    /// The context, valid for the owner's lifetime.
    var context: UnsafeMutablePointer<AVFormatContext> { handle! }

    init(path: String, cancellation: CancellationToken) throws {
        FFmpegLog.configured
        self.path = path
        self.cancellation = cancellation
        guard let ctx = avformat_alloc_context() else { fatalError("avformat_alloc_context: out of memory") }
        ctx.pointee.interrupt_callback = cancellation.interrupt
        handle = ctx
        do {
            var url = path
            if InputFormat.isFIFO(path) {
                // open(2) of a FIFO blocks in the kernel until a writer comes, where no interrupt
                // callback is ever polled: wait for the writer ourselves, then let FFmpeg read the
                // descriptor non-blocking, so its read loop (EAGAIN, 1 ms, interrupt check) can stop.
                fifo = try InputFormat.openFIFO(path, cancellation)
                url = "pipe:\(fifo)"
            }
            if cancellation.isCancelled { throw MediaError.cancelled(path) }
            // On failure avformat_open_input frees the context and clears the handle itself.
            let opened = avformat_open_input(&handle, url, nil, nil)
            if opened < 0 { throw InputFormat.openError(opened, path: path) }
            do {
                try check(avformat_find_stream_info(handle, nil), "avformat_find_stream_info", path: path)
            } catch let e as MediaError { throw e.unreadable() }
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    private func release() {
        if handle != nil { avformat_close_input(&handle) }  // clears the handle
        if fifo >= 0 { close(fifo); fifo = -1 }
    }

    var containerName: String { String(cString: context.pointee.iformat.pointee.name) }

    func stream(_ index: Int32) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[Int(index)]! }

    /// The best video stream's index, with every other stream discarded (the demuxer then skips
    /// their packets): what the readers that want pictures only (luma, stills, packet copy) open.
    func onlyBestVideoStream() throws -> Int32 {
        let vs = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard vs >= 0 else { throw MediaError("no video stream", path: path) }
        try checkPictureSize(vs)
        for i in 0..<Int(context.pointee.nb_streams) where Int32(i) != vs { context.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL }
        return vs
    }

    /// A video stream FFmpeg gives no picture size (0x0: a 16384x16384 PNG is past its image
    /// size limit, a damaged header) is refused here, as unreadable: every size computed from
    /// it was infinite or NaN, and composite, concat and filter trapped.
    func checkPictureSize(_ vs: Int32) throws {
        let par = stream(vs).pointee.codecpar.pointee
        guard par.width > 0, par.height > 0 else {
            throw MediaError(
                "the video stream has no picture size (FFmpeg reads it as \(par.width)x\(par.height): a picture larger than FFmpeg handles, or a damaged header)",
                path: path, kind: .unreadable)
        }
    }

    /// Packets `read(into:)` has taken from the demuxer (any stream): what opening part way in
    /// costs, counted for tests.
    private(set) var packetsRead = 0

    /// Reads the next packet; false at the end of the file.
    func read(into packet: Packet) throws -> Bool {
        let r = av_read_frame(context, packet.pointer)
        if r == AVERROR_EOF_CODE { return false }
        do { try check(r, "av_read_frame", path: path) } catch let e as MediaError { throw e.unreadable() }
        packetsRead += 1
        return true
    }

    static func isFIFO(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO
    }

    /// Opens a FIFO without blocking and waits, 50 ms at a time, for a writer to send data (or to
    /// come and go: then FFmpeg reads an empty file), checking the token in between.
    private static func openFIFO(_ path: String, _ token: CancellationToken) throws -> Int32 {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 { throw MediaError(code: swift_AVERROR(errno), function: "open", path: path).unreadable() }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            if token.isCancelled { close(fd); throw MediaError.cancelled(path) }
            let r = poll(&p, 1, 50)
            if r > 0 { return fd }
            if r < 0 && errno != EINTR {
                let e = MediaError(code: swift_AVERROR(errno), function: "poll", path: path).unreadable()
                close(fd)
                throw e
            }
        }
    }

    private static func openError(_ code: Int32, path: String) -> MediaError {
        if code == swift_AVERROR_INVALIDDATA() {
            return MediaError("not a movie FFmpeg can read (\(MediaError.text(for: code)))", path: path, kind: .unreadable)
        }
        return MediaError(code: code, function: "avformat_open_input", path: path).unreadable()
    }
}
