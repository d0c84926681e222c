import CFFmpeg
import Compositor

/// An AAC (48 kHz stereo, planar float) encoder feeding one stream of an output: samples in,
/// whole AAC frames encoded, packets written. Sample n gets pts n in 1/48000, so the track starts
/// at exactly 0, and the last partial frame is sent as it is: the track is as long as the
/// samples given (the encoder's priming goes into the edit list). One writer thread owns it.
final class AACTrack {
    let encoder: Encoder
    let stream: UnsafeMutablePointer<AVStream>
    private let output: OutputFormat
    private let frame = Frame()
    private let packet = Packet()
    private var fill = 0
    private var pts: Int64 = 0

    init(output: OutputFormat, bitRate: Int) throws {
        self.output = output
        let globalHeader = output.needsGlobalHeader
        encoder = try Encoder(codecName: "aac", configure: { c in
            c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            c.pointee.sample_rate = Int32(AudioFormat.sampleRate)
            c.pointee.ch_layout = swift_AV_CHANNEL_LAYOUT_STEREO()
            c.pointee.bit_rate = Int64(bitRate)
            c.pointee.time_base = AVRational(num: 1, den: Int32(AudioFormat.sampleRate))
            if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        }, options: [:])
        stream = try output.addStream(for: encoder)
        try makeAudioFrame(frame, format: AV_SAMPLE_FMT_FLTP, samples: encoder.context.pointee.frame_size)
    }

    /// Samples given so far.
    var samplesWritten: Int64 { pts + Int64(fill) }

    /// Appends samples; encodes every whole AAC frame they complete.
    func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws {
        let frameSize = Int(encoder.context.pointee.frame_size)
        var done = 0
        while done < count {
            if fill == 0 { try check(av_frame_make_writable(frame.pointer), "av_frame_make_writable") }
            let n = min(count - done, frameSize - fill)
            let l = UnsafeMutableRawPointer(frame.pointer.pointee.data.0!).assumingMemoryBound(to: Float.self)
            let r = UnsafeMutableRawPointer(frame.pointer.pointee.data.1!).assumingMemoryBound(to: Float.self)
            (l + fill).update(from: left + done, count: n)
            (r + fill).update(from: right + done, count: n)
            fill += n; done += n
            if fill == frameSize { try send(samples: frameSize) }
        }
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
