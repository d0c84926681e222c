import CFFmpeg
import Compositor

/// The movie as motion analysis needs it: every frame's time and the centre square of its
/// picture as shown (sample aspect ratio and display rotation applied), downscaled to
/// `side` x `side` gray samples. Decodes with FFmpeg's frame threading; the small pictures are
/// box averages read straight from the decoded luma plane (`BoxDownscale` where the factors are
/// whole, libswscale's area filter where not or where there is no 8-bit luma plane), so no
/// full-size copy is ever made.
/// Not thread-safe: one thread reads; the samples it hands out are plain bytes.
public final class LumaReader {
    public let path: String
    /// As shown: sample aspect ratio applied, turned by `rotation`.
    public let displaySize: Size
    /// Clockwise degrees a player turns the picture (right angles only).
    public let rotation: Int
    /// Samples per side of the analysis square.
    public let side: Int
    /// Displayed pixels per sample (along both axes): multiply shifts in samples by this.
    public let scale: Int
    /// The whole picture as shown, downscaled (aspect kept) to this many samples, where asked
    /// for (`wideWidth`): what the per-region motion (roll, the lens) is measured on, as the
    /// centre square cannot see the picture's edges.
    public let wideSize: Size?
    /// The frames the container lists, or its duration at its average rate: for progress only
    /// (a container's count can lie).
    public let listedFrames: Int64?

    private let input: InputFormat
    private let streamIndex: Int32
    private let timeBase: Rational
    private let decoder: Decoder
    private let packet = Packet()
    private let decoded = Frame()
    private var sws: OpaquePointer?
    private var swsKey: (format: Int32, width: Int32, height: Int32) = (-1, 0, 0)
    /// Stored-orientation square before the turn (only used when rotated), owned here.
    private let turned: UnsafeMutableBufferPointer<UInt8>
    /// The whole picture in gray, for formats read through a conversion.
    private var whole: [UInt8] = []
    private var pending = false
    private var ended = false
    private var readEnded = false
    private var lastPts: Int64?
    private let frameStep: Int64
    // Plane pointers for sws_scale, kept so the per-frame call allocates nothing.
    private var srcPlanes = [UnsafePointer<UInt8>?](repeating: nil, count: 4)
    private var srcStrides = [Int32](repeating: 0, count: 4)
    private var dstPlanes = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: 4)
    private var dstStrides = [Int32](repeating: 0, count: 4)
    /// The crop in stored pixels (before rotation), and whether the source is read as gray.
    private var crop = (x: 0, y: 0, width: 0, height: 0)
    /// The wide picture's scaler and, when rotated, its stored-orientation buffer.
    private var wideSws: OpaquePointer?
    private var wideKey: (format: Int32, width: Int32, height: Int32) = (-1, 0, 0)
    private let wideTurned: UnsafeMutableBufferPointer<UInt8>
    /// Box averagers for the centre square and the whole picture, where the factors are whole
    /// (nearly always: the square is `scale` x `scale` boxes; 1080p and 4K are 5x5 and 10x10 to
    /// the 384-wide picture); libswscale's area filter does the rest.
    private var centreBox: BoxDownscale?
    private var wideBox: BoxDownscale?

    /// `side`: the analysis square's samples per side, or nil for the motion analysis's
    /// default (256 when the picture's shorter side has 256 pixels, else 128).
    /// `cancellation`: raising it makes a blocked open or read return (a FIFO with no writer).
    /// `wideWidth`: also deliver the whole picture, `wideWidth` samples across (see `wideSize`).
    public init(
        path: String, side wanted: Int? = nil, wideWidth: Int? = nil, threads: Int32 = 0,
        cancellation: CancellationToken = CancellationToken()
    ) throws {
        self.path = path
        input = try InputFormat(path: path, cancellation: cancellation)
        let ctx = input.context
        let vs = try input.onlyBestVideoStream()
        streamIndex = vs
        let stream = ctx.pointee.streams[Int(vs)]!
        timeBase = stream.pointee.time_base.rational
        decoder = try Decoder(stream: stream, path: path, threads: threads)
        let par = stream.pointee.codecpar.pointee
        let w = Int(par.width), h = Int(par.height)
        guard w > 0, h > 0 else { throw MediaError("the video stream has no picture size", path: path) }
        let sar = av_guess_sample_aspect_ratio(ctx, stream, nil)
        let aspect = sar.num > 0 && sar.den > 0 ? Double(sar.num) / Double(sar.den) : 1
        let dw = Int((Double(w) * aspect).rounded())
        var rot = 0
        if let matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, nil) {
            let theta = av_display_rotation_get(UnsafeRawPointer(matrix).assumingMemoryBound(to: Int32.self))
            if theta.isFinite { rot = ((-Int(theta.rounded())) % 360 + 360) % 360 }
            rot = (rot + 45) / 90 * 90 % 360
        }
        rotation = rot
        displaySize = rot == 90 || rot == 270 ? Size(width: h, height: dw) : Size(width: dw, height: h)
        let shorter = min(dw, h)
        side = wanted ?? (shorter >= 256 ? 256 : 128)
        // Whole displayed pixels per sample, as the motion analysis always measured: the
        // centre square of side * scale displayed pixels.
        scale = max(1, shorter / side)
        let squareDisplayed = min(shorter, side * scale)
        let cropWidth = max(1, min(w, Int((Double(squareDisplayed) / aspect).rounded())))
        let cropHeight = min(h, squareDisplayed)
        crop = ((w - cropWidth) / 2, (h - cropHeight) / 2, cropWidth, cropHeight)
        turned = .allocate(capacity: rot == 0 ? 0 : side * side)
        if let ww = wideWidth, ww >= 16 {
            let size = displaySize
            let wh = max(8, Int((Double(ww) * Double(size.height) / Double(size.width)).rounded()))
            wideSize = Size(width: ww, height: wh)
        } else {
            wideSize = nil
        }
        wideTurned = .allocate(capacity: rot == 0 || wideSize == nil ? 0 : wideSize!.width * wideSize!.height)
        let rate = stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate.rational : Rational(25, 1)
        frameStep = max(1, Rational.rescale(1, from: rate.inverse, to: timeBase))
        let duration = stream.pointee.duration
        listedFrames =
            stream.pointee.nb_frames > 0
            ? stream.pointee.nb_frames
            : duration > 0 && duration != NOPTS ? Rational.rescale(duration, from: timeBase, to: rate.inverse) : nil
    }

    deinit { sws_freeContext(sws); sws_freeContext(wideSws); turned.deallocate(); wideTurned.deallocate() }

    /// Decodes the next frame and writes its analysis square (`side * side` bytes, rows top to
    /// bottom as shown) into `out`. Returns the frame's time (its pts, ns), nil at the end.
    /// With `wide` (when `wideSize` is set), the whole picture too (`wideSize` samples, rows top
    /// to bottom as shown).
    public func next(into out: UnsafeMutableBufferPointer<UInt8>, wide: UnsafeMutableBufferPointer<UInt8>? = nil) throws -> Int64? {
        precondition(out.count >= side * side)
        self.wide = wide
        while true {
            if pending && !ended {
                switch try decoder.receive(decoded.pointer) {
                case .produced:
                    defer { av_frame_unref(decoded.pointer) }
                    return try deliver(into: out)
                case .needsInput: pending = false
                case .endOfStream: ended = true
                }
            }
            if ended { return nil }
            if readEnded { pending = true; continue }
            let r = av_read_frame(input.context, packet.pointer)
            if r == AVERROR_EOF_CODE {
                readEnded = true
                _ = try decoder.send(nil)
                pending = true
                continue
            }
            try check(r, "av_read_frame", path: path)
            defer { packet.unref() }
            guard packet.pointer.pointee.stream_index == streamIndex else { continue }
            if try decoder.send(packet.pointer) == .needsInput {
                throw MediaError("video decoder refused a packet", path: path)
            }
            pending = true
        }
    }

    private func deliver(into out: UnsafeMutableBufferPointer<UInt8>) throws -> Int64 {
        let f = decoded.pointer.pointee
        var pts = f.best_effort_timestamp
        if pts == NOPTS { pts = (lastPts ?? -frameStep) + frameStep }
        lastPts = pts
        let target = rotation == 0 ? out.baseAddress! : turned.baseAddress!
        if let wide, let size = wideSize {
            // In stored orientation: a quarter turn swaps the sides.
            let stored = rotation == 90 || rotation == 270 ? Size(width: size.height, height: size.width) : size
            let wideTarget = rotation == 0 ? wide.baseAddress! : wideTurned.baseAddress!
            if !shrinkInOnePass(decoded.pointer, centre: target, wide: wideTarget, wideSize: stored) {
                try scale(decoded.pointer, into: target)
                try scaleWhole(decoded.pointer, into: wideTarget, width: stored.width, height: stored.height)
            }
            if rotation != 0 { turn(wideTurned, stored: stored, into: wide) }
        } else {
            try scale(decoded.pointer, into: target)
        }
        if rotation != 0 { turn(turned, stored: Size(width: side, height: side), into: out) }
        return Rational.rescale(pts, from: timeBase, to: Rational(1, 1_000_000_000))
    }

    /// Where `next` writes the wide picture this call (nil: not asked).
    private var wide: UnsafeMutableBufferPointer<UInt8>?

    /// Both small pictures from one reading of the luma plane, when both are whole-factor box
    /// averages of it (1080p and 4K, any rotation): each row of the picture is read from memory
    /// once, the centre square's part of it again from the L1 cache. False when not possible.
    private func shrinkInOnePass(
        _ frame: UnsafeMutablePointer<AVFrame>, centre: UnsafeMutablePointer<UInt8>,
        wide: UnsafeMutablePointer<UInt8>, wideSize: Size
    ) -> Bool {
        let f = frame.pointee
        guard LumaReader.hasPlanarLuma8(f.format) else { return false }
        let c = cropOf(f)
        guard let centreBox = box(&centreBox, from: (c.width, c.height), to: (side, side)),
            let wideBox = box(&wideBox, from: (Int(f.width), Int(f.height)), to: (wideSize.width, wideSize.height))
        else { return false }
        let luma = UnsafePointer(f.data.0!), stride = Int(f.linesize.0)
        centreBox.begin(into: centre, outStride: side)
        wideBox.begin(into: wide, outStride: wideSize.width)
        for y in 0..<Int(f.height) {
            let row = luma + y * stride
            wideBox.add(row: row)
            if y >= c.y && y < c.y + c.height { centreBox.add(row: row + c.x) }
        }
        return true
    }

    /// The whole decoded picture in stored orientation, scaled to `width` x `height` at `target`.
    private func scaleWhole(_ frame: UnsafeMutablePointer<AVFrame>, into target: UnsafeMutablePointer<UInt8>, width sw: Int, height sh: Int) throws {
        let f = frame.pointee
        if LumaReader.hasPlanarLuma8(f.format), let box = box(&wideBox, from: (Int(f.width), Int(f.height)), to: (sw, sh)) {
            box.scale(f.data.0!, sourceStride: Int(f.linesize.0), into: target, outStride: sw)
        } else {
            try scaleWholeBySwscale(frame, into: target, width: sw, height: sh)
        }
    }

    /// The box averager for `source` -> `target` samples when the factors are whole (kept in
    /// `slot` while the sizes hold), else nil.
    private func box(_ slot: inout BoxDownscale?, from source: (Int, Int), to target: (Int, Int)) -> BoxDownscale? {
        if let b = slot, b.width * b.kx == source.0, b.height * b.ky == source.1, b.width == target.0, b.height == target.1 { return b }
        slot = BoxDownscale.factors(from: (source.0, source.1), to: (target.0, target.1)).map {
            BoxDownscale(width: target.0, height: target.1, kx: $0.kx, ky: $0.ky)
        }
        return slot
    }

    /// The whole picture to `width` x `height` gray samples at `target` by libswscale's area
    /// filter: for factors that are not whole, and for formats without an 8-bit luma plane.
    private func scaleWholeBySwscale(_ frame: UnsafeMutablePointer<AVFrame>, into target: UnsafeMutablePointer<UInt8>, width sw: Int, height sh: Int) throws {
        let f = frame.pointee
        let lumaOnly = LumaReader.hasPlanarLuma8(f.format)
        let format = lumaOnly ? AV_PIX_FMT_GRAY8.rawValue : f.format
        if wideKey != (format, f.width, f.height) || wideSws == nil {
            sws_freeContext(wideSws)
            wideSws = sws_getContext(f.width, f.height, AVPixelFormat(rawValue: format), Int32(sw), Int32(sh), AV_PIX_FMT_GRAY8, SWS_AREA, nil, nil, nil)
            wideKey = (format, f.width, f.height)
            guard wideSws != nil else { throw MediaError("cannot convert \(Scaler.formatName(f.format)) \(f.width)x\(f.height) to gray", path: path) }
        }
        srcPlanes[0] = UnsafePointer(f.data.0); srcStrides[0] = f.linesize.0
        if lumaOnly {
            srcPlanes[1] = nil; srcPlanes[2] = nil; srcPlanes[3] = nil
            srcStrides[1] = 0; srcStrides[2] = 0; srcStrides[3] = 0
        } else {
            srcPlanes[1] = UnsafePointer(f.data.1); srcPlanes[2] = UnsafePointer(f.data.2); srcPlanes[3] = UnsafePointer(f.data.3)
            srcStrides[1] = f.linesize.1; srcStrides[2] = f.linesize.2; srcStrides[3] = f.linesize.3
        }
        dstPlanes[0] = target; dstStrides[0] = Int32(sw)
        let rows = sws_scale(wideSws, srcPlanes, srcStrides, 0, f.height, dstPlanes, dstStrides)
        if rows <= 0 { throw MediaError(code: rows, function: "sws_scale", path: path) }
    }

    /// The crop of the decoded picture, scaled to side x side gray bytes at `target`. Planar
    /// YUV with an 8-bit luma plane (nearly all video) is read as a gray picture: only its
    /// luma crop is touched. Anything else goes through libswscale's own conversion.
    private func scale(_ frame: UnsafeMutablePointer<AVFrame>, into target: UnsafeMutablePointer<UInt8>) throws {
        let f = frame.pointee
        let lumaOnly = LumaReader.hasPlanarLuma8(f.format)
        let format = lumaOnly ? AV_PIX_FMT_GRAY8.rawValue : f.format
        let fw = Int(f.width), fh = Int(f.height)
        let c = cropOf(f)
        if lumaOnly, let box = box(&centreBox, from: (c.width, c.height), to: (side, side)) {
            box.scale(f.data.0! + c.y * Int(f.linesize.0) + c.x, sourceStride: Int(f.linesize.0), into: target, outStride: side)
            return
        }
        let sw = lumaOnly ? Int32(c.width) : f.width, sh = lumaOnly ? Int32(c.height) : f.height
        if swsKey != (format, sw, sh) || sws == nil {
            sws_freeContext(sws)
            let (dw, dh) = lumaOnly ? (Int32(side), Int32(side)) : (Int32(side * fw / max(1, c.width)), Int32(side * fh / max(1, c.height)))
            sws = sws_getContext(sw, sh, AVPixelFormat(rawValue: format), dw, dh, AV_PIX_FMT_GRAY8, SWS_AREA, nil, nil, nil)
            swsKey = (format, sw, sh)
            guard sws != nil else { throw MediaError("cannot convert \(Scaler.formatName(f.format)) \(f.width)x\(f.height) to gray", path: path) }
        }
        if lumaOnly {
            srcPlanes[0] = UnsafePointer(f.data.0! + c.y * Int(f.linesize.0) + c.x)
            srcStrides[0] = f.linesize.0
            srcPlanes[1] = nil; srcPlanes[2] = nil; srcPlanes[3] = nil
            srcStrides[1] = 0; srcStrides[2] = 0; srcStrides[3] = 0
            dstPlanes[0] = target; dstStrides[0] = Int32(side)
            let rows = sws_scale(sws, srcPlanes, srcStrides, 0, sh, dstPlanes, dstStrides)
            if rows <= 0 { throw MediaError(code: rows, function: "sws_scale", path: path) }
        } else {
            // Whole picture to gray at the analysis scale, then its centre square.
            let dw = Int(side * fw / max(1, c.width)), dh = Int(side * fh / max(1, c.height))
            if whole.count != dw * dh { whole = [UInt8](repeating: 0, count: dw * dh) }
            srcPlanes[0] = UnsafePointer(f.data.0); srcPlanes[1] = UnsafePointer(f.data.1)
            srcPlanes[2] = UnsafePointer(f.data.2); srcPlanes[3] = UnsafePointer(f.data.3)
            srcStrides[0] = f.linesize.0; srcStrides[1] = f.linesize.1; srcStrides[2] = f.linesize.2; srcStrides[3] = f.linesize.3
            try whole.withUnsafeMutableBufferPointer { buffer in
                dstPlanes[0] = buffer.baseAddress; dstStrides[0] = Int32(dw)
                let rows = sws_scale(sws, srcPlanes, srcStrides, 0, sh, dstPlanes, dstStrides)
                if rows <= 0 { throw MediaError(code: rows, function: "sws_scale", path: path) }
                let x0 = max(0, (dw - side) / 2), y0 = max(0, (dh - side) / 2)
                for y in 0..<side {
                    for x in 0..<side {
                        target[y * side + x] = y0 + y < dh && x0 + x < dw ? buffer[(y0 + y) * dw + x0 + x] : 0
                    }
                }
            }
        }
    }

    /// The centre square's crop of this frame, in stored pixels. A picture whose size changed
    /// mid-stream: the same size of crop, at its centre, as far as it fits.
    private func cropOf(_ f: AVFrame) -> (x: Int, y: Int, width: Int, height: Int) {
        let fw = Int(f.width), fh = Int(f.height)
        if fw == crop.width + 2 * crop.x || fh == crop.height + 2 * crop.y { return crop }
        return (fw / 2 - min(fw, crop.width) / 2, fh / 2 - min(fh, crop.height) / 2, min(fw, crop.width), min(fh, crop.height))
    }

    /// Turns a stored-orientation picture (`stored`) clockwise by `rotation` into `out`, as
    /// shown (its sides swapped for a quarter turn): the centre square and the wide picture.
    private func turn(_ src: UnsafeMutableBufferPointer<UInt8>, stored: Size, into out: UnsafeMutableBufferPointer<UInt8>) {
        let sw = stored.width, sh = stored.height
        let shown = rotation == 180 ? stored : Size(width: sh, height: sw)
        precondition(out.count >= shown.width * shown.height && src.count >= sw * sh)
        for y in 0..<shown.height {
            for x in 0..<shown.width {
                // Output (x, y) shows stored pixel (sx, sy) of the sw x sh stored picture.
                let (sx, sy): (Int, Int)
                switch rotation {
                case 90: (sx, sy) = (y, sh - 1 - x)
                case 180: (sx, sy) = (sw - 1 - x, sh - 1 - y)
                default: (sx, sy) = (sw - 1 - y, x)
                }
                out[y * shown.width + x] = src[sy * sw + sx]
            }
        }
    }

    /// Planar formats whose first plane is 8-bit luma, one byte per sample (yuv420p, nv12,
    /// yuvj422p, gray...), so that plane alone is a gray picture.
    static func hasPlanarLuma8(_ format: Int32) -> Bool {
        guard let d = av_pix_fmt_desc_get(AVPixelFormat(rawValue: format)) else { return false }
        let flags = d.pointee.flags
        if flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 || flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0
            || flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL) != 0 || flags & UInt64(AV_PIX_FMT_FLAG_BITSTREAM) != 0
        {
            return false
        }
        let y = d.pointee.comp.0
        return y.plane == 0 && y.step == 1 && y.offset == 0 && y.depth == 8 && y.shift == 0
    }
}
