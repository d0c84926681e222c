import CAVFilter
import CFFmpeg

/// What is done with an interlaced input (`--deinterlace`).
public enum DeinterlaceMode: String, CaseIterable, Sendable {
    /// Fields are left woven as coded (combing shows on motion).
    case off
    /// One picture per coded frame (25 from 1080i25): the input keeps its frame count and times.
    case frame
    /// One picture per field (50 from 1080i25): motion as the camera saw it, twice the frames.
    case field
}

/// Owns one libavfilter graph, `buffer -> bwdif -> buffersink`: FFmpeg's bwdif deinterlacer
/// (Bob Weaver: w3fdif's field interpolation with yadif's motion check). Pictures go in with
/// `push` (nil at the end) and come out with `pull`; EAGAIN and EOF are results. The graph's
/// time base is half the stream's (bwdif's), so a field's picture lands between its frame's
/// and the next one's.
final class Deinterlacer {
    let mode: DeinterlaceMode
    private let api: LockstepAVFilter
    private let graph: UnsafeMutablePointer<AVFilterGraph>
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    let path: String

    /// `first`: a decoded picture (size, format, aspect); `timeBase`: its pts' time base;
    /// `parity`: the field shown first, nil to take it from each picture (when they say);
    /// `everyFrame`: deinterlace every picture, also those the codec did not flag interlaced
    /// (the container said interlaced, the pictures say nothing).
    init(first: AVFrame, timeBase: AVRational, mode: DeinterlaceMode, topFieldFirst: Bool?, everyFrame: Bool, path: String) throws {
        precondition(mode != .off)
        self.mode = mode; self.path = path
        let api: LockstepAVFilter
        do { api = try AVFilterLibrary.api() } catch { throw error.at(path) }
        self.api = api
        guard let g = api.graph_alloc!() else { fatalError("avfilter_graph_alloc: out of memory") }
        graph = g
        // One thread: each input has its own reader thread already, and the cores are shared.
        g.pointee.nb_threads = 1
        do {
            let sar = first.sample_aspect_ratio.num > 0 ? first.sample_aspect_ratio : AVRational(num: 1, den: 1)
            let args =
                "video_size=\(first.width)x\(first.height):pix_fmt=\(first.format):time_base=\(timeBase.num)/\(timeBase.den)"
                + ":pixel_aspect=\(sar.num)/\(sar.den)"
            source = try Self.make(api, g, "buffer", "in", args, path)
            let parity = topFieldFirst.map { $0 ? "tff" : "bff" } ?? "auto"
            let bwdif = try Self.make(
                api, g, "bwdif", "deinterlace",
                "mode=\(mode == .field ? "send_field" : "send_frame"):parity=\(parity):deint=\(everyFrame ? "all" : "interlaced")", path)
            sink = try Self.make(api, g, "buffersink", "out", nil, path)
            try check(api.link!(source, 0, bwdif, 0), "avfilter_link", path: path)
            try check(api.link!(bwdif, 0, sink, 0), "avfilter_link", path: path)
            try check(api.graph_config!(g, nil), "avfilter_graph_config", path: path)
        } catch {
            var p: UnsafeMutablePointer<AVFilterGraph>? = g
            api.graph_free!(&p)
            throw error
        }
    }

    deinit { var p: UnsafeMutablePointer<AVFilterGraph>? = graph; api.graph_free!(&p) }

    private static func make(
        _ api: LockstepAVFilter, _ g: UnsafeMutablePointer<AVFilterGraph>, _ filter: String, _ name: String, _ args: String?,
        _ path: String
    ) throws -> UnsafeMutablePointer<AVFilterContext> {
        guard let f = api.get_by_name!(filter) else { throw MediaError("FFmpeg has no \(filter) filter", path: path) }
        var ctx: UnsafeMutablePointer<AVFilterContext>?
        try check(api.graph_create_filter!(&ctx, f, name, args, nil, g), "avfilter_graph_create_filter(\(filter))", path: path)
        return ctx!
    }

    /// The time base of the pictures `pull` gives (half the stream's).
    var outputTimeBase: AVRational { api.buffersink_get_time_base!(sink) }

    /// Hands a decoded picture to the filter (its reference moves; `frame` is left empty), or
    /// nil: no more pictures (the last ones are then flushed out).
    func push(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        try check(api.buffersrc_add_frame_flags!(source, frame, 0), "av_buffersrc_add_frame_flags", path: path)
    }

    /// A deinterlaced picture into `frame`, or what is missing for one.
    func pull(into frame: UnsafeMutablePointer<AVFrame>) throws -> CodecStep {
        let r = api.buffersink_get_frame!(sink, frame)
        if r == AVERROR_EAGAIN { return .needsInput }
        if r == AVERROR_EOF_CODE { return .endOfStream }
        try check(r, "av_buffersink_get_frame", path: path)
        return .produced
    }
}
