import Compositor
import Foundation
import Media
import NIOConcurrencyHelpers

/// What happens to the input's audio in `lockstep reverse`.
public enum ReverseAudioMode: String, CaseIterable, Sendable {
    /// Reversed sample by sample with the pictures (forward where a boomerang goes forward).
    case reverse
    /// The original audio as it is, from the start (of the cut), cut to the video (silence past its end).
    case keep
    /// No audio stream.
    case none
}

/// Everything `lockstep reverse` needs to know.
public struct ReverseOptions: Sendable {
    public var input: String
    public var output: String
    public var boomerang = false
    public var loops = 1
    public var audio = ReverseAudioMode.reverse
    /// Time (the default): the source's timeline kept, reversed (dropped frames, a variable
    /// rate, an edit list's end), its sound on its picture; `.index` (`--keep-frames`): every
    /// frame once at the output's rate.
    public var sync = SyncMode.time
    /// `--from/--to`: the part of the source reversed (cut first, then reversed), on the
    /// source's timeline at the output's rate, as every command cuts.
    public var cut: TimeCut?
    /// `--frames A:B`: the same cut given in output frames (source frames A to B-1 on the
    /// source's timeline at the output's rate, then reversed); at most one of `cut` and `frames`.
    public var frames: FrameRange?
    /// Decoded pictures held at most (the pool a backward run decodes into); nil: as many as
    /// `poolBytes` holds, at least 4 (64 MiB: 21 pictures at 1080p, which keeps the whole job
    /// under 400 MB there: measured, the rest of it is about 320 MB, mostly x264).
    public var poolFrames: Int?
    public var poolBytes = 64 << 20
    public var encode = EncodeSettings()
    /// The output's size (the picture fitted into it); nil: the input's display size.
    public var size: Size?
    /// The output's rate; nil: the input's (its nominal rate).
    public var frameRate: Rational?
    /// The signal the pictures are converted into and written in (as `composite --hdr`), and how
    /// HDR pictures are brought into SDR.
    public var signal = WorkingSignal.sdr
    public var toneCurve = ToneCurve.hable
    /// An interlaced input's pictures (`--deinterlace`): `.frame` (the default, as in every
    /// command) deinterlaces each GOP-sized pass forward with a frame of context on each side
    /// (`SeekingVideoReader.decode(_:deinterlace:_:)`), so each picture is the one a forward
    /// pass makes; `.off` leaves the fields woven; `.field` is refused.
    public var deinterlace = DeinterlaceMode.frame
    /// Seconds a stage may be stuck before the job stops with an error naming it.
    public var stallTimeout = 30.0

    public init(input: String, output: String) { self.input = input; self.output = output }

    /// The most loops asked for: the plan holds a run per loop, so an unbounded count is an
    /// unbounded allocation (--loops 9223372036854775807 crashed, 1000000000 never finished).
    public static let mostLoops = 1000

    /// The rules on the options alone, as sentences (the CLI makes them usage errors).
    public func check() throws {
        guard loops >= 1 else { throw ReverseError.tooFewLoops(loops) }
        guard loops <= Self.mostLoops else { throw ReverseError.tooManyLoops(loops, limit: Self.mostLoops) }
        if let p = poolFrames, p < 1 { throw ReverseError.tooFewPoolFrames(p) }
        if deinterlace == .field { throw ReverseError.deinterlaceByField }
        // --size, --fps, --codec, --crf and --preset: the same rules and sentences as composite's.
        try CompositeOptions.check(size: size, frameRate: frameRate, signal: signal, codec: encode.codec)
        try CompositeOptions.check(codec: encode.codec, signal: signal, output: output)
        try CompositeOptions.check(stallTimeout: stallTimeout)
        try CompositeOptions.check(encode: encode)
        try CompositeOptions.check(layout: encode, audio: audio != .none, output: output)
        if frames != nil && cut != nil { throw CompositeOptionsError.framesAndCut }
    }
}

public struct ReverseResult: Sendable {
    public var frames: Int64
    public var sourceFrames: Int
    public var audioSamples: Int64?
    public var canvas: Size
    public var frameRate: Rational
    /// The pool: pictures held at most; the longest GOP of the input, in frames.
    public var poolFrames: Int
    public var longestGOP: Int
    /// Pictures the decoder produced (the cost of reading backwards) and the seeks made.
    public var picturesDecoded: Int
    public var seeks: Int
    /// What the job chose that the user should hear of (`--keep-frames`' notice), one line each.
    public var notices: [String] = []
}

/// Reverses a movie (or makes a boomerang of it) in bounded memory, on the one frame loop:
/// the pictures come from a pull source (`ReverseFrames`) that reads the video backwards GOP
/// by GOP through `SeekingVideoReader` into a pool of `poolFrames` pictures (a GOP longer than
/// the pool is read in sub-ranges from its end, each decoded again from its keyframe,
/// `ReversePlan.backwardPasses`), placed on the reversed timeline (`ReverseTimeline`); the
/// loop (`FrameSync.drive`) picks the frame on screen at each output tick k/fps as it does for
/// composite, and composite's writer (`WriterThread`) encodes them with the provenance records
/// composite writes ([source frame, its pts, until] under time sync). The audio is decoded once
/// to a temporary raw file (`ReverseAudioSpool`) and read back by the writer piece by piece
/// (`ReverseSound`), reversed where the pictures are.
///
/// Threads: `run()` on the caller's (it decodes and fits), the writer, the watchdog. `cancel()`
/// may come from any other.
public final class ReverseJob: Job {
    public let options: ReverseOptions
    private let cancellation = CancellationToken()
    private let failure = FailureBox()
    private let writer = NIOLockedValueBox<WriterThread?>(nil)
    /// Progress after each output frame: (frames done, frames expected); `--keep-frames`' notice.
    private let events: JobEvents

    public init(options: ReverseOptions, events: JobEvents = JobEvents()) {
        self.options = options; self.events = events
    }

    public func cancel() { stop(because: JobError.cancelled) }

    private func stop(because error: Error) {
        failure.record(error)
        cancellation.cancel()
        if let w = writer.withLockedValue({ $0 }) { w.queue.close(); w.pool.close() }
    }

    public func run() throws -> ReverseResult {
        try options.check()
        try OutputPath.checkInput(options.input)
        try OutputPath.check(options.output, inputs: [options.input])
        return try OutputPath.writing(to: options.output) { file in
            do { return try run(file) } catch { throw failure.error ?? error }  // the first failure, not its echo
        }
    }

    private func run(_ file: OutputPath) throws -> ReverseResult {
        let reader = try SeekingVideoReader(path: options.input, cancellation: cancellation)
        let index = reader.index, n = index.frameCount
        let canvas = options.size ?? reader.video.displaySize.evenCanvas
        if options.size == nil, let problem = EncodeSettings.problem(encoding: canvas, as: options.signal, codec: options.encode.codec) {
            throw OutputOptionsError.canvasNotEncodable(canvas: "\(canvas)", from: "\(options.input)'s picture", problem: problem)
        }
        // The rate a person names the clip by, from its frames' steps (as `MovieReader` finds it).
        var video = reader.video
        video.nominalFrameRate = NominalRate.of(
            measured: NominalRate.measured(steps: index.durations.map { index.timeBase * $0 }), stated: video.statedFrameRate ?? video.frameRate)
        let inputs = [(path: options.input, video: video)]
        var notices: [String] = []
        func tell(_ line: String?) { if let line { notices.append(line); events.notice?(line) } }
        tell(ToneMapping.notice(inputs, signal: options.signal, curve: options.toneCurve))
        tell(try CompositeJob.notKeptLine(path: options.input, why: CompositeJob.reversedTelemetry))
        guard let frameRate = options.frameRate ?? video.nominalFrameRate ?? video.frameRate else {
            throw MediaError("no frame rate in the file; give one with --fps", path: options.input)
        }
        let byTime = options.sync == .time
        if !byTime { tell(KeepFramesNotice.line(inputs, frameRate: frameRate)) }
        let timeline = try Self.timeline(index, video: video, options: options, frameRate: frameRate)
        let tb = index.timeBase
        let frameBytes = canvas.width * canvas.height * 3 / 2
        let pool = options.poolFrames ?? max(4, options.poolBytes / max(1, frameBytes))
        let sound = try options.audio == .none ? nil : spoolAudio(limit: Self.sample(timeline.end, tb), origin: index.pts[0], timeBase: tb)
        let conformer = try Conformer(
            place: canvas, picture: Layout(blend: .single, canvas: canvas, inputs: [reader.video.displaySize]).pictures[0],
            fill: .black, rotation: reader.video.rotation,
            color: ColorOptions(working: options.signal, toneCurve: options.toneCurve, metadata: reader.video.color.hdr))
        let frames = ReverseFrames(
            reader: reader, conformer: conformer, timeline: timeline, pool: min(pool, index.longestSegment), deinterlace: options.deinterlace)
        let reversed = sound.map { ReverseSound(spool: $0, pieces: ReverseSound.pieces(timeline, timeBase: tb, keep: options.audio == .keep)) }
        let movie = try MovieWriter(
            path: file.path, container: OutputPath.container(for: options.output), canvas: canvas, frameRate: frameRate,
            settings: try ToneMapping.settings(options.encode, signal: options.signal, inputs: inputs), withAudio: reversed != nil)
        let stage = try WriterThread(
            writer: movie, sounds: [reversed], gains: [1], frameRate: frameRate, canvas: canvas, poolSize: 3, failure: failure,
            signal: options.signal)
        writer.withLockedValue { $0 = stage }
        if let error = failure.error { throw error }

        // The records composite writes: the source frame shown, its pts, and under time sync
        // until when it is on screen; the header says which part of the source (a cut) was reversed.
        var input = Provenance.Input(path: options.input, timeBase: tb, audio: reversed != nil)
        input.origin = index.pts[0]
        input.duration = Provenance.fraction(tb * timeline.end)
        if options.cut != nil || options.frames != nil { input.trim = CompositeJob.trimText(InputClock.Trim(start: tb * timeline.span.lowerBound, end: tb * timeline.span.upperBound)) }
        var header = Provenance.header(sync: options.boomerang ? "boomerang" : "reverse", frameRate: frameRate, inputs: [input])
        header.timing = options.sync.rawValue
        let stamp = ProvenanceStamp(width: canvas.width, height: canvas.height)
        let expected = byTime ? TimeCut.ceil(tb * timeline.length * frameRate) : Int64(timeline.plan.count)

        let loopClock = ThreadClock(name: "the reader")
        let watchdog = Watchdog(clocks: [loopClock, stage.clock], timeout: options.stallTimeout) { [weak self] in self?.stop(because: $0) }
        stage.start(withAudio: reversed != nil)
        watchdog.start()
        defer { watchdog.stop() }
        var sync = FrameSync<ReverseFrames.Item>(mode: options.sync, inputs: 1, frameRate: frameRate)
        var emitted: Int64 = 0
        let origin = index.pts[0]
        do {
            _ = try sync.drive(
                pull: { _ in
                    loopClock.set("reading backwards", busy: true)
                    guard failure.error == nil else { return .closed }
                    return try frames.next()
                },
                release: { frames.release($0) },
                emit: { sync, tick in
                    guard failure.error == nil else { return false }
                    loopClock.set("waiting for the writer", busy: false)
                    guard let out = stage.pool.pop() else { return false }
                    loopClock.set("copying frame \(tick)", busy: true)
                    let item = sync.chosen(0)
                    try out.makeWritable()
                    Self.copy(item.frame, into: out)
                    let s = item.source
                    var record = tick == 0 ? header : Provenance(k: tick, src: [])
                    record.src = [[Int64(s), index.pts[s]] + (byTime ? [origin + timeline.until(s)] : [])]
                    try stamp.stamp(out, with: record, sources: [item.frame])
                    guard stage.queue.push(out) else { return false }
                    emitted += 1
                    events.progress?(emitted, expected)
                    return true
                })
        } catch {
            stop(because: error)
        }
        while let item = sync.drain() { frames.release(item) }
        stage.queue.close()
        stage.join()
        if cancellation.isCancelled || failure.error != nil { throw failure.error ?? JobError.cancelled }
        guard emitted > 0 else { throw MediaError("has no video frame to reverse", path: options.input) }
        return ReverseResult(
            frames: emitted, sourceFrames: n, audioSamples: reversed != nil ? stage.samples(emitted) : nil,
            canvas: canvas, frameRate: frameRate, poolFrames: frames.poolFrames, longestGOP: index.longestSegment,
            picturesDecoded: reader.picturesDecoded, seeks: reader.seeks, notices: notices)
    }

    /// The reversed timeline of the options: the source's frames from its first, ending where
    /// its last leaves the screen (or earlier, where its container ends the stream: an edit
    /// list), cut to `--from/--to` on the source's timeline at the output's rate.
    static func timeline(_ index: KeyframeIndex, video: VideoInfo, options: ReverseOptions, frameRate: Rational) throws -> ReverseTimeline {
        let n = index.frameCount, tb = index.timeBase, origin = index.pts[0]
        let starts = index.pts.map { $0 - origin }
        // The last frame's duration: its packet's, or the step before it (`KeyframeIndex`).
        var end = starts[n - 1] + max(1, index.durations[n - 1])
        if let e = CompositeJob.streamEnd(video) {
            let streamEnd = Rational.rescale(e.value, from: e.timeBase, to: tb) - origin
            if streamEnd > starts[n - 1] && streamEnd < end { end = streamEnd }
        }
        // Times rounded by the container (Matroska's 1 ms: 72 frames at 24 fps end at 2999 or
        // 3000) end where the frame count at the nominal rate says, as concat measures a clip:
        // the sound is reversed from exactly there.
        let exact = ConcatJob.length(tb * end, frames: Int64(n), video: video)
        if exact != tb * end, let ticks = exact.multiplied(by: tb.inverse), ticks.den == 1, ticks.num > starts[n - 1] { end = ticks.num }
        var cut: Range<Int64>?
        if let range = options.frames ?? options.cut.map({ FrameRange($0, frameRate: frameRate) }) {
            // The source's timeline in output frames: a cut must lie within it, as in every command.
            let frames = TimeCut.ceil(tb * end * frameRate)
            guard range.start < frames, range.end.map({ $0 <= frames }) != false else {
                throw FrameRange.pastEnd(range, input: 0, path: options.input, frames: frames, frameRate: frameRate)
            }
            let from = Rational.rescale(range.start, from: frameRate.inverse, to: tb)
            cut = from..<(range.end.map { min(end, Rational.rescale($0, from: frameRate.inverse, to: tb)) } ?? end)
        }
        return ReverseTimeline(starts: starts, end: end, boomerang: options.boomerang, loops: options.loops, cut: cut)
    }

    static func sample(_ t: Int64, _ tb: Rational) -> Int64 { Rational.rescale(t, from: tb, to: Rational(1, Int64(AudioFormat.sampleRate))) }

    /// The fitted picture into the writer's frame (8-bit or the HDR working signal's 16).
    static func copy(_ picture: Frame, into out: Frame) {
        if picture.isHDR {
            picture.withImage16 { p in out.withImage16 { PlaneKernels16.copy(p, into: $0) } }
        } else {
            picture.withImage { p in out.withImage { PlaneKernels.copy(p, into: $0) } }
        }
    }

    /// The input's audio, decoded once into a spool beside the output, from the first video
    /// frame (`origin`, in `timeBase`) to the video's end (`limit` samples); nil without audio.
    private func spoolAudio(limit: Int64, origin: Int64, timeBase: Rational) throws -> ReverseAudioSpool? {
        let reader = try MovieReader(path: options.input, audio: true, cancellation: cancellation)
        guard reader.audio != nil else { return nil }
        reader.decodesVideo = false
        let spool = try ReverseAudioSpool(beside: options.output)
        let zero = Rational.rescale(origin, from: timeBase, to: Rational(1, Int64(AudioFormat.sampleRate)))
        let unused = Frame()
        var failure: Error?
        while try reader.next(
            into: unused,
            audioSink: { samples in
                guard failure == nil else { return }
                do { try spool.append(samples, at: samples.start - zero, limit: limit) } catch { failure = error }
            }) != .end
        {
            if let failure { throw failure }
            if cancellation.isCancelled { throw JobError.cancelled }
        }
        if let failure { throw failure }
        try spool.pad(to: limit)
        return spool
    }
}
