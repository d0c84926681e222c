import CFFmpeg

extension Encoder {
    /// Writes every packet the encoder has ready into `stream` of `output`, rescaled to the
    /// stream's time base. A video packet without a duration gets 1 (a frame): the last packet's
    /// duration decides the track's length, never left unknown.
    func drain(into output: OutputFormat, stream: UnsafeMutablePointer<AVStream>, packet: Packet, isVideo: Bool) throws {
        while try receive(packet.pointer) == .produced {
            if packet.pointer.pointee.duration == 0 && isVideo { packet.pointer.pointee.duration = 1 }
            av_packet_rescale_ts(packet.pointer, context.pointee.time_base, stream.pointee.time_base)
            packet.pointer.pointee.stream_index = stream.pointee.index
            try output.write(packet)
        }
    }
}
