import Compositor
import Foundation
import Media

/// Joins clips without re-encoding their video: each clip's packets are copied as stored, their
/// times moved so that clip k + 1 starts where clip k's video ends (its last pts plus that
/// packet's duration); the audio of every clip is decoded and encoded once, placed exactly as
/// the re-encoding path places it (`ConcatAudio`), so the joins stay sample-exact. (AAC joined by
/// copy would gain the encoder's priming and padding at every join: 1664 samples, 34.7 ms.)
///
/// Possible only when every clip has the same `CopyParameters` and starts with a keyframe:
/// anything else is refused before a byte is written, naming the clip and the difference.
/// A library function (a list of files in, one file out) so that scale-out can join its pieces.
public enum ConcatCopy {
    /// What the joined packets say about their frames: `perClip` writes concat's own record (clip
    /// and source frame) into each packet, replacing any earlier one; `kept` leaves the packets'
    /// records as they are (segments of one render already carry the single pass's global k).
    public enum JoinProvenance: Sendable { case perClip, kept }

    /// Opens every clip's video packets and checks that they can be joined by copy.
    public static func check(_ clips: [String], cancellation: CancellationToken = CancellationToken()) throws -> [VideoPacketReader] {
        let readers = try clips.map { try VideoPacketReader(path: $0, cancellation: cancellation) }
        for r in readers {
            guard r.startsWithKeyframe else {
                throw MediaError("cannot be joined by copy: it does not start with a keyframe", path: r.path)
            }
            if let why = r.parameters.mismatch(against: readers[0].parameters) {
                throw MediaError("cannot be joined by copy to \(readers[0].path): \(why)", path: r.path)
            }
        }
        return readers
    }

    /// Writes the join of `clips` to `path` (the caller's temporary: it is left behind on failure
    /// for the caller to remove). `progress` gets the packets copied so far.
    public static func join(
        _ clips: [String], into path: String, container: String, audioBitRate: Int = EncodeSettings().audioBitRate,
        provenance: JoinProvenance = .perClip,
        cancellation: CancellationToken = CancellationToken(),
        progress: (Int64) -> Void = { _ in }
    ) throws -> ConcatResult {
        let videos = try check(clips, cancellation: cancellation)
        let audios = try clips.map { path -> MovieReader? in
            let r = try MovieReader(path: path, audio: true, cancellation: cancellation)
            r.decodesVideo = false
            return r.audio != nil ? r : nil
        }
        let withAudio = audios.contains { $0 != nil }
        // One camera's chapters keep their telemetry, continuous (ConcatTelemetry.swift).
        let telemetry = try ConcatTelemetry.read(clips, keepsTime: true)
        let writer = try PacketCopyWriter(
            path: path, container: container, template: videos[0], withAudio: withAudio, audioBitRate: audioBitRate,
            telemetry: telemetry.kept?.first?.format)
        let outTb = writer.videoTimeBase
        // Provenance (H.264): each packet's frame is named by its place in its clip's
        // presentation order, which a first pass over the packets (nothing decoded) gives.
        let order = writer.h264Framing == nil || provenance == .kept ? nil : try clips.map { try presentationOrder(of: $0, cancellation: cancellation) }
        let rate = videos[0].frameRate ?? Rational(0, 1)
        let header = Provenance.header(
            sync: ConcatCheck.sync, frameRate: rate,
            inputs: videos.enumerated().map { k, v in
                Provenance.Input(path: v.path, timeBase: v.timeBase, audio: audios[k] != nil, frames: order.map { Int64($0[k].count) })
            })
        var clipStart: Int64 = 0  // output frames before the current clip
        let sampleTime = Rational(1, Int64(AudioFormat.sampleRate))
        func samples(_ t: Rational) -> Int64 { Rational.rescale(1, from: t, to: sampleTime) }
        let audio = withAudio ? ConcatAudio(fadeSamples: 0) { try writer.writeAudio(left: $0, right: $1, count: $2) } : nil
        let scratch = Frame()
        var start = Rational(0, 1)  // output time where the current clip starts
        var clipFrames: [Int64] = []
        var written: Int64 = 0
        for (k, video) in videos.enumerated() {
            let tb = video.timeBase
            let lane = audios[k].map { _ in AudioLane() }
            var first: Int64?, end: Int64 = .min
            // Times stored rounded (Matroska's 1 ms) go back onto the frame rate's grid.
            let grid = video.frameRate.flatMap { PacketCopyWriter.holdsFrameGrid(tb, rate: $0) ? nil : $0 }
            func local(_ t: Int64) -> Rational { snap(tb * (t - first!), to: grid, within: tb) }
            var audioEnded = false
            /// Decodes the clip's audio until it covers `local` (its own output clock) or ends.
            func pull(until local: Int64) throws {
                guard let lane, let reader = audios[k] else { return }
                while !audioEnded && lane.readyUntil < local {
                    if try reader.next(into: scratch, audioSink: { lane.append($0) }) == .end { lane.finish(); audioEnded = true }
                }
            }
            var begun = false
            while let p = try video.next() {
                if first == nil {
                    // The stream's first presentation time; B-frames put later pts first in
                    // decode order, the edit list's start_time is the earliest.
                    first = video.startTime ?? p.pts
                    lane?.setOrigin(Rational.rescale(first!, from: tb, to: sampleTime))
                    audio?.begin(lane, at: samples(start))
                    if let kept = telemetry.kept { writer.carryTelemetry(kept[k].cut(from: 0, placedAt: start.seconds), from: start.seconds) }
                    begun = true
                }
                func out(_ t: Int64) -> Int64 { Rational.rescale(1, from: start + local(t), to: outTb) }
                var userData: [UInt8]?
                if let order {
                    guard let shown = Self.index(of: p.pts, in: order[k]) else {
                        throw MediaError("video packet \(video.packetsRead - 1) was not there on the first pass", path: video.path)
                    }
                    var record = clipStart + Int64(shown) == 0 ? header : Provenance(k: 0, src: [])
                    record.k = clipStart + Int64(shown)
                    record.clip = k
                    record.src = [[Int64(shown), p.pts]]
                    userData = record.payload()
                }
                try writer.copy(
                    from: video, pts: out(p.pts), dts: out(p.dts), duration: Rational.rescale(p.duration, from: tb, to: outTb),
                    userData: userData)
                end = max(end, p.pts + max(p.duration, 0))
                written += 1
                progress(written)
                let decoded = samples(local(p.dts))
                try pull(until: decoded)
                try audio?.writeAvailable(until: samples(start) + decoded)
            }
            guard begun, first != nil else { throw MediaError("has no video frame to join", path: video.path) }
            let clipEnd = start + local(end)
            try pull(until: samples(clipEnd) - samples(start))
            lane?.finish()
            try audio?.finish(at: samples(clipEnd), join: k + 1 < videos.count)
            clipFrames.append(video.packetsRead)
            clipStart += video.packetsRead
            start = clipEnd
        }
        try writer.finish()
        return ConcatResult(
            frames: written, audioSamples: withAudio ? samples(start) : nil, canvas: videos[0].parameters.size,
            frameRate: rate, clipFrames: clipFrames, notices: telemetry.notice.map { [$0] } ?? [])
    }

    /// Every video packet's pts of the clip at `path`, sorted: presentation order.
    static func presentationOrder(of path: String, cancellation: CancellationToken) throws -> [Int64] {
        let reader = try VideoPacketReader(path: path, cancellation: cancellation)
        var pts: [Int64] = []
        while let p = try reader.next() { pts.append(p.pts) }
        return pts.sorted()
    }

    /// The place of `pts` in sorted `order` (binary search), nil if absent.
    static func index(of pts: Int64, in order: [Int64]) -> Int? {
        var lo = 0, hi = order.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if order[mid] < pts { lo = mid + 1 } else { hi = mid }
        }
        return lo < order.count && order[lo] == pts ? lo : nil
    }
}

/// `t` moved onto the grid of `rate` (k / rate) when it lies within `tick` of a grid point:
/// a time the container rounded (33 ms for 1/30 s). Unchanged without a rate or off the grid.
func snap(_ t: Rational, to rate: Rational?, within tick: Rational) -> Rational {
    guard let rate else { return t }
    let k = Rational.rescale(1, from: t * rate, to: Rational(1, 1))
    let onGrid = rate.inverse * k
    let d = onGrid < t ? t - onGrid : onGrid - t
    return d <= tick ? onGrid : t
}
