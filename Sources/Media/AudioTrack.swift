import CFFmpeg
import Compositor

/// The audio codec of a written movie: a closed choice (`--audio-codec`).
///   aac   lossy, into MP4/MOV/Matroska; the encoder's priming sits in the edit list.
///   flac  lossless, no priming: a segment's samples are exactly the mix, so segments joined
///         by decoding add up to the single pass sample for sample. FFmpeg 5.1 writes FLAC into
///         Matroska; into MP4 only as an experimental feature (`-strict -2`), so Lockstep asks
///         for .mkv.
public enum AudioCodec: String, CaseIterable, Sendable {
    case aac, flac

    /// Muxers (FFmpeg names) this codec may be written into.
    public var containers: Set<String> {
        switch self {
        case .aac: return ["mp4", "mov", "matroska"]
        case .flac: return ["matroska"]
        }
    }
}

/// One audio stream of an output: 48 kHz stereo float samples in, whole codec frames encoded,
/// packets written. Sample n gets pts n in 1/48000, so the track starts at exactly 0, and the
/// last partial frame is sent as it is: the track is as long as the samples given (AAC's
/// priming goes into the edit list; FLAC has none). One writer thread owns it.
final class AudioTrack {
    let codec: AudioCodec
    let encoder: Encoder
    let stream: UnsafeMutablePointer<AVStream>
    private let output: OutputFormat
    private let frame = Frame()
    private let packet = Packet()
    private var fill = 0
    private var pts: Int64 = 0
    /// Full scale of 24-bit samples; FFmpeg's FLAC encoder takes them in the high bits of 32.
    private static let flacScale: Float = 8_388_608

    /// `bitRate`: AAC's; FLAC is lossless (24 bits).
    init(_ codec: AudioCodec, output: OutputFormat, bitRate: Int) throws {
        self.codec = codec
        self.output = output
        let globalHeader = output.needsGlobalHeader
        let format = codec == .aac ? AV_SAMPLE_FMT_FLTP : AV_SAMPLE_FMT_S32
        encoder = try Encoder(
            codecName: codec.rawValue,
            configure: { c in
                c.pointee.sample_fmt = format
                switch codec {
                case .aac: c.pointee.bit_rate = Int64(bitRate)
                case .flac: c.pointee.bits_per_raw_sample = 24
                }
                c.pointee.sample_rate = Int32(AudioFormat.sampleRate)
                c.pointee.ch_layout = swift_AV_CHANNEL_LAYOUT_STEREO()
                c.pointee.time_base = AVRational(num: 1, den: Int32(AudioFormat.sampleRate))
                if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
            }, options: [:])
        stream = try output.addStream(for: encoder)
        try makeAudioFrame(frame, format: format, samples: encoder.context.pointee.frame_size)
    }

    /// Samples given so far.
    var samplesWritten: Int64 { pts + Int64(fill) }

    /// Appends samples; encodes every whole frame they complete.
    func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws {
        let frameSize = Int(encoder.context.pointee.frame_size)
        var done = 0
        while done < count {
            if fill == 0 { try check(av_frame_make_writable(frame.pointer), "av_frame_make_writable") }
            let n = min(count - done, frameSize - fill)
            switch codec {
            case .aac:  // planar float: L L L ..., R R R ...
                let l = UnsafeMutableRawPointer(frame.pointer.pointee.data.0!).assumingMemoryBound(to: Float.self)
                let r = UnsafeMutableRawPointer(frame.pointer.pointee.data.1!).assumingMemoryBound(to: Float.self)
                (l + fill).update(from: left + done, count: n)
                (r + fill).update(from: right + done, count: n)
            case .flac:  // interleaved 32-bit: L R L R
                let lr = UnsafeMutableRawPointer(frame.pointer.pointee.data.0!).assumingMemoryBound(to: Int32.self)
                for i in 0..<n {
                    lr[2 * (fill + i)] = Self.flacSample(left[done + i])
                    lr[2 * (fill + i) + 1] = Self.flacSample(right[done + i])
                }
            }
            fill += n; done += n
            if fill == frameSize { try send(samples: frameSize) }
        }
    }

    /// A float sample as 24 bits (rounded, clamped to full scale) in the high bits of 32.
    static func flacSample(_ x: Float) -> Int32 {
        let v = (x * flacScale).rounded()
        let clamped = v.isNaN ? 0 : min(max(v, -flacScale), flacScale - 1)
        return Int32(clamped) << 8
    }

    /// The last partial frame, then the encoder's delayed packets.
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

/// Writes every packet `encoder` has ready to `stream` of `output` (the part every audio track
/// shares).
func writeReadyPackets(_ encoder: Encoder, to stream: UnsafeMutablePointer<AVStream>, of output: OutputFormat, using packet: Packet) throws {
    while try encoder.receive(packet.pointer) == .produced {
        av_packet_rescale_ts(packet.pointer, encoder.context.pointee.time_base, stream.pointee.time_base)
        packet.pointer.pointee.stream_index = stream.pointee.index
        try output.write(packet)
    }
}

/// A 48 kHz stereo frame of `format`, `samples` long, its buffers allocated.
func makeAudioFrame(_ frame: Frame, format: AVSampleFormat, samples: Int32) throws {
    let f = frame.pointer
    f.pointee.format = format.rawValue
    f.pointee.ch_layout = swift_AV_CHANNEL_LAYOUT_STEREO()
    f.pointee.sample_rate = Int32(AudioFormat.sampleRate)
    f.pointee.nb_samples = samples
    try check(av_frame_get_buffer(f, 0), "av_frame_get_buffer")
}
