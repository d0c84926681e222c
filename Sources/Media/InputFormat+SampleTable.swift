import CFFmpeg

/// A stream's packet records from the container's own index, when it lists every sample with
/// the timestamps `av_read_frame` would give: the packet pass (`indexPackets`) without reading
/// a byte of sample data.
extension InputFormat {
    /// The records an MP4/MOV's sample table gives for `stream`, equal to what reading every
    /// packet gives, or nil where the table cannot stand in for reading: another container
    /// (Matroska keeps no per-frame index), an index shorter than the stream's frame count or
    /// pointing past the end of the file (a cut file: the packet pass says so), a fragmented
    /// file, a FIFO, or samples with composition offsets (B-frames: FFmpeg's index holds decode
    /// times only, the shown time needs `ctts`, see `MP4Boxes`). Edit lists need nothing
    /// special: mov.c marks the samples an edit cuts `AVINDEX_DISCARD_FRAME` in the index, as
    /// it marks their packets `AV_PKT_FLAG_DISCARD`.
    func sampleTablePackets(of stream: Int32) -> [KeyframeIndex.Packet]? {
        let ctx = context
        guard fifo < 0, containerName.hasPrefix("mov,"), let pb = ctx.pointee.pb,
              (pb.pointee.seekable & AVIO_SEEKABLE_NORMAL) != 0 else { return nil }
        let st = self.stream(stream)
        let count = avformat_index_get_entries_count(st)
        guard count > 0, Int64(count) == st.pointee.nb_frames else { return nil }
        guard MP4Boxes.hasCompositionOffsets(path: path, trackID: st.pointee.id) == false else { return nil }
        let fileSize = avio_size(pb)
        var packets: [KeyframeIndex.Packet] = []
        packets.reserveCapacity(Int(count))
        var next = avformat_index_get_entry(st, 0)!.pointee
        for i in 0..<count {
            let e = next
            guard e.size > 0, e.pos >= 0, fileSize <= 0 || e.pos + Int64(e.size) <= fileSize else { return nil }
            // mov.c without ctts: the duration is the step to the next sample's decode time,
            // the last one's to the stream's end.
            let nextDTS: Int64
            if i + 1 < count {
                next = avformat_index_get_entry(st, i + 1)!.pointee
                nextDTS = next.timestamp
            } else {
                nextDTS = st.pointee.duration
            }
            packets.append(KeyframeIndex.Packet(pts: e.timestamp, dts: e.timestamp,
                                                duration: nextDTS != NOPTS && nextDTS >= e.timestamp ? nextDTS - e.timestamp : 0,
                                                keyframe: (e.flags & AVINDEX_KEYFRAME) != 0,
                                                discard: (e.flags & AVINDEX_DISCARD_FRAME) != 0))
        }
        return packets
    }

    /// An MP4/MOV stream's samples less those its edit list cuts (flagged discarded in the
    /// index), when the index lists every sample; else nil. Counts flags only: cheap, and valid
    /// with B-frames too.
    static func shownSamples(_ ctx: UnsafeMutablePointer<AVFormatContext>, _ st: UnsafeMutablePointer<AVStream>) -> Int64? {
        guard String(cString: ctx.pointee.iformat.pointee.name).hasPrefix("mov,") else { return nil }
        let count = avformat_index_get_entries_count(st)
        guard count > 0, Int64(count) == st.pointee.nb_frames else { return nil }
        var shown: Int64 = 0
        for i in 0..<count where (avformat_index_get_entry(st, i)!.pointee.flags & AVINDEX_DISCARD_FRAME) == 0 { shown += 1 }
        return shown
    }

    /// Where a stream's packet records come from: the sample table, or a pass over every packet.
    func keyframePackets(of stream: Int32, into packet: Packet) throws -> (packets: [KeyframeIndex.Packet], source: KeyframeIndex.Source) {
        if let table = sampleTablePackets(of: stream) { return (table, .sampleTable) }
        return (try indexPackets(of: stream, into: packet), .packetPass)
    }
}
