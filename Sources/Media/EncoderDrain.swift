import CFFmpeg

extension Encoder {
    /// Writes every packet the encoder has ready into `stream` of `output`, rescaled to the
    /// stream's time base. A packet without a duration gets `missingDuration` (in the encoder's
    /// time base; one frame for video, 0 leaves audio as the encoder made it): the last video
    /// packet's duration decides the track's length, never left unknown.
    func drain(into output: OutputFormat, stream: UnsafeMutablePointer<AVStream>, packet: Packet, missingDuration: Int64) throws {
        while try receive(packet.pointer) == .produced {
            if packet.pointer.pointee.duration == 0 { packet.pointer.pointee.duration = missingDuration }
            av_packet_rescale_ts(packet.pointer, context.pointee.time_base, stream.pointee.time_base)
            packet.pointer.pointee.stream_index = stream.pointee.index
            try output.write(packet)
        }
    }
}
