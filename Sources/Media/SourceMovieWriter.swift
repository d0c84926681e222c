import CFFmpeg
import Compositor

/// The codecs `lockstep testsrc` writes: H.264 (+ AAC) for anything, or lossless FFV1 and
/// ProRes 422 HQ (+ 16-bit PCM) in MOV or Matroska.
public enum SourceCodec: String, CaseIterable, Sendable {
    case h264, ffv1, prores

    /// Containers (muxer names) this codec can go into.
    public var containers: [String] { self == .h264 ? ["mp4", "mov", "matroska"] : ["mov", "matroska"] }
}

/// Writes a generated movie: frame k at pts k in 1/fps, audio sample n at pts n in 1/rate, both
/// from exactly 0, any rate and channel count (the same signal in every channel). Bit-exact
/// flags on the muxer and encoders, so the same input gives the same bytes (with FFV1 and PCM;
/// x264 and AAC are deterministic too on one machine). Not thread-safe: one thread owns it.
public final class SourceMovieWriter {
    public let path: String
    private let output: OutputFormat
    private let codec: SourceCodec
    private let video: Encoder
    private let videoStream: UnsafeMutablePointer<AVStream>
    private let audio: Encoder?
    private let audioStream: UnsafeMutablePointer<AVStream>?
    private let audioFrame = Frame()
    private let converted = Frame()
    private let packet = Packet()
    private let channels: Int
    private var audioFill = 0, audioFrameSize = 1024
    private var audioPts: Int64 = 0

    public init(
        path: String, container: String, codec: SourceCodec, size: Size, frameRate: Rational,
        audioRate: Int?, channels: Int
    ) throws {
        self.path = path; self.codec = codec; self.channels = channels
        guard size.width >= 2, size.height >= 2, size.width % 2 == 0, size.height % 2 == 0 else {
            throw MediaError("cannot encode a \(size) picture: 4:2:0 needs even sizes of at least 2x2", path: path)
        }
        let output = try OutputFormat(path: path, container: container)
        self.output = output
        // No random Matroska UID, no library version string: the same command, the same bytes.
        output.context.pointee.flags |= AVFMT_FLAG_BITEXACT
        let globalHeader = output.needsGlobalHeader
        let name: String, format: AVPixelFormat, options: [String: String]
        switch codec {
        case .h264: name = "libx264"; format = AV_PIX_FMT_YUV420P; options = MovieWriter.x264Options(crf: 16, preset: "veryfast")
        case .ffv1: name = "ffv1"; format = AV_PIX_FMT_YUV420P; options = [:]
        case .prores: name = "prores_ks"; format = AV_PIX_FMT_YUV422P10LE; options = ["profile": "3"]
        }
        video = try Encoder(
            codecName: name,
            configure: { c in
                c.pointee.width = Int32(size.width); c.pointee.height = Int32(size.height)
                c.pointee.pix_fmt = format
                c.pointee.time_base = frameRate.inverse.av
                c.pointee.framerate = frameRate.av
                c.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
                c.pointee.tag(.sdr)  // drawn in the working signal, said so (BT.709, video range)
                c.pointee.flags |= AV_CODEC_FLAG_BITEXACT
                if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
            }, options: options)
        videoStream = try output.addStream(for: video)
        videoStream.pointee.avg_frame_rate = frameRate.av
        if codec == .prores {
            let f = converted.pointer
            f.pointee.format = AV_PIX_FMT_YUV422P10LE.rawValue
            f.pointee.width = Int32(size.width); f.pointee.height = Int32(size.height)
            try check(av_frame_get_buffer(f, 0), "av_frame_get_buffer")
        }
        if let rate = audioRate {
            let pcm = codec != .h264
            let sampleFormat = pcm ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_FLTP
            var layout = AVChannelLayout()
            av_channel_layout_default(&layout, Int32(channels))
            let a = try Encoder(
                codecName: pcm ? "pcm_s16le" : "aac",
                configure: { c in
                    c.pointee.sample_fmt = sampleFormat
                    c.pointee.sample_rate = Int32(rate)
                    c.pointee.ch_layout = layout
                    c.pointee.bit_rate = pcm ? 0 : Int64(96_000 * channels)
                    c.pointee.time_base = AVRational(num: 1, den: Int32(rate))
                    c.pointee.flags |= AV_CODEC_FLAG_BITEXACT
                    if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
                }, options: [:])
            audioStream = try output.addStream(for: a)
            audio = a
            if a.context.pointee.frame_size > 0 { audioFrameSize = Int(a.context.pointee.frame_size) }
            let af = audioFrame.pointer
            af.pointee.format = sampleFormat.rawValue
            af.pointee.ch_layout = layout
            af.pointee.sample_rate = Int32(rate)
            af.pointee.nb_samples = Int32(audioFrameSize)
            try check(av_frame_get_buffer(af, 0), "av_frame_get_buffer")
        } else {
            audio = nil; audioStream = nil
        }
        try output.writeHeader()
    }

    /// Encodes frame `index` (a yuv420p frame, the caller's).
    public func writeVideo(_ frame: Frame, index: Int64) throws {
        var f = frame
        if codec == .prores {
            try converted.makeWritable()
            frame.withImage { Self.to422p10(frame: $0, converted.pointer) }
            f = converted
        }
        f.pointer.pointee.pts = index
        f.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        try video.send(f.pointer)
        try drain(video, videoStream)
    }

    /// yuv420p to yuv422p10le: luma and chroma shifted to 10 bits, each chroma row used twice.
    static func to422p10(frame image: YUVImage, _ out: UnsafeMutablePointer<AVFrame>) {
        let o = out.pointee
        func plane(_ p: Plane, _ data: UnsafeMutablePointer<UInt8>, _ linesize: Int32, rows: Int, source: (Int) -> Int) {
            for y in 0..<rows {
                let d = UnsafeMutableRawPointer(data + y * Int(linesize)).assumingMemoryBound(to: UInt16.self)
                let s = p.row(source(y))
                for x in 0..<p.width { d[x] = UInt16(s[x]) << 2 }
            }
        }
        plane(image.y, o.data.0!, o.linesize.0, rows: image.height) { $0 }
        plane(image.u, o.data.1!, o.linesize.1, rows: image.height) { $0 / 2 }
        plane(image.v, o.data.2!, o.linesize.2, rows: image.height) { $0 / 2 }
    }

    /// Appends mono samples, written to every channel; encodes each whole audio frame.
    public func writeAudio(_ samples: UnsafeBufferPointer<Float>) throws {
        guard audio != nil else { return }
        let s16 = audioFrame.pointer.pointee.format == AV_SAMPLE_FMT_S16.rawValue
        var done = 0
        while done < samples.count {
            if audioFill == 0 { try check(av_frame_make_writable(audioFrame.pointer), "av_frame_make_writable") }
            let n = min(samples.count - done, audioFrameSize - audioFill)
            let f = audioFrame.pointer.pointee
            if s16 {
                let d = UnsafeMutableRawPointer(f.data.0!).assumingMemoryBound(to: Int16.self)
                for i in 0..<n {
                    let v = Int16((max(-1, min(1, samples[done + i])) * 32767).rounded())
                    for c in 0..<channels { d[(audioFill + i) * channels + c] = v }
                }
            } else {
                for c in 0..<channels {
                    let d = UnsafeMutableRawPointer(f.extended_data[c]!).assumingMemoryBound(to: Float.self)
                    for i in 0..<n { d[audioFill + i] = samples[done + i] }
                }
            }
            audioFill += n; done += n
            if audioFill == audioFrameSize { try sendAudio() }
        }
    }

    private func sendAudio() throws {
        guard let audio, let audioStream, audioFill > 0 else { return }
        audioFrame.pointer.pointee.nb_samples = Int32(audioFill)
        audioFrame.pointer.pointee.pts = audioPts
        audioPts += Int64(audioFill)
        audioFill = 0
        try audio.send(audioFrame.pointer)
        try drain(audio, audioStream)
    }

    /// Flushes both encoders, writes the trailer, closes the file (checked).
    public func finish() throws {
        try sendAudio()
        try video.send(nil)
        try drain(video, videoStream)
        if let audio, let audioStream { try audio.send(nil); try drain(audio, audioStream) }
        try output.finish()
    }

    /// Closes without finishing (after a failure); the caller removes the file.
    public func close() throws { try output.close() }

    private func drain(_ encoder: Encoder, _ stream: UnsafeMutablePointer<AVStream>) throws {
        try encoder.drain(into: output, stream: stream, packet: packet, missingDuration: encoder === video ? 1 : 0)
    }
}
