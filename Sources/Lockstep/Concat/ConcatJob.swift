import Compositor
import Foundation
import Media
import NIOConcurrencyHelpers

/// Joins clips end to end (`lockstep concat`), each fitted to the canvas as `composite` fits its
/// inputs (its lane's Conformer: scale, turn, margins). Output frame k has pts k/fps.
///
/// By time (the default): each clip keeps its duration and its sync. Clip c's time 0 lies at
/// output time S_c, S_0 = 0 and S_c+1 = S_c + the clip's length (its last frame's end, or where
/// its container says its stream ends: an edit list); output tick k shows the clip frame on
/// screen at k/fps - S_c (`FrameSync` with the clip placed at S_c): frames dropped or repeated
/// as time says, each recorded with the time it is on screen until, so `verify` can prove it.
/// Clip c's audio fills output samples [S_c, S_c+1) x 48000 on the same mapping, so it stays on
/// its picture to the sample. `keepFrames`: every source frame once, in order (a clip at
/// another rate plays faster or slower; its audio is cut or padded to its video).
///
/// The audio is each clip's own, placed as `ConcatAudio` says, and ends exactly with the video.
/// With a cap the output stops at the last whole frame at or before it, and the audio at the
/// same instant.
///
/// Threads: `run()` on the caller's thread (it encodes), one reader thread per clip, at most two
/// at once (the current clip and the next, decoding ahead). `cancel()` may come from any thread.
public final class ConcatJob: Job {
    public let options: ConcatOptions
    /// Progress after each output frame (frames done, frames expected); each notice
    /// (`ConcatResult.notices`) as soon as it is known.
    private let events: JobEvents
    private let failure = FailureBox()
    private let cancellation = CancellationToken()
    /// The clips' readers, once made (so that `cancel()` reaches them).
    private let lanes = NIOLockedValueBox<[InputLane]>([])

    public init(options: ConcatOptions, events: JobEvents = JobEvents()) { self.options = options; self.events = events }

    public func cancel() { stop(because: JobError.cancelled) }

    /// The first failure wins (a cancel, or the watchdog's sentence); every reader is stopped.
    private func stop(because error: Error) {
        failure.record(error)
        cancellation.cancel()
        for l in lanes.withLockedValue({ $0 }) { l.cancel() }
    }

    public func run() throws -> ConcatResult {
        try options.check()
        try OutputPath.check(options.output, inputs: options.clips)
        return try OutputPath.writing(to: options.output) { file in options.copy ? try runCopy(file) : try run(file) }
    }

    private func run(_ file: OutputPath) throws -> ConcatResult {
        var notices: [String] = []

        // Every clip is opened first: one that is not a movie, or has no video, fails before
        // anything is encoded.
        // A stop signal during the opens cancels them: that is the stop, not the clip's fault.
        let readers: [MovieReader]
        do { readers = try options.clips.map { try MovieReader(path: $0, audio: true, cancellation: cancellation) } } catch {
            throw failure.error ?? error
        }
        if let error = failure.error { throw error }
        for r in readers { r.deinterlace(options.deinterlace) }
        let first = readers[0]
        let canvas = options.size ?? first.video.displaySize.evenCanvas
        if options.size == nil, let problem = EncodeSettings.problem(encoding: canvas, as: options.signal, codec: options.encode.codec) {
            throw OutputOptionsError.canvasNotEncodable(canvas: "\(canvas)", from: "\(first.path)'s picture", problem: problem)
        }
        if let line = ToneMapping.notice(readers.map { ($0.path, $0.video) }, signal: options.signal, curve: options.toneCurve) { events.notice?(line); notices.append(line) }
        guard let frameRate = options.frameRate ?? CompositeJob.defaultFrameRate(readers) else {
            throw MediaError("no frame rate in the file; give one with --fps", path: first.path)
        }
        var maxFrames = options.maxDuration.map { ConcatOptions.frames(within: $0, frameRate: frameRate) } ?? .max
        guard maxFrames > 0 else {
            throw ConcatError.maxDurationUnderAFrame(ConcatOptions.text(options.maxDuration!), frameRate: "\(frameRate)")
        }
        // `--from/--to`: output frames [A, B) of the joined timeline, as every command cuts. The
        // clips wholly before A are not read (each one's place from its frames' times,
        // `ConcatStart`), the one holding A starts at the keyframe before A's frame and decodes
        // forward; the frames before A are let go, the sound before A's first sample dropped.
        let range = options.frames ?? options.cut.map { FrameRange($0, frameRate: frameRate) }
        let firstK = range?.start ?? 0
        if let end = range?.end { maxFrames = min(maxFrames, end) }
        // Before any thread starts: a .cube that cannot be read stops the job here.
        let filters = try options.filter.map { try FilterStage(schedule: $0, canvas: canvas) }
        // The filtered picture: the lanes' pool frames keep their margins from one use to the next.
        let filtered = try filters.map { _ in try Frame(width: canvas.width, height: canvas.height) }
        let stamp = ProvenanceStamp(width: canvas.width, height: canvas.height)
        let lanes = try readers.enumerated().map { k, r in
            let layout = Layout(blend: .single, canvas: canvas, inputs: [r.video.displaySize])
            let conformer: Conformer
            do {
                conformer = try Conformer(
                    place: canvas, picture: layout.pictures[0], fill: .black, rotation: r.video.rotation,
                    color: ColorOptions(working: options.signal, toneCurve: options.toneCurve, metadata: r.video.color.hdr))
            } catch let e as MediaError { throw e.at(r.path) }
            return InputLane(index: k, reader: r, conformer: conformer, poolSize: 4, failure: failure)
        }
        self.lanes.withLockedValue { $0 = lanes }
        // Lanes started and not yet joined: on the way out (a failure, or the cap leaving the
        // next clip decoding ahead) they are stopped and waited for, briefly.
        var running = Set<Int>()
        func start(_ k: Int) { lanes[k].start(); running.insert(k) }
        defer {
            for l in lanes { l.cancel() }
            for k in running.sorted() { _ = lanes[k].join(timeout: 1) }
        }
        if let error = failure.error { throw error }
        let withAudio = readers.contains { $0.audio != nil }
        let byTime = !options.keepFrames
        let fade = Int64(options.crossfadeMs ?? 0) * Int64(AudioFormat.sampleRate) / 2000
        let begin = try Self.start(lanes, paths: options.clips, from: firstK, sync: byTime ? .time : .index, frameRate: frameRate, fadeSamples: fade)
        let seek = begin.plan.seek

        // One camera's chapters keep their telemetry, continuous (ConcatTelemetry.swift).
        let telemetry = try ConcatTelemetry.read(options.clips, keepsTime: !options.keepFrames)
        if let line = telemetry.notice { events.notice?(line); notices.append(line) }
        let writer = try MovieWriter(
            path: file.path, container: OutputPath.container(for: options.output), canvas: canvas,
            frameRate: frameRate, settings: try ToneMapping.settings(options.encode, signal: options.signal, inputs: readers.map { ($0.path, $0.video) }), withAudio: withAudio,
            telemetry: telemetry.kept?.first?.format)
        func samples(_ frames: Int64) -> Int64 {
            AudioTimeline.samples(coveringFrames: frames, frameRate: frameRate, sampleRate: AudioFormat.sampleRate)
        }
        func sample(_ t: Rational) -> Int64 { Rational.rescale(1, from: t, to: Rational(1, Int64(AudioFormat.sampleRate))) }
        // The joined sound goes to the file from the cut's first sample on: after a seek it is
        // made from there, else from the first clip read's start with what lies before the cut
        // dropped.
        let audioFrom = samples(firstK)
        var audioAt: Int64 = seek != nil ? audioFrom : byTime ? sample(begin.plan.starts.last!) : samples(begin.plan.firstTicks.last!)
        let audio =
            withAudio
            ? ConcatAudio(fadeSamples: fade, start: audioAt) { l, r, n in
                let skip = Int(max(0, min(Int64(n), audioFrom - audioAt)))
                audioAt += Int64(n)
                if skip < n { try writer.writeAudio(left: l + skip, right: r + skip, count: n - skip) }
            } : nil
        var header = Provenance.header(
            sync: ConcatCheck.sync, frameRate: frameRate,
            inputs: readers.map { r in
                var input = Provenance.Input(
                    path: r.path, timeBase: r.video.timeBase, audio: r.audio != nil,
                    frames: r.video.shownFrames ?? r.video.indexedFrames)
                if byTime, let d = r.video.duration { input.duration = Provenance.fraction(d) }
                return input
            })
        if byTime { header.timing = ConcatCheck.byTime }
        let expected =
            byTime
            ? Self.expectedFrames(readers, frameRate: frameRate).map { max(0, min($0, maxFrames) - firstK) }
            : Self.expectedFrames(readers).map { max(0, min($0, maxFrames) - firstK) }
        if !byTime, let line = KeepFramesNotice.line(readers, frameRate: frameRate, noun: "clip") { events.notice?(line); notices.append(line) }
        // After a seek the clip's ticks start at the cut's first; else at the first clip read's.
        var emitted: Int64 = seek != nil ? firstK : begin.plan.firstTicks.last!
        var clipFrames: [Int64] = []
        /// Output time of the current clip's time 0 (by time).
        var clipStart = begin.plan.starts.last!
        // This thread fits nothing itself (the lanes do): it waits for clips and encodes.
        let encoderClock = ThreadClock(name: "the encoder")
        let watchdog = Watchdog(clocks: lanes.map(\.clock) + [encoderClock], timeout: options.stallTimeout) {
            [weak self] in self?.stop(because: $0)
        }
        watchdog.start()
        defer { watchdog.stop() }
        start(begin.plan.clip)
        for (k, lane) in lanes.enumerated() {
            // This clip's telemetry from its time 0, placed where that lies in the output (a
            // cut's output starting at its first frame's time on the joined timeline).
            if let kept = telemetry.kept {
                let at = k < begin.plan.clip ? begin.plan.starts[k] : clipStart
                let cutStart = (frameRate.inverse * firstK).seconds
                writer.carryTelemetry(ConcatTelemetry.packets(kept[k], clipStart: at.seconds, cutStart: cutStart), from: max(0, at.seconds - cutStart))
            }
            // A clip wholly before the cut: its place is known, its frames are not needed.
            if k < begin.plan.clip { continue }
            if k + 1 < lanes.count { start(k + 1) }  // decodes ahead while this clip is encoded
            // The tick this clip's frames start at (a seek's first is the cut's).
            let first = k == begin.plan.clip ? begin.plan.firstTicks.last! : emitted
            let seeked = k == begin.plan.clip ? seek : nil
            let startedAt = emitted
            // The clip's sound lies on its own clock from its start, also after a seek (whose
            // first samples, before the cut, are never asked for).
            let audioStart = byTime ? sample(clipStart) : samples(first)
            audio?.begin(lane.audio, at: audioStart)
            /// Writes one output frame of this clip: its picture, provenance, and the audio so far.
            func write(_ item: LaneFrame, record p: Provenance) throws {
                if emitted < firstK {
                    // Before the cut: nothing written, the sound kept back.
                    emitted += 1
                    try audio?.writeAvailable(until: samples(emitted))
                    return
                }
                var p = p
                var picture = item.frame
                if let filters, let filtered {
                    (picture, p.filter) = try filters.render(item.frame, into: filtered, index: emitted, time: frameRate.inverse * emitted)
                }
                try stamp.stamp(picture, with: p, sources: [item.frame])
                try writer.writeVideo(picture, index: emitted - firstK)
                emitted += 1
                try audio?.writeAvailable(until: samples(emitted))
                events.progress?(emitted - firstK, expected)
            }
            func record(_ source: SourceFrame, until: Timestamp?) -> Provenance {
                var p = emitted == firstK ? header : Provenance(k: 0, src: [])
                // A cut's first frame carries the header too, saying which frame it is.
                if emitted == firstK && firstK > 0 { p.first = firstK }
                p.k = emitted
                p.clip = k
                p.src = [[Int64(source.index), source.pts.value] + (until.map { [$0.value] } ?? [])]
                return p
            }
            // The clip placed at clipStart on the output's clock, ticks counted from the output's
            // start (by time); or every frame once (`--keep-frames`: index sync from this tick).
            var sync = FrameSync<LaneFrame>(
                mode: byTime ? .time : .index, inputs: 1, frameRate: frameRate, startTick: emitted,
                placement: SyncPlacement(clocks: [InputClock(offset: clipStart)]), start: Rational(0, 1))
            if byTime, let end = CompositeJob.streamEnd(lane.reader.video) { sync.setStreamEnd(end, input: 0) }
            if seeked != nil, let origin = begin.origin { sync.setOrigin(origin, input: 0) }
            var shownFirst = false
            var delivered: Int64 = 0
            let ending = try sync.drive(
                pull: { _ in
                    encoderClock.set("waiting for clip \(k + 1)", busy: false)
                    guard emitted < maxFrames, let popped = lane.frames.pop() else { return .closed }  // closed: a failure
                    guard let item = popped else { return .end }
                    // After a seek the pictures are numbered by their place in the clip: those
                    // before the first delivered count too (the clip's length checks its count).
                    if seeked != nil && delivered == 0 { delivered = Int64(item.picture.source.index) }
                    delivered += 1
                    return .frame(item.picture.source, item)
                },
                release: { lane.recycle($0) },
                emit: { sync, _ in
                    encoderClock.set("encoding frame \(emitted)", busy: true)
                    var p = record(sync.chosenFrame(0), until: byTime ? sync.until(0) : nil)
                    if byTime && (!shownFirst || emitted == firstK) {
                        // Where this clip's time 0 lies, for verify: the clip's start and its frame 0's pts.
                        shownFirst = true
                        p.clipStart = "\(clipStart.num)/\(clipStart.den)"
                        p.origin = sync.origin(0)?.value
                    }
                    try write(sync.chosen(0), record: p)
                    return emitted < maxFrames
                })
            var clipEnd: Rational?
            if byTime, case .ended = ending {
                clipEnd = sync.endTime(input: 0).map { Self.length($0, frames: delivered, video: lane.reader.video) }
            }
            while let item = sync.drain() { lane.recycle(item) }
            if let error = failure.error { throw error }
            let capped = emitted == maxFrames
            let joined = !capped && k + 1 < lanes.count
            // By time the next clip starts where this one's time ends; its audio too, to the sample.
            if byTime, let clipEnd { clipStart = clipStart + clipEnd }
            let end = byTime && joined ? sample(clipStart) : samples(emitted)
            encoderClock.set("waiting for the audio of clip \(k + 1)", busy: false)
            // No more pictures from this clip: its reader delivers only the audio its video covers.
            // A crossfade goes on with this clip's own audio past its video's end.
            lane.stopVideo(audioUntil: withAudio ? end - audioStart + (joined ? fade : 0) : .min)
            try audio?.finish(at: end, join: joined)
            lane.join()
            running.remove(k)
            if let error = failure.error { throw error }
            guard emitted > startedAt else { throw MediaError("has no video frame to join", path: lane.reader.path) }
            if emitted > firstK { clipFrames.append(emitted - max(first, firstK)) }
            if capped { break }
        }
        if let range, emitted <= firstK || (range.end.map { emitted < $0 } == true && emitted < maxFrames) {
            let last = options.clips.count - 1
            throw FrameRange.pastEnd(range, input: last, path: options.clips[last], frames: emitted, frameRate: frameRate)
        }
        try writer.finish()
        if let error = failure.error { throw error }
        try filters?.finish(frames: emitted - firstK, frameRate: frameRate)
        // A cap can leave the next clip decoding ahead, and a reader's count is its lane's
        // thread's to write until that thread has ended (TSan saw this read race it): stop the
        // lanes still running first; one that does not end within its second is not counted.
        for k in running.sorted() {
            lanes[k].cancel()
            if lanes[k].join(timeout: 1) { running.remove(k) }
        }
        let decoded = readers.indices.reduce(0) { running.contains($1) ? $0 : $0 + readers[$1].picturesDecoded }
        return ConcatResult(
            frames: emitted - firstK, audioSamples: withAudio ? samples(emitted) - samples(firstK) : nil, canvas: canvas,
            frameRate: frameRate, clipFrames: clipFrames, notices: notices, picturesDecoded: decoded)
    }

    /// Where a cut from output frame `firstK` starts reading (`ConcatStart`): the clips before
    /// the one holding it measured from their packets (`keyframeIndex()`; a pipe, read once, is
    /// never indexed: reading starts there), that one started at the keyframe before the frame
    /// it shows at the cut, decoding forward, the pictures before it dropped. `origin`: that
    /// clip's first frame's pts, the sync's time origin, when it seeks.
    private static func start(
        _ lanes: [InputLane], paths: [String], from firstK: Int64, sync: SyncMode, frameRate: Rational, fadeSamples: Int64
    ) throws -> (plan: ConcatStart, origin: Timestamp?) {
        guard firstK > 0 else { return (.fromTheStart, nil) }
        var indexes: [Int: KeyframeIndex] = [:]
        var failure: Error?
        let plan = ConcatStart.plan(cutFrom: firstK, clips: lanes.count, sync: sync, frameRate: frameRate, fadeSamples: fadeSamples) { c in
            let regular = (try? FileManager.default.attributesOfItem(atPath: paths[c])[.type] as? FileAttributeType) == .typeRegular
            guard regular, failure == nil else { return nil }
            let reader = lanes[c].reader
            let index: KeyframeIndex
            do { index = try reader.keyframeIndex() } catch {
                failure = error
                return nil
            }
            guard index.decodeTimesIncrease else { return nil }
            indexes[c] = index
            return ConcatStart.Clip(
                frames: SegmentPlan.Frames(pts: index.pts, durations: index.durations, timeBase: index.timeBase),
                lastPacketDuration: index.lastPacketDuration, streamEnd: CompositeJob.streamEnd(reader.video),
                nominalFrameRate: reader.video.nominalFrameRate, audioLead: lanes[c].audio != nil ? CompositeJob.audioLead : nil)
        }
        if let failure { throw failure }
        guard let seek = plan.seek, let index = indexes[plan.clip] else { return (plan, nil) }
        let lane = lanes[plan.clip]
        try lane.reader.start(at: seek.first, seekingFrom: seek.seekFrom, index: index)
        // The clip's sound on its own clock from its first frame, as when it is read from its start.
        let origin = Timestamp(index.pts[0], index.timeBase)
        lane.audioOrigin = lane.reader.audioPosition(of: origin)
        return (plan, origin)
    }

    /// A clip's length as its frames' times give it, or exactly its frame count at its nominal
    /// rate when that is within its times' rounding (Matroska stores 24 fps at 1 ms, the last
    /// frame's time and its duration both rounded: 30 frames end at 1208 + 41 = 1.249 s, not
    /// 1.25; a join placed 1 ms early would shift all that follows). Up to a time-base unit (two
    /// halves), at most 1 ms.
    static func length(_ measured: Rational, frames: Int64, video: VideoInfo) -> Rational {
        length(measured, frames: frames, nominal: video.nominalFrameRate, timeBase: video.timeBase)
    }

    static func length(_ measured: Rational, frames: Int64, nominal: Rational?, timeBase: Rational) -> Rational {
        guard frames > 0, let rate = nominal, rate.num > 0 else { return measured }
        let exact = rate.inverse * frames
        let rounding = min(timeBase, Rational(1, 1000))
        return (exact - measured).magnitudeAtMost(rounding) ? exact : measured
    }

    /// The sum of the clips' shown frame counts (an edit list's hidden frames left out), when
    /// every clip has one.
    static func expectedFrames(_ readers: [MovieReader]) -> Int64? {
        let counts = readers.compactMap { $0.video.shownFrames ?? $0.video.indexedFrames }
        return counts.count == readers.count ? counts.reduce(0, +) : nil
    }

    /// By time: the clips' lengths at the output's rate, when every clip says its length.
    static func expectedFrames(_ readers: [MovieReader], frameRate: Rational) -> Int64? {
        let lengths = readers.compactMap(\.video.duration)
        guard lengths.count == readers.count else { return nil }
        let total = lengths.reduce(Rational(0, 1), +) * frameRate
        return (total.num + total.den - 1) / total.den
    }

    /// `--copy`: the same temporary-then-rename as the re-encoding path around `ConcatCopy.join`.
    private func runCopy(_ file: OutputPath) throws -> ConcatResult {
        try ConcatCopy.join(
            options.clips, into: file.path, container: OutputPath.container(for: options.output),
            audioBitRate: options.encode.audioBitRate, cancellation: cancellation
        ) { [events] in events.progress?($0, nil) }
    }
}
