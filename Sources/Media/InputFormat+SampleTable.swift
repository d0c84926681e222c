import CFFmpeg
import Compositor

/// A stream's packet records from the container's own index, when it lists every sample with
/// the timestamps `av_read_frame` would give: the packet pass (`indexPackets`) without reading
/// a byte of sample data.
extension InputFormat {
    /// The records an MP4/MOV's sample table gives for `stream`, equal to what reading every
    /// packet gives, or nil where the table cannot stand in for reading: another container
    /// (Matroska keeps no per-frame index), an index shorter than the stream's frame count or
    /// pointing past the end of the file (a cut file: the packet pass says so), a fragmented
    /// file, a FIFO, or composition offsets (`ctts`, B-frames) that `MP4Boxes` cannot read or
    /// that do not match the index one to one. Edit lists need nothing special: mov.c marks the
    /// samples an edit cuts `AVINDEX_DISCARD_FRAME` in the index, as it marks their packets
    /// `AV_PKT_FLAG_DISCARD`, and shifts the index's decode times as it shifts the packets'.
    func sampleTablePackets(of stream: Int32) -> [KeyframeIndex.Packet]? {
        let ctx = context
        guard fifo < 0, containerName.hasPrefix("mov,"), let pb = ctx.pointee.pb,
            (pb.pointee.seekable & AVIO_SEEKABLE_NORMAL) != 0
        else { return nil }
        let st = self.stream(stream)
        let count = avformat_index_get_entries_count(st)
        guard count > 0, Int64(count) == st.pointee.nb_frames,
            let offsets = MP4Boxes.compositionOffsets(path: path, trackID: st.pointee.id, sampleCount: Int(count))
        else { return nil }
        let fileSize = avio_size(pb)
        switch offsets {
        case .none:
            return Self.tableRecords(st, count: Int(count), fileSize: fileSize, ctts: nil)
        case .perSample(let perSample, let shift):
            // Interlaced H.264 gets each packet's duration from the parser's repeat_pict
            // (field pairs, pulldown), which the table cannot know: read the packets.
            let fields = st.pointee.codecpar.pointee.field_order
            guard fields == AV_FIELD_PROGRESSIVE || fields == AV_FIELD_UNKNOWN else { return nil }
            return Self.tableRecords(st, count: Int(count), fileSize: fileSize, ctts: (perSample, shift, Self.guessedDuration(st)))
        }
    }

    /// The index's entries as packet records. Without `ctts` (mov.c's mov_read_packet): pts =
    /// dts, and the duration is the step to the next sample's decode time, the last one's to
    /// the stream's end. With it: pts = dts + dts_shift + the sample's offset, and mov.c sets no
    /// duration, so the packet gets the generic one (`guessedDuration`). Entry i is sample i
    /// only when the index is the track's samples in file order; an edit list that repeats or
    /// reorders samples breaks that, so positions must increase (else nil: read packets).
    private static func tableRecords(
        _ st: UnsafeMutablePointer<AVStream>, count: Int, fileSize: Int64,
        ctts: (offsets: [Int32], shift: Int64, duration: Int64)?
    ) -> [KeyframeIndex.Packet]? {
        var packets: [KeyframeIndex.Packet] = []
        packets.reserveCapacity(count)
        var next = avformat_index_get_entry(st, 0)!.pointee
        var lastPos: Int64 = -1
        for i in 0..<count {
            let e = next
            // Positions and times are the file's words (a `co64` offset, an edit's media time):
            // compared and added without overflow, anything out of reach read as packets.
            guard e.size > 0, e.pos >= 0, fileSize <= 0 || Int64(e.size) <= fileSize - e.pos else { return nil }
            if i + 1 < count { next = avformat_index_get_entry(st, Int32(i + 1))!.pointee }
            let keyframe = (e.flags & AVINDEX_KEYFRAME) != 0, discard = (e.flags & AVINDEX_DISCARD_FRAME) != 0
            if let ctts {
                guard e.pos > lastPos else { return nil }
                lastPos = e.pos
                let (pts, overflow) = e.timestamp.addingReportingOverflow(ctts.shift + Int64(ctts.offsets[i]))
                guard !overflow else { return nil }
                packets.append(KeyframeIndex.Packet(pts: pts, dts: e.timestamp, duration: ctts.duration, keyframe: keyframe, discard: discard))
            } else {
                let nextDTS = i + 1 < count ? next.timestamp : st.pointee.duration
                let (step, overflow) = nextDTS.subtractingReportingOverflow(e.timestamp)
                guard nextDTS == NOPTS || !overflow else { return nil }
                packets.append(
                    KeyframeIndex.Packet(
                        pts: e.timestamp, dts: e.timestamp,
                        duration: nextDTS != NOPTS && nextDTS >= e.timestamp ? step : 0,
                        keyframe: keyframe, discard: discard))
            }
        }
        return packets
    }

    /// The duration libavformat gives a video packet its demuxer left without one (mov.c sets
    /// none when the track has `ctts`; demux.c's compute_pkt_fields then asks
    /// ff_compute_frame_duration): one frame at `r_frame_rate`, rounded down in the stream's
    /// time base, or 0. Equal to the packet pass for every fixture of `SampleTableIndexTests`
    /// (x264, x265, MPEG-2, MPEG-4, constant and variable rate); where it is not (a codec frame
    /// rate unlike the container's, read by the H.264 parser), only durations differ, of which
    /// the index keeps the last frame's; never a pts or a keyframe.
    static func guessedDuration(_ st: UnsafeMutablePointer<AVStream>) -> Int64 {
        let rate = st.pointee.r_frame_rate, tb = st.pointee.time_base
        guard rate.num > 0, rate.den > 0, tb.num > 0, tb.den > 0 else { return 0 }
        return av_rescale_rnd(1, Int64(rate.den) * Int64(tb.den), Int64(rate.num) * Int64(tb.num), AV_ROUND_DOWN)
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

    /// The frames' durations as an MP4/MOV's sample table lists them (the steps between decode
    /// times, `stts`: every sample's, an edit list's hidden ones too, since they are frames of the
    /// same camera); nil for other containers or an index that does not list every frame.
    func sampleSteps(of stream: Int32) -> [Rational]? {
        let st = self.stream(stream)
        guard containerName.hasPrefix("mov,") else { return nil }
        let count = avformat_index_get_entries_count(st)
        guard count >= 2, Int64(count) == st.pointee.nb_frames else { return nil }
        let tb = st.pointee.time_base.rational
        var steps: [Rational] = []
        steps.reserveCapacity(Int(count) - 1)
        var previous = avformat_index_get_entry(st, 0)!.pointee.timestamp
        for i in 1..<count {
            let t = avformat_index_get_entry(st, i)!.pointee.timestamp
            let (step, overflow) = t.subtractingReportingOverflow(previous)
            guard !overflow, step > 0, let r = tb.multiplied(by: step) else { return nil }
            steps.append(r)
            previous = t
        }
        return steps
    }

    /// Where a stream's packet records come from: the sample table, or a pass over every packet.
    func keyframePackets(of stream: Int32, into packet: Packet) throws -> (packets: [KeyframeIndex.Packet], source: KeyframeIndex.Source) {
        if let table = sampleTablePackets(of: stream) { return (table, .sampleTable) }
        return (try indexPackets(of: stream, into: packet), .packetPass)
    }
}
