/// What an output's telemetry track is: the kind (its sample entry), the handler name readers
/// find it by, and the container tag that names the camera.
public struct TelemetryTrackFormat: Equatable, Sendable {
    public var kind: TelemetryTrackKind
    /// "GoPro MET": what GoPro's tools, telemetry-parser and Lockstep's own reader look for.
    public var handlerName: String
    /// GoPro's `firmware` tag ("HD5.02.00.00.00"): the model, which a HERO5's or HERO6's
    /// payloads do not name (and the model decides how the IMU's axes become the camera's).
    public var firmware: String?

    public init(kind: TelemetryTrackKind, handlerName: String, firmware: String? = nil) {
        self.kind = kind; self.handlerName = handlerName; self.firmware = firmware
    }

    /// Why an output cannot carry this track, or nil. FFmpeg's MP4/MOV muxer (libavformat 59,
    /// movenc.c) writes a `gpmd` sample entry, a `meta` handler and a `gmhd` header for a data
    /// stream tagged `gpmd`, but has no sample entry for `camm`: the MP4 muxer refuses the stream
    /// ("Could not find tag for codec none"), the MOV muxer writes an empty sample description
    /// that no reader takes.
    public var unwritable: String? {
        kind == .camm ? "FFmpeg's MP4 muxer cannot write a CAMM (camm) sample entry" : nil
    }
}

/// A movie's telemetry track as an output carries it: its format and its packets as stored
/// (bytes untouched), each timed on the movie's video clock (seconds from its first frame).
public struct CarriedTelemetry: Sendable {
    public var path: String
    public var format: TelemetryTrackFormat
    public var packets: [TelemetryTrackPacket]

    public init(path: String, format: TelemetryTrackFormat, packets: [TelemetryTrackPacket]) {
        self.path = path; self.format = format; self.packets = packets
    }

    /// `path`'s GPMF or CAMM track, nil when it has none. Throws (one line naming the file) when
    /// the movie or its track cannot be read.
    public static func read(path: String) throws -> CarriedTelemetry? {
        guard let demuxer = try TelemetryDemuxer.open(path: path) else { return nil }
        let format = TelemetryTrackFormat(
            kind: demuxer.kind, handlerName: demuxer.handlerName ?? (demuxer.kind == .gpmf ? "GoPro MET" : "CameraMetadataMotionHandler"),
            firmware: demuxer.containerTags["firmware"])
        return CarriedTelemetry(path: path, format: format, packets: try demuxer.packets())
    }

    /// The packets of the source from `start` on (seconds on its video clock), moved so that
    /// `start` falls at `offset` on the output's clock.
    ///
    /// Packets that begin at or after `start` are kept whole. The one that straddles it (begins
    /// before, ends after) is given to `trimFront` with how far into it the cut lies: the bytes it
    /// returns (the payload without its samples before the cut: `GPMFTrim`) begin at `offset`
    /// and last to the packet's end; nil drops the packet. It cannot stay whole, beginning
    /// before the output's 0: FFmpeg's demuxer snaps an edit list that starts inside a data
    /// sample to the next sample (the whole payload read a payload early) and telemetry-parser
    /// ignores edit lists. Where the output's picture ends is the writer's to apply: it drops the
    /// packets that begin at or after its last frame's end.
    public func cut(
        from start: Double, placedAt offset: Double = 0, trimFront: (TelemetryTrackPacket, Double) -> [UInt8]? = { _, _ in nil }
    ) -> [TelemetryTrackPacket] {
        // Within a microsecond of the start is at the start (a source's millisecond timescale).
        let slack = 1e-6
        return packets.compactMap { p in
            var q = p
            if p.time >= start - slack {
                q.time = max(p.time - start, 0) + offset
                return q
            }
            guard p.time + p.duration > start + slack, let bytes = trimFront(p, start - p.time) else { return nil }
            q.bytes = bytes
            q.time = offset
            q.duration = p.time + p.duration - start
            return q
        }
    }
}
