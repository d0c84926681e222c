import CFFmpeg
import Compositor

/// Converts working pictures (yuv420p, yuv420p10le) into the pixel format an encoder takes when
/// they differ (ProRes and DNxHR: 4:2:2, 8- or 10-bit): swscale's chroma and depth conversion at
/// the same size, matrix and range (Y'CbCr to Y'CbCr: swscale converts neither), so the colour
/// tags stay true. One destination picture, reused: made writable before each conversion, which
/// gives it a new buffer only while the encoder still holds the last one.
final class PictureConverter {
    private let context: OpaquePointer
    private let destination: UnsafeMutablePointer<AVFrame>

    init(width: Int, height: Int, from source: AVPixelFormat, to target: AVPixelFormat) throws {
        // Bit-exact and accurately rounded: the same pictures give the same bytes on any machine.
        let flags = SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT
        guard
            let c = sws_getContext(
                Int32(width), Int32(height), source, Int32(width), Int32(height), target, Int32(flags), nil, nil, nil)
        else {
            throw MediaError("cannot convert \(Scaler.formatName(source.rawValue)) pictures to \(Scaler.formatName(target.rawValue))")
        }
        context = c
        guard let f = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        destination = f
        f.pointee.width = Int32(width)
        f.pointee.height = Int32(height)
        f.pointee.format = target.rawValue
        do {
            try check(av_frame_get_buffer(f, 0), "av_frame_get_buffer")
        } catch {
            var p: UnsafeMutablePointer<AVFrame>? = f
            av_frame_free(&p)
            sws_freeContext(c)
            throw error
        }
    }

    deinit {
        var p: UnsafeMutablePointer<AVFrame>? = destination
        av_frame_free(&p)
        sws_freeContext(context)
    }

    /// `frame` converted, with its pts; valid until the next call.
    func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws -> UnsafeMutablePointer<AVFrame> {
        try check(av_frame_make_writable(destination), "av_frame_make_writable")
        try check(sws_scale_frame(context, destination, frame), "sws_scale_frame")
        destination.pointee.pts = frame.pointee.pts
        destination.pointee.pict_type = frame.pointee.pict_type
        return destination
    }
}
