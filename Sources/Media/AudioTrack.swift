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

/// One audio stream of an output, 48 kHz stereo planar float in: what `MovieWriter` feeds.
protocol AudioTrack: AnyObject {
    /// Samples given so far.
    var samplesWritten: Int64 { get }
    func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws
    /// The last partial frame, then the encoder's delayed packets.
    func finish() throws
}

extension AACTrack: AudioTrack {}
extension FLACTrack: AudioTrack {}

func makeAudioTrack(_ codec: AudioCodec, output: OutputFormat, bitRate: Int) throws -> any AudioTrack {
    switch codec {
    case .aac: return try AACTrack(output: output, bitRate: bitRate)
    case .flac: return try FLACTrack(output: output)
    }
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
