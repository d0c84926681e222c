import CFFmpeg
import Compositor

public struct EncodeSettings: Equatable, Sendable {
    public var crf: Int = 18
    public var preset: String = "veryfast"
    public var audioBitRate: Int = 192_000
    public init(crf: Int = 18, preset: String = "veryfast") { self.crf = crf; self.preset = preset }
}

/// H.264 (libx264, yuv420p) and AAC (48 kHz stereo) into MP4 or MOV. Frame k gets pts k in
/// 1/fps; audio sample n gets pts n in 1/48000, so both start at exactly 0. Not thread-safe:
/// one writer thread owns it. `finish()` flushes both encoders fully and writes the trailer.
public final class MovieWriter {
    public let path: String
    private let output: OutputFormat
    private let video: Encoder
    private let videoStream: UnsafeMutablePointer<AVStream>
    private let audio: Encoder?
    private let audioStream: UnsafeMutablePointer<AVStream>?
    private let audioFrame = Frame()
    private var audioFill = 0
    private var audioPts: Int64 = 0
    private let packet = Packet()
    private var finished = false

    /// `path` is where bytes go (a temporary file); `container` is "mp4" or "mov". The file is
    /// created first: an unwritable place fails before any encoder is made. After a failure
    /// (here or later) the file may exist: the caller removes it.
    public init(path: String, container: String, canvas: Size, frameRate: Rational,
                settings: EncodeSettings, withAudio: Bool) throws {
        self.path = path
        guard canvas.width >= 2, canvas.height >= 2, canvas.width % 2 == 0, canvas.height % 2 == 0 else {
            throw MediaError("cannot encode a \(canvas) picture: yuv420p needs even sizes of at least 2x2", path: path)
        }
        let output = try OutputFormat(path: path, container: container)
        self.output = output
        let globalHeader = output.needsGlobalHeader
        video = try Encoder(codecName: "libx264", configure: { c in
            c.pointee.width = Int32(canvas.width)
            c.pointee.height = Int32(canvas.height)
            c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            c.pointee.time_base = frameRate.inverse.av
            c.pointee.framerate = frameRate.av
            c.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            c.pointee.thread_count = 0
            if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        }, options: ["crf": String(settings.crf), "preset": settings.preset,
                      // Frame side data SEI (Lockstep's provenance) goes into the stream.
                      "udu_sei": "1"])
        videoStream = try output.addStream(for: video)
        videoStream.pointee.avg_frame_rate = frameRate.av

        if withAudio {
            let a = try Encoder(codecName: "aac", configure: { c in
                c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
                c.pointee.sample_rate = Int32(AudioFormat.sampleRate)
                c.pointee.ch_layout = swift_AV_CHANNEL_LAYOUT_STEREO()
                c.pointee.bit_rate = Int64(settings.audioBitRate)
                c.pointee.time_base = AVRational(num: 1, den: Int32(AudioFormat.sampleRate))
                if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
            }, options: [:])
            audioStream = try output.addStream(for: a)
            audio = a
            let af = audioFrame.pointer
            af.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
            af.pointee.ch_layout = swift_AV_CHANNEL_LAYOUT_STEREO()
            af.pointee.sample_rate = Int32(AudioFormat.sampleRate)
            af.pointee.nb_samples = a.context.pointee.frame_size
            try check(av_frame_get_buffer(af, 0), "av_frame_get_buffer")
        } else {
            audio = nil; audioStream = nil
        }
        try output.writeHeader()
    }

    /// Encodes output frame `index` (its pts). The frame stays the caller's.
    public func writeVideo(_ frame: Frame, index: Int64) throws {
        guard !finished else { throw MediaError("a frame was written after the file was closed", path: path) }
        frame.pointer.pointee.pts = index
        frame.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        try video.send(frame.pointer)
        try drain(video, videoStream)
    }

    /// Appends mixed samples (48 kHz stereo); encodes every whole AAC frame they complete.
    public func writeAudio(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws {
        guard let audio else { return }
        guard !finished else { throw MediaError("audio was written after the file was closed", path: path) }
        let frameSize = Int(audio.context.pointee.frame_size)
        var done = 0
        while done < count {
            if audioFill == 0 { try check(av_frame_make_writable(audioFrame.pointer), "av_frame_make_writable") }
            let n = min(count - done, frameSize - audioFill)
            let l = UnsafeMutableRawPointer(audioFrame.pointer.pointee.data.0!).assumingMemoryBound(to: Float.self)
            let r = UnsafeMutableRawPointer(audioFrame.pointer.pointee.data.1!).assumingMemoryBound(to: Float.self)
            (l + audioFill).update(from: left + done, count: n)
            (r + audioFill).update(from: right + done, count: n)
            audioFill += n; done += n
            if audioFill == frameSize { try sendAudio(samples: frameSize) }
        }
    }

    private func sendAudio(samples: Int) throws {
        guard let audio, let audioStream else { return }
        audioFrame.pointer.pointee.nb_samples = Int32(samples)
        audioFrame.pointer.pointee.pts = audioPts
        audioPts += Int64(samples)
        try audio.send(audioFrame.pointer)
        audioFill = 0
        try drain(audio, audioStream)
    }

    /// Samples written so far.
    public var audioSamplesWritten: Int64 { audioPts + Int64(audioFill) }

    /// Flushes: the last partial AAC frame, both encoders' delayed output, the trailer; then
    /// closes the file, checked (a failed last flush is an error here, not a success).
    public func finish() throws {
        guard !finished else { return }
        if audio != nil && audioFill > 0 { try sendAudio(samples: audioFill) }
        try video.send(nil)
        try drain(video, videoStream)
        if let audio, let audioStream { try audio.send(nil); try drain(audio, audioStream) }
        finished = true
        try output.finish()
    }

    /// Closes the file without finishing it (after a failure elsewhere); the caller removes it.
    /// Throws if even closing fails.
    public func close() throws {
        finished = true
        try output.close()
    }

    private func drain(_ encoder: Encoder, _ stream: UnsafeMutablePointer<AVStream>) throws {
        try encoder.drain(into: output, stream: stream, packet: packet, isVideo: encoder === video)
    }
}
