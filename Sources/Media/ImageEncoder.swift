import CFFmpeg
import Compositor

/// The still-image formats Lockstep writes, chosen by the output's extension.
public enum ImageFormat: String, CaseIterable, Sendable {
    case png
    case jpeg

    /// `.png`; `.jpg` or `.jpeg` (any case); nil for anything else.
    public init?(extensionOf path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        default: return nil
        }
    }

    /// FFmpeg's encoder and the pixel format it is fed: PNG takes RGB; FFmpeg's JPEG encoder
    /// (mjpeg) takes full-range 4:2:0, as JPEG files (JFIF) store it.
    var codec: (name: String, pixelFormat: AVPixelFormat) {
        switch self {
        case .png: return ("png", AV_PIX_FMT_RGB24)
        case .jpeg: return ("mjpeg", AV_PIX_FMT_YUVJ420P)
        }
    }
}

/// Encodes one picture as a PNG or JPEG file with FFmpeg's own encoders (`png`, `mjpeg`). The
/// picture is Lockstep's working format (yuv420p, video range, BT.709, as the `Conformer` makes
/// it); libswscale turns it into what the encoder takes (RGB from BT.709; JPEG's full-range
/// BT.601 after the matrix is re-expressed, as JFIF readers assume BT.601).
public enum ImageEncoder {
    /// The whole file's bytes. `quality`: JPEG quantiser scale 2 (best) to 31, default 2.
    public static func encode(_ picture: Frame, as format: ImageFormat, quality: Int = 2) throws -> [UInt8] {
        let w = picture.width, h = picture.height
        guard w > 0, h > 0, picture.isYUV420P, picture.hasBuffers else {
            throw MediaError("cannot encode a \(w)x\(h) \(Scaler.formatName(picture.pointer.pointee.format)) picture as \(format.rawValue)")
        }
        let (codecName, pixelFormat) = format.codec
        let converted = try Frame.converted(picture, to: pixelFormat)
        let encoder = try Encoder(
            codecName: codecName,
            configure: { ctx in
                ctx.pointee.width = Int32(w)
                ctx.pointee.height = Int32(h)
                ctx.pointee.pix_fmt = pixelFormat
                ctx.pointee.time_base = AVRational(num: 1, den: 1)
                ctx.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
                if format == .jpeg {
                    ctx.pointee.color_range = AVCOL_RANGE_JPEG
                    ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
                    ctx.pointee.global_quality = Int32(max(2, min(31, quality))) * FF_QP2LAMBDA
                }
            }, options: [:])
        if format == .jpeg { converted.pointer.pointee.quality = encoder.context.pointee.global_quality }
        try encoder.send(converted.pointer)
        try encoder.send(nil)
        var bytes: [UInt8] = []
        let packet = Packet()
        while try encoder.receive(packet.pointer) == .produced {
            let p = packet.pointer.pointee
            bytes.append(contentsOf: UnsafeBufferPointer(start: p.data, count: Int(p.size)))
            packet.unref()
        }
        guard !bytes.isEmpty else { throw MediaError("the \(codecName) encoder produced nothing") }
        return bytes
    }
}

extension Frame {
    /// A new frame holding `source` (yuv420p, video range, BT.709) converted to `format` at the
    /// same size; full range for RGB and the JPEG (yuvj) formats, whose matrix is BT.601.
    static func converted(_ source: Frame, to format: AVPixelFormat) throws -> Frame {
        var s = source.pointer.pointee
        let rgb = av_pix_fmt_desc_get(format).map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 } ?? false
        // Y'CbCr to Y'CbCr keeps the matrix in swscale: re-express BT.709 as BT.601 first.
        let bt601 = Frame()
        if !rgb {
            try bt601.allocate(width: Int(s.width), height: Int(s.height))
            let conversion = ColorConversion(
                from: WorkingSignal.sdr.description,
                to: ColorDescription(matrix: .bt601, range: .limited, primaries: .bt709, transfer: .sdr, bitDepth: 8))
            source.withImage { src in bt601.withImage { ColorConvertKernel(conversion).apply(src, into: $0) } }
            s = bt601.pointer.pointee
        }
        let out = Frame()
        out.pointer.pointee.format = format.rawValue
        out.pointer.pointee.width = s.width
        out.pointer.pointee.height = s.height
        out.pointer.pointee.color_range = AVCOL_RANGE_JPEG
        try check(av_frame_get_buffer(out.pointer, 0), "av_frame_get_buffer")
        guard
            let sws = sws_getContext(
                s.width, s.height, AV_PIX_FMT_YUV420P, s.width, s.height, format,
                SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nil, nil, nil)
        else {
            throw MediaError("cannot convert yuv420p to \(Scaler.formatName(format.rawValue))")
        }
        defer { sws_freeContext(sws) }
        let coefficients = sws_getCoefficients(rgb ? SWS_CS_ITU709 : SWS_CS_ITU601)
        // Video range in, full range out (for RGB the out range is ignored: RGB is always full).
        sws_setColorspaceDetails(sws, coefficients, 0, coefficients, 1, 0, 1 << 16, 1 << 16)
        if !rgb { out.pointer.pointee.colorspace = AVCOL_SPC_BT470BG }
        let rows = withUnsafePointer(to: s.data) { src in
            withUnsafePointer(to: s.linesize) { srcStride in
                withUnsafePointer(to: out.pointer.pointee.data) { dst in
                    withUnsafePointer(to: out.pointer.pointee.linesize) { dstStride in
                        sws_scale(
                            sws,
                            UnsafeRawPointer(src).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                            UnsafeRawPointer(srcStride).assumingMemoryBound(to: Int32.self), 0, s.height,
                            UnsafeRawPointer(dst).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                            UnsafeRawPointer(dstStride).assumingMemoryBound(to: Int32.self))
                    }
                }
            }
        }
        withExtendedLifetime(bt601) {}  // `s` points into its planes until here
        if rows <= 0 { throw MediaError(code: rows, function: "sws_scale") }
        return out
    }
}
