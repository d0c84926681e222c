import CFFmpeg

/// Seeking on a demuxer: the reusable half of reading a movie out of order (reverse, thumbnails).
extension InputFormat {
    /// Puts the demuxer at the keyframe of `stream` at or before `timestamp` (stream time base),
    /// or, with nil, at the start of the file. The next packets read come from there; decoders
    /// must be flushed by their owner.
    func seek(stream: Int32, toKeyframeAtOrBefore timestamp: Int64?) throws {
        let r: Int32
        if let timestamp {
            r = avformat_seek_file(context, stream, Int64.min, timestamp, timestamp, 0)
        } else {
            r = avformat_seek_file(context, -1, Int64.min, Int64.min, Int64.min, AVSEEK_FLAG_BACKWARD)
        }
        do { try check(r, "avformat_seek_file", path: path) } catch let e as MediaError { throw e.unreadable() }
    }

    /// Puts the demuxer at the keyframe segment `j` of `index` decodes from (the start of the
    /// file for a segment without one). Returns the keyframe, nil for the start.
    @discardableResult
    func seek(stream: Int32, toSegment j: Int, of index: KeyframeIndex) throws -> KeyframeIndex.Packet? {
        let target = index.seekTarget(ofSegment: j, presentationTimes: containerName.hasPrefix("mov,"))
        try seek(stream: stream, toKeyframeAtOrBefore: target)
        return target == nil ? nil : index.seekPoints[j]
    }

    /// As `seek(stream:toSegment:of:)`, made sure of before anything is decoded: a demuxer may
    /// land past the keyframe (mov.c takes a presentation time less a shift of its own, which
    /// an open GOP's edit list makes larger than half a GOP: phones/iibbibb_editlist_videoonly.mp4
    /// landed on the next keyframe). The first packet of `stream` after the seek says where it
    /// landed; past the keyframe, the keyframe's own decode time is tried (it lands early, at
    /// the cost of reading more), then the file's start (packets before the keyframe skipped by
    /// the reader). The demuxer is then seeked again to the target that held.
    func seekLandingAtOrBefore(stream: Int32, segment j: Int, of index: KeyframeIndex, packet: Packet) throws -> KeyframeIndex.Packet? {
        guard let key = index.seekPoints[j], let computed = index.seekTarget(ofSegment: j, presentationTimes: containerName.hasPrefix("mov,")) else {
            return try seek(stream: stream, toSegment: j, of: index)
        }
        var targets = [computed]
        if let d = key.dts, d < computed { targets.append(d) }
        for target in targets {
            try seek(stream: stream, toKeyframeAtOrBefore: target)
            if try !landsPast(key, stream: stream, packet: packet) {
                try seek(stream: stream, toKeyframeAtOrBefore: target)
                return key
            }
        }
        try seek(stream: stream, toKeyframeAtOrBefore: nil)
        return key
    }

    /// Whether the next packet of `stream` comes after `key` in decode order (the end of the
    /// file too); false when decode times cannot tell (the reader's own check then applies).
    private func landsPast(_ key: KeyframeIndex.Packet, stream: Int32, packet: Packet) throws -> Bool {
        while try read(into: packet) {
            defer { packet.unref() }
            let p = packet.pointer.pointee
            guard p.stream_index == stream else { continue }
            guard let d = key.dts, p.dts != NOPTS else { return false }
            return p.dts > d
        }
        return true
    }

    /// Reads every packet of `stream` once, in decode order, without decoding (other streams'
    /// packets are not even read into memory), and leaves the demuxer at the start again.
    func indexPackets(of stream: Int32, into packet: Packet) throws -> [KeyframeIndex.Packet] {
        let ctx = context
        var saved: [AVDiscard] = []
        for i in 0..<Int(ctx.pointee.nb_streams) {
            let st = ctx.pointee.streams[i]!
            saved.append(st.pointee.discard)
            if Int32(i) != stream { st.pointee.discard = AVDISCARD_ALL }
        }
        defer { for i in saved.indices { ctx.pointee.streams[i]!.pointee.discard = saved[i] } }
        var packets: [KeyframeIndex.Packet] = []
        while try read(into: packet) {
            defer { packet.unref() }
            let p = packet.pointer.pointee
            guard p.stream_index == stream else { continue }
            packets.append(
                KeyframeIndex.Packet(
                    pts: p.pts == NOPTS ? nil : p.pts, dts: p.dts == NOPTS ? nil : p.dts,
                    duration: p.duration, keyframe: (p.flags & AV_PKT_FLAG_KEY) != 0,
                    discard: (p.flags & AV_PKT_FLAG_DISCARD) != 0))
        }
        try seek(stream: stream, toKeyframeAtOrBefore: nil)
        return packets
    }
}
