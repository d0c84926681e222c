import Compositor

/// A video stream's frames in presentation order and where decoding can start, known from its
/// packets alone (no decoding): what seeking backwards needs. Two numbers per frame (16 bytes
/// kept, about 64 while it is built), never a picture: an hour at 60 fps keeps about 3.5 MB.
///
/// Segment j holds the frames from keyframe j up to (not including) keyframe j + 1, in
/// presentation order. Decoding from keyframe j yields every frame of segment j (an IDR, or a
/// recovery point whose leading pictures belong to segment j - 1). Frames shown before the
/// first keyframe (a stream cut in an open GOP) form segment 0, decoded from the stream's start.
public struct KeyframeIndex: Equatable, Sendable {
    /// One video packet as the demuxer gave it, in decode order; `pts` and `dts` are in the
    /// stream's time base, NOPTS as nil.
    public struct Packet: Equatable, Sendable {
        public var pts: Int64?
        public var dts: Int64?
        public var duration: Int64
        public var keyframe: Bool
        /// Decoded but never shown: before or after an MP4 edit list's range (mov.c's
        /// `AV_PKT_FLAG_DISCARD`; the decoder drops the picture). Not a frame of the index.
        public var discard: Bool
        public init(pts: Int64?, dts: Int64?, duration: Int64, keyframe: Bool, discard: Bool = false) {
            self.pts = pts; self.dts = dts; self.duration = duration; self.keyframe = keyframe; self.discard = discard
        }
    }

    /// Where the packet records came from.
    public enum Source: Equatable, Sendable {
        /// The container's sample table (MP4/MOV, with `ctts` offsets read from the file): no packet read.
        case sampleTable
        /// One pass over every video packet, without decoding (Matroska, fragmented MP4, anything else).
        case packetPass
    }

    public let timeBase: Rational
    /// Every frame's pts, presentation order (strictly increasing).
    public let pts: [Int64]
    /// Every frame's duration: the step to the next frame; for the last one its packet's
    /// duration, or else the step before it.
    public let durations: [Int64]
    /// The last frame's packet duration as the file gives it (0: none), which the decoder hands
    /// on as that picture's duration (`durations` fills a missing one in with the step before).
    public let lastPacketDuration: Int64
    /// Every shown packet has a decode time and each is later than the one before: the frames
    /// come out of the decoder in the order `pts` lists them. False for a file whose clock goes
    /// back (two recordings joined), where the decoder's order is not the sorted one.
    public let decodeTimesIncrease: Bool
    /// The first frame of every segment (presentation indices, increasing, starting at 0).
    public let segmentStarts: [Int]
    /// Per segment, the keyframe packet decoding starts from (nil for a segment 0 that starts
    /// before the first keyframe: decode from the stream's start).
    public let seekPoints: [Packet?]

    public var frameCount: Int { pts.count }

    public enum Problem: Error, Equatable, Sendable {
        case noFrames
        /// A packet with neither pts nor dts: its place in presentation order is unknown.
        case noTimestamp(packet: Int)
        /// Two packets with the same presentation time.
        case repeatedTimestamp(Int64)
        /// A packet whose pts or dts is beyond +-`timestampLimit`: the steps between frames and
        /// the seek targets could not be computed (a file's word: a Matroska cluster time near
        /// 2^64 reads as a large negative pts).
        case timestampOutOfRange(packet: Int, value: Int64)
    }

    /// Every pts and dts is within +-2^61 ticks (73 years at 1 ns, 800 000 years at 1/90000 s), so
    /// the step between any two, and a time plus half a step, cannot overflow.
    public static let timestampLimit: Int64 = 1 << 61

    /// The index of packets read in decode order (discarded ones are passed over: decoding from
    /// the start never shows them, so frame k is the k-th picture shown). Throws `Problem`
    /// when presentation order cannot be known.
    public init(packets: [Packet], timeBase: Rational) throws {
        self.timeBase = timeBase
        guard packets.contains(where: { !$0.discard }) else { throw Problem.noFrames }
        var order: [(pts: Int64, packet: Int)] = []
        order.reserveCapacity(packets.count)
        for (i, p) in packets.enumerated() where !p.discard {
            guard let t = p.pts ?? p.dts else { throw Problem.noTimestamp(packet: i) }
            for v in [p.pts, p.dts].compactMap({ $0 }) where !(-Self.timestampLimit...Self.timestampLimit).contains(v) {
                throw Problem.timestampOutOfRange(packet: i, value: v)
            }
            order.append((t, i))
        }
        order.sort { $0.pts < $1.pts }
        for k in order.indices.dropFirst() where order[k].pts == order[k - 1].pts {
            throw Problem.repeatedTimestamp(order[k].pts)
        }
        pts = order.map(\.pts)
        var durations = [Int64](repeating: 0, count: order.count)
        for k in order.indices.dropLast() { durations[k] = order[k + 1].pts - order[k].pts }
        let last = packets[order[order.count - 1].packet].duration
        durations[order.count - 1] = last > 0 ? last : (order.count > 1 ? durations[order.count - 2] : 1)
        self.durations = durations
        lastPacketDuration = max(0, last)
        var increasing = true, previous: Int64?
        for p in packets where !p.discard {
            guard let d = p.dts, previous.map({ d > $0 }) ?? true else { increasing = false; break }
            previous = d
        }
        decodeTimesIncrease = increasing
        var starts: [Int] = [], seeks: [Packet?] = []
        for (k, entry) in order.enumerated() where packets[entry.packet].keyframe {
            starts.append(k); seeks.append(packets[entry.packet])
        }
        if starts.first != 0 { starts.insert(0, at: 0); seeks.insert(nil, at: 0) }
        segmentStarts = starts
        seekPoints = seeks
    }

    /// The timestamp a demuxer's seek needs to land on segment `j`'s keyframe (nil: segment 0
    /// before any keyframe, decoded from the start). Most demuxers search decode times: the
    /// keyframe's dts. mov.c (`presentationTimes`) takes a pts and subtracts its own shift
    /// (min_corrected_pts + dts_shift, not public) before searching decode times, so neither
    /// the keyframe's dts (lands a GOP early with B-frames: x264's keyframe dts is 2 frames
    /// before its pts and the shift is 2 frames) nor its pts (early in a B-frame file cut with
    /// an edit list, where the shift is 5 frames) is safe: half way to the next keyframe's
    /// decode time is, for any shift below half a GOP. Landing early costs reading a GOP;
    /// landing late is caught as an error by the reader.
    public func seekTarget(ofSegment j: Int, presentationTimes: Bool) -> Int64? {
        guard let key = seekPoints[j] else { return nil }
        guard presentationTimes, let pts = key.pts, let dts = key.dts else { return key.dts ?? key.pts! }
        let nextDTS = seekPoints[(j + 1)...].lazy.compactMap { $0?.dts }.first
        if let nextDTS, nextDTS > dts { return pts + (nextDTS - dts) / 2 }
        return Swift.max(pts, self.pts[self.pts.count - 1])  // no keyframe after it: any later time lands there
    }

    /// Presentation index of the frame with this pts, if there is one.
    public func frame(withPTS t: Int64) -> Int? {
        var lo = 0, hi = pts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if pts[mid] < t { lo = mid + 1 } else { hi = mid }
        }
        return lo < pts.count && pts[lo] == t ? lo : nil
    }

    /// The segment holding presentation frame `index`.
    public func segment(of index: Int) -> Int {
        var lo = 0, hi = segmentStarts.count
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if segmentStarts[mid] <= index { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// The frames of segment j.
    public func frames(ofSegment j: Int) -> Range<Int> {
        segmentStarts[j]..<(j + 1 < segmentStarts.count ? segmentStarts[j + 1] : pts.count)
    }

    /// The longest segment, in frames: a whole GOP.
    public var longestSegment: Int { segmentStarts.indices.map { frames(ofSegment: $0).count }.max() ?? 0 }

    /// The step when every frame lasts the same, or nil: variable frame rate.
    public var constantStep: Int64? {
        guard let first = durations.first else { return nil }
        return durations.allSatisfy { $0 == first } ? first : nil
    }

    /// The frame rate when the frames are evenly spaced: the exact step's, or else `nominal`
    /// (the stream's declared rate) when every frame is within one tick of its place at that
    /// rate (a container that rounds times, Matroska's 1 ms, makes 24 fps steps of 41 and 42 ms).
    /// nil: a variable frame rate.
    public func constantRate(nominal: Rational?) -> Rational? {
        if let step = constantStep { return (timeBase * step).inverse }
        guard let fps = nominal, fps.num > 0 else { return nil }
        for k in pts.indices {
            let ideal = Rational.rescale(Int64(k), from: fps.inverse, to: timeBase)
            if abs(pts[k] - pts[0] - ideal) > 1 { return nil }
        }
        return fps
    }
}
