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
