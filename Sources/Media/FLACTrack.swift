import CFFmpeg
import Compositor

/// A FLAC (48 kHz stereo, 24 bits, interleaved) encoder feeding one stream of an output, beside `AACTrack`:
/// samples in, whole FLAC blocks encoded, packets written. Sample n gets pts n in 1/48000, and
/// FLAC has no priming, so the track holds exactly the samples given, from 0: what a segment
/// render needs for joins that neither gain nor lose a sample. One writer thread owns it.
final class FLACTrack {
    let encoder: Encoder
    let stream: UnsafeMutablePointer<AVStream>
    private let output: OutputFormat
    private let frame = Frame()
    private let packet = Packet()
    private var fill = 0
    private var pts: Int64 = 0
    /// Full scale of 24-bit samples; FLAC takes them in the high bits of 32-bit ones.
    private static let scale: Float = 8_388_608

    init(output: OutputFormat) throws {
        self.output = output
        let globalHeader = output.needsGlobalHeader
        encoder = try Encoder(codecName: "flac", configure: { c in
            c.pointee.sample_fmt = AV_SAMPLE_FMT_S32
            c.pointee.bits_per_raw_sample = 24
            c.pointee.sample_rate = Int32(AudioFormat.sampleRate)
            c.pointee.ch_layout = swift_AV_CHANNEL_LAYOUT_STEREO()
            c.pointee.time_base = AVRational(num: 1, den: Int32(AudioFormat.sampleRate))
            if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        }, options: [:])
        stream = try output.addStream(for: encoder)
        try makeAudioFrame(frame, format: AV_SAMPLE_FMT_S32, samples: encoder.context.pointee.frame_size)
    }

    var samplesWritten: Int64 { pts + Int64(fill) }

    func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws {
        let frameSize = Int(encoder.context.pointee.frame_size)
        var done = 0
        while done < count {
            if fill == 0 { try check(av_frame_make_writable(frame.pointer), "av_frame_make_writable") }
            let n = min(count - done, frameSize - fill)
            // FFmpeg's FLAC encoder takes interleaved samples: L R L R.
            let lr = UnsafeMutableRawPointer(frame.pointer.pointee.data.0!).assumingMemoryBound(to: Int32.self)
            for i in 0..<n {
                lr[2 * (fill + i)] = Self.sample(left[done + i])
                lr[2 * (fill + i) + 1] = Self.sample(right[done + i])
            }
            fill += n; done += n
            if fill == frameSize { try send(samples: frameSize) }
        }
    }

    /// A float sample as 24 bits (rounded, clamped to full scale) in the high bits of 32.
    static func sample(_ x: Float) -> Int32 {
        let v = (x * scale).rounded()
        let clamped = v.isNaN ? 0 : min(max(v, -scale), scale - 1)
        return Int32(clamped) << 8
    }

    func finish() throws {
        if fill > 0 { try send(samples: fill) }
        try encoder.send(nil)
        try drain()
    }

    private func send(samples: Int) throws {
        frame.pointer.pointee.nb_samples = Int32(samples)
        frame.pointer.pointee.pts = pts
        pts += Int64(samples)
        try encoder.send(frame.pointer)
        fill = 0
        try drain()
    }

    private func drain() throws { try writeReadyPackets(encoder, to: stream, of: output, using: packet) }
}
