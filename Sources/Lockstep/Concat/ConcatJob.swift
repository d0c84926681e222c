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
        // `--from/--to`: output frames [A, B) of the joined timeline, as every command cuts. A
        // cut that starts in the first clip seeks there (`seekFirstClip`); one that starts in a
        // later clip reads the frames before A and lets them go (each earlier clip's end, where
        // the next one starts, comes from its decoded frames), the sound before A's first
        // sample dropped.
        let range = options.cut.map { FrameRange($0, frameRate: frameRate) }
        let firstK = range?.start ?? 0
        if let range, !range.isOpen { maxFrames = min(maxFrames, range.end) }
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
        let seek = try firstK > 0 ? Self.seekFirstClip(lanes[0], path: options.clips[0], from: firstK, sync: byTime ? .time : .index, frameRate: frameRate) : nil

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
        let fade = Int64(options.crossfadeMs ?? 0) * Int64(AudioFormat.sampleRate) / 2000
        // The joined sound goes to the file from the cut's first sample on (where the first
        // clip's sound starts after a seek).
        let audioFrom = samples(firstK)
        var audioAt: Int64 = seek != nil ? audioFrom : 0
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
        // After a seek the first clip's ticks start at the cut's first.
        var emitted: Int64 = seek != nil ? firstK : 0
        var clipFrames: [Int64] = []
        /// Output time of the current clip's time 0 (by time).
        var clipStart = Rational(0, 1)
        func sample(_ t: Rational) -> Int64 { Rational.rescale(1, from: t, to: Rational(1, Int64(AudioFormat.sampleRate))) }
        // This thread fits nothing itself (the lanes do): it waits for clips and encodes.
        let encoderClock = ThreadClock(name: "the encoder")
        let watchdog = Watchdog(clocks: lanes.map(\.clock) + [encoderClock], timeout: options.stallTimeout) {
            [weak self] in self?.stop(because: $0)
        }
        watchdog.start()
        defer { watchdog.stop() }
        start(0)
        for (k, lane) in lanes.enumerated() {
            if k + 1 < lanes.count { start(k + 1) }  // decodes ahead while this clip is encoded
            let first = emitted
            // This clip's telemetry from its time 0, placed where that lies in the output (a
            // cut's output starting at its first frame's time on the joined timeline).
            if let kept = telemetry.kept {
                let cutStart = (frameRate.inverse * firstK).seconds
                writer.carryTelemetry(
                    ConcatTelemetry.packets(kept[k], clipStart: clipStart.seconds, cutStart: cutStart), from: max(0, clipStart.seconds - cutStart))
            }
            let seeked = k == 0 ? seek : nil
            let audioStart = seeked != nil ? audioFrom : byTime ? sample(clipStart) : samples(first)
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
            if let seeked { sync.setOrigin(seeked.origins[0], input: 0) }
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
            guard emitted > first else { throw MediaError("has no video frame to join", path: lane.reader.path) }
            if emitted > firstK { clipFrames.append(emitted - max(first, firstK)) }
            if capped { break }
        }
        if let range, emitted <= firstK || (!range.isOpen && emitted < range.end && emitted < maxFrames) {
            let last = options.clips.count - 1
            throw FrameRange.pastEnd(range, input: last, path: options.clips[last], frames: emitted, frameRate: frameRate)
        }
        try writer.finish()
        if let error = failure.error { throw error }
        try filters?.finish(frames: emitted - firstK, frameRate: frameRate)
        return ConcatResult(
            frames: emitted - firstK, audioSamples: withAudio ? samples(emitted) - samples(firstK) : nil, canvas: canvas,
            frameRate: frameRate, clipFrames: clipFrames, notices: notices, picturesDecoded: readers.reduce(0) { $0 + $1.picturesDecoded })
    }

    /// A cut from output frame `firstK` that lies in the first clip starts it as a segment render
    /// starts an input (`CompositeJob.startSegment`: the index of its video packets, a seek to
    /// the keyframe before that frame or before its sound's lead, decoding forward, the pictures
    /// before it dropped; its sound from the cut's first sample). Nil, the clip read from its
    /// start, when the cut starts in a later clip, or the clip is not a regular file (a pipe is
    /// read once).
    private static func seekFirstClip(_ lane: InputLane, path: String, from firstK: Int64, sync: SyncMode, frameRate: Rational) throws -> SegmentSetup? {
        let regular = (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular
        guard regular else { return nil }
        let index = try lane.reader.keyframeIndex()
        let frames = SegmentPlan.Frames(pts: index.pts, durations: index.durations, timeBase: index.timeBase)
        guard firstK < SegmentPlan.ticks(frames, sync: sync, frameRate: frameRate) else { return nil }
        return try CompositeJob.startSegment(
            FrameRange(start: firstK, end: firstK + 1), lanes: [lane], sync: sync, frameRate: frameRate, withAudio: lane.audio != nil, indexes: [index])
    }

    /// A clip's length as its frames' times give it, or exactly its frame count at its nominal
    /// rate when that is within its times' rounding (Matroska stores 24 fps at 1 ms, the last
    /// frame's time and its duration both rounded: 30 frames end at 1208 + 41 = 1.249 s, not
    /// 1.25; a join placed 1 ms early would shift all that follows). Up to a time-base unit (two
    /// halves), at most 1 ms.
    static func length(_ measured: Rational, frames: Int64, video: VideoInfo) -> Rational {
        guard frames > 0, let rate = video.nominalFrameRate, rate.num > 0 else { return measured }
        let exact = rate.inverse * frames
        let rounding = min(video.timeBase, Rational(1, 1000))
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
