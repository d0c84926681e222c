import Compositor
import Foundation
import Media
import NIOConcurrencyHelpers

/// Everything `lockstep composite` needs to know.
public struct CompositeOptions: Sendable {
    public var inputs: [String]
    public var output: String
    public var blend: BlendMode
    /// Time sync by default, in every command (one input too: `filter`, `snake`): each input
    /// keeps its own timeline (dropped frames, VFR, edit lists, other rates) and its sound stays
    /// on its picture (docs/timing.md says why); `.index` (`--keep-frames`, `--sync index`):
    /// every frame once at the output's rate.
    public var sync = SyncMode.time
    /// Time sync: where each input lies in time, one clock per input in input order (the first
    /// input is the reference: offset 0, drift 0; it may be trimmed). nil: every input from its
    /// first frame at the same instant, no drift. `lockstep align`'s offsets and drifts go here
    /// (`InputClock(offset:driftPpm:)`); `--offsets`, `--drift` and `--trim` fill it.
    public var clocks: [InputClock]?
    /// `--sync audio`: before the job, every input's offset and drift are found from the sound,
    /// as `lockstep align` finds them (`AlignJob`), and put into `clocks` (trims kept). An input
    /// whose sound does not match stops the job with align's sentence: no offset is made up.
    public var clocksFromSound = false
    /// Time sync: the time every input saw (`common`, the default) or from the earliest start to
    /// the latest end (`longest`, black and silence where an input has no picture).
    public var coverage = SyncPlacement.Coverage.common
    /// An input that ends early shows its last frame until the output ends, instead of ending it.
    public var holdLast = false
    public var size: Size?
    public var frameRate: Rational?
    public var keyColor = RGB(r: 0, g: 255, b: 0)
    public var similarity = 0.4
    public var smoothness = 0.1
    /// Which keyer `chromakey` and `stack` use, and Lockstep's keyer's settings (its screen
    /// colour is `keyColor`).
    public var keyer = KeyerChoice.lockstep
    public var keying = KeyerSettings()
    public var weights: [Double]?
    public var gains: [Double]?
    public var audio = true
    /// `--audio-from N`: only this input's sound (0-based), the others' not even decoded: the
    /// usual multi-camera choice, since microphones of one event mixed comb even when aligned.
    public var audioFrom: Int?
    /// `--loudness`: bring the output's sound to this integrated loudness, LUFS (EBU R128: -23).
    public var loudness: Double?
    /// grid, quad and pip: the grid's shape, cell fitting, borders, labels, insets.
    public var grid = GridSpec()
    /// `chromakey`: where the foreground and background go (`--fg-scale`, `--fg-position`, `--bg-fit`).
    public var keyPlacement = KeyPlacement()
    /// Whether Lockstep's keyer gets a foreground placed off its usual fit: its margin then
    /// repeats its edges and the keyer keys away everything outside it.
    var placesKeyedForeground: Bool { blend == .chromakey && keyer == .lockstep && !keyPlacement.keepsForeground }

    /// The grid's rows and columns (quad: 2x2; blends without cells: 1x1).
    public var gridShape: (rows: Int, columns: Int) {
        switch blend {
        case .quad: return (2, 2)
        case .grid: return grid.layout.map { ($0.rows, $0.columns) } ?? GridSpec.shape(for: inputs.count)
        default: return (1, 1)
        }
    }
    /// Conceal decode errors in the inputs and go on (each damaged frame named in a warning and
    /// in the output's provenance) instead of stopping at the first.
    public var conceal = false
    /// Seconds a stage may be stuck before the job stops with an error naming it.
    public var stallTimeout = 30.0
    /// The video-snake effect as a last stage, driven by an IMU trace.
    public var snake: SnakeOptions?
    /// Inputs stabilised from their gyro after they are conformed, before the blend (`stabilise`, `--stabilise`).
    public var stabilise: StabiliseRequest?
    /// Filter chains applied after the blend (before the snake), switched on a schedule.
    public var filter: FilterSchedule?
    /// A greyscale movie weighting the filter (`filter`) or keying the foreground (`composite`).
    public var matte: MatteOptions?
    /// An input keyed by its own alpha is keyed by colour too (alpha times key).
    public var keyAlphaAndColor = false
    public var encode = EncodeSettings()
    /// Interlaced inputs: one picture per frame (the default), per field, or left woven.
    public var deinterlace = DeinterlaceMode.frame
    /// The signal every input is converted into, blended in and written: SDR BT.709 (H.264),
    /// or HDR BT.2020 HLG or PQ (10-bit HEVC). See docs: the working signal.
    public var signal = WorkingSignal.sdr
    /// How HDR inputs are brought into an SDR output (or a PQ input into HLG).
    public var toneCurve = ToneCurve.hable
    /// Render only output frames [start, end) of the single pass (`--frames A:B`).
    public var frames: FrameRange?
    /// `--from T --to T`: the same, by time (resolved to frames once the output's rate is known).
    public var cut: TimeCut?

    public init(inputs: [String], output: String, blend: BlendMode) {
        self.inputs = inputs; self.output = output; self.blend = blend
    }

    /// The option that cuts the output, for messages: `--frames` or `--from/--to`.
    var cutOption: String { cut != nil ? "--from/--to" : "--frames" }
    /// Whether the output is a part of the single pass (`--frames`, `--from/--to`).
    var isCut: Bool { frames != nil || cut != nil }

    /// The sync's placement of every reader (inputs, then the matte, on the first input's clock).
    public var placement: SyncPlacement {
        let given = clocks ?? Array(repeating: .identity, count: inputs.count)
        return SyncPlacement(clocks: given + (matte == nil ? [] : [given.first ?? .identity]), coverage: coverage, holdLast: holdLast)
    }

    /// Whether any input is placed in time other than "every input from its first frame at once".
    public var placesInputsInTime: Bool { clocksFromSound || !(clocks ?? []).allSatisfy(\.isIdentity) || coverage != .common }
}

public struct CompositeResult: Sendable {
    public var frames: Int64
    public var audioSamples: Int64?
    public var canvas: Size
    public var frameRate: Rational
    /// Which input ended the output.
    public var endedBy: Int?
    public var snake: SnakeSummary?
    /// Things the user should know that did not stop the job, one sentence each: damage concealed
    /// under `conceal` (one per damaged input frame), an input whose timestamps go back under time sync.
    public var warnings: [String] = []
    /// Pictures decoded per input, also those decoded only to reach a segment's first frame.
    public var picturesDecoded: [Int] = []
    /// What the job chose that the user should hear of, one line each (inputs that change speed
    /// under index sync, stills held): told as notices (`JobEvents.notice`) as soon as known, and kept here.
    public var notices: [String] = []
    /// With `loudness`: what was measured and done.
    public var loudness: LoudnessSummary?
    /// Lockstep's keyer's line: the screen it measured and what it chose from the picture (`Keyer.report`).
    public var keying: String?
}

/// `--loudness`'s report: the inputs' mix as measured before the job, the gain applied to reach
/// the target, and the loudness of what was written (after the mixer's limiter).
public struct LoudnessSummary: Equatable, Sendable {
    public var target: Double
    /// LUFS; -infinity for silence (then no gain is applied).
    public var mixLUFS: Double
    public var gainDB: Double
    public var writtenLUFS: Double
}

/// Opens every input, runs readers, compositor and writer as overlapping stages with bounded
/// queues, writes to a temporary file beside the output and renames it only on success.
///
/// Threads: `run()` on the caller's thread (the compositor), one per input lane, the writer, the
/// watchdog. `cancel()` may come from any thread (a signal source's queue, never a signal
/// handler itself); it only raises flags, closes queues and wakes waiters.
public final class CompositeJob: Job {
    /// As given; under `clocksFromSound`, `run()` puts the clocks the sound gave into it before
    /// anything else starts.
    public var options: CompositeOptions { state.withLockedValue { $0.options } }
    /// Progress after each output frame (frames done, frames expected); each notice
    /// (`CompositeResult.notices`) as soon as it is known, before the first frame when it can be.
    private let events: JobEvents
    /// What `cancel()` must reach, and what a run's attempts share.
    private struct State: Sendable {
        var options: CompositeOptions
        /// `--sync audio`'s alignment while it runs.
        var aligner: AlignJob?
        /// `--sync audio`: one line per input placed by its sound.
        var soundNotices: [String] = []
        /// The current attempt's failure (a snake segment may start again, `run()`).
        var failure = FailureBox()
        var lanes: [InputLane] = []
        var writerThread: WriterThread?
        var cancelled = false
        /// Lines already told (a snake segment's run may start again).
        var announced = Set<String>()
    }
    private let state: NIOLockedValueBox<State>
    /// Signalled when an input has opened and on a stop: `openReaders()` waits on it.
    private let woken = DispatchSemaphore(value: 0)
    /// Raised on cancellation or failure: every reader's open and reads give up.
    private let cancellation = CancellationToken()

    public init(options: CompositeOptions, events: JobEvents = JobEvents()) {
        state = NIOLockedValueBox(State(options: options))
        self.events = events
    }

    /// Stops a running job from another thread: it ends with `JobError.cancelled`, also while
    /// an input is still opening (a FIFO nobody writes to blocks in open(2) for good).
    public func cancel() { stop(because: JobError.cancelled) }

    private var isCancelled: Bool { state.withLockedValue { $0.cancelled } }

    private func stop(because error: Error) {
        let s = state.withLockedValue { s in
            s.cancelled = true
            return s
        }
        woken.signal()
        s.failure.record(error)
        cancellation.cancel()
        s.aligner?.cancel()
        for l in s.lanes { l.cancel() }
        s.writerThread?.queue.close(); s.writerThread?.pool.close()
    }

    /// Tells each line not told yet.
    private func tell(_ lines: [String]) {
        let new = state.withLockedValue { s in lines.filter { s.announced.insert($0).inserted } }
        for line in new { events.notice?(line) }
    }

    /// Opens every input on a thread of its own and waits for all of them, or for `cancel()`.
    /// An open that blocks (a FIFO with no writer) gives up when the cancellation token is
    /// raised; the job does not wait for it either. Failures are reported in input order, as a person reads the command line.
    private func openReaders() throws -> [MovieReader] {
        let options = self.options
        let box = OpenedReaders(count: options.readerPaths.count)
        for (i, path) in options.readerPaths.enumerated() {
            let audio = options.audio && i < options.inputs.count && (options.audioFrom == nil || options.audioFrom == i), conceal = options.conceal, cancellation = self.cancellation
            Worker.detach(name: "lockstep.open.\(i + 1)") { [box, woken] in
                let result = Result { try MovieReader(path: path, audio: audio, conceal: conceal, cancellation: cancellation) }
                box.set(i, result)
                woken.signal()
            }
        }
        // Signals left over from an earlier wait only make the loop look again.
        while !isCancelled && !box.complete { woken.wait() }
        if isCancelled { throw JobError.cancelled }
        return try box.readers()
    }

    /// `--sync audio`: every input's clock from its sound against the first input's (offset
    /// between their first shown frames, drift), announced one line per input.
    private func placeBySound() throws {
        let options = self.options
        try options.check()
        let job = AlignJob(options: AlignOptions(inputs: options.inputs))
        let wasCancelled = state.withLockedValue { s in
            s.aligner = job
            return s.cancelled
        }
        if wasCancelled { throw JobError.cancelled }
        let found: AlignResult
        do { found = try job.run() } catch { throw isCancelled ? JobError.cancelled : error }
        var placed = options
        var clocks = placed.clocks ?? Array(repeating: .identity, count: placed.inputs.count)
        var lines: [String] = []
        for (i, a) in found.inputs.enumerated() where i > 0 {
            let seconds = a.firstFrameOffset ?? a.offset
            clocks[i].offset = Rational((seconds * 1e9).rounded().clamped(to: -9e18...9e18).int64, 1_000_000_000)
            clocks[i].driftPpm = a.driftPpm
            lines.append(
                String(
                    format: "input %d (%@): placed by its sound %+.6f s from input 1, drift %+.1f ppm, confidence %.2f",
                    i + 1, (a.path as NSString).lastPathComponent, seconds, a.driftPpm, a.confidence))
        }
        placed.clocks = clocks
        placed.clocksFromSound = false
        try placed.check()
        state.withLockedValue { s in (s.options, s.aligner, s.soundNotices) = (placed, nil, lines) }
    }

    /// How one attempt at the job ended: done, or (a snake segment whose pre-roll window the
    /// bracket did not close) dropped before any frame was written, to start again with a
    /// longer window.
    private enum Attempt {
        case done(CompositeResult)
        case needsLongerPreRoll
    }

    public func run() throws -> CompositeResult {
        if options.clocksFromSound { try placeBySound() }
        // Snake segments: pre-roll windows of 16, 32, 64 frames, then the taint's own pre-roll
        // (as far back as frame 0 if need be), which is always exact (`SnakeStage.startSegment`).
        for window in [16, 32, SnakeStage.longestBracketWindow, .max] as [Int64] {
            state.withLockedValue { $0.failure = FailureBox() }
            if case .done(let result) = try run(preRollWindow: window) { return result }
        }
        fatalError("the last window is the taint's, which never asks for a longer one")
    }

    private func run(preRollWindow: Int64) throws -> Attempt {
        let (options, failure) = state.withLockedValue { ($0.options, $0.failure) }
        try options.check()
        try OutputPath.check(options.output, inputs: options.readerPaths)
        try options.checkLoudnessInputs()
        do {
            return .done(
                try OutputPath.writing(to: options.output) { file in
                    switch try run(preRollWindow: preRollWindow, failure: failure, file: file) {
                    case .done(let result): return result
                    case .needsLongerPreRoll: throw NeedsLongerPreRoll()  // this attempt's file goes
                    }
                })
        } catch is NeedsLongerPreRoll {
            return .needsLongerPreRoll
        }
    }

    /// A snake segment's attempt that must start again further back: its file is not kept.
    private struct NeedsLongerPreRoll: Error {}

    private func run(preRollWindow: Int64, failure: FailureBox, file: OutputPath) throws -> Attempt {
        let (options, soundNotices) = state.withLockedValue { ($0.options, $0.soundNotices) }
        let readers = try openReaders()
        for r in readers { r.deinterlace(options.deinterlace) }
        if let n = options.audioFrom, readers[n].audio == nil {
            throw CompositeOptionsError.audioFromHasNoSound(input: n, path: options.inputs[n])
        }
        let (canvas, frameRate) = try Self.canvasAndRate(options, readers: readers)
        let sizes = readers.prefix(options.inputs.count).map(\.video.displaySize)
        // Before any thread starts: a .cube that cannot be read stops the job here.
        let matteMix = options.matte.map { MatteMix(factor: $0.mixFactor) }
        // A single input's matte mixes the filter chain in (`filter --matte`); with a blend it
        // keys the blend instead (the blender's).
        let filters = try options.filter.map {
            try FilterStage(schedule: $0, canvas: canvas, matteMix: options.blend == .single ? matteMix : nil)
        }
        let layout = Layout(blend: options.blend, canvas: canvas, inputs: sizes, cells: options.grid, keyed: options.keyPlacement)
        var blender = Self.blender(options, layout: layout, matteMix: matteMix)
        let timing = Timing(placement: options.placement, sync: options.sync, frameRate: frameRate)
        let lanes = try Self.lanes(readers, options: options, layout: layout, blender: blender, canvas: canvas, timing: timing, failure: failure)
        let withAudio = lanes.contains { $0.audio != nil }
        let blanks = try Self.blanks(lanes, coverage: options.coverage)
        // Stage hook (issue 42): per-input stabilisers, InputStabiliser.swift.
        let stabilisers = try InputStabilisers.make(options, readers: readers, lanes: lanes, frameRate: frameRate, cancellation: cancellation)
        tell(stabilisers.flatMap { $0?.notes ?? [] })
        let notices =
            soundNotices + Self.notices(readers: Array(readers.prefix(options.inputs.count)), sync: options.sync, frameRate: frameRate)
            + [ToneMapping.notice(readers.prefix(options.inputs.count).map { ($0.path, $0.video) }, signal: options.signal, curve: options.toneCurve)]
            .compactMap { $0 }
            + (Self.borderNotice(options.grid, blend: options.blend).map { [$0] } ?? [])
        tell(notices)
        let snake = options.snake.map { SnakeStage(options: $0, canvas: canvas, frameRate: frameRate) }
        // After the blend, on every tick: the filter chain in force, then the snake.
        var stages: [any FrameStage] = []
        if let filters { stages.append(filters) }
        if let snake { stages.append(snake) }
        let requested = options.frames ?? options.cut.map { FrameRange($0, frameRate: frameRate) }
        let segment = try requested.map { range in
            try Self.startSegment(range, lanes: lanes, sync: options.sync, frameRate: frameRate, withAudio: withAudio) { frames in
                guard let snake else { return range.start }
                return snake.startSegment(
                    at: range.start, videoTime: Self.videoTime(frames, sync: options.sync, frameRate: frameRate),
                    window: preRollWindow)
            }
        }
        let range = segment?.range
        let firstK = range?.start ?? 0
        let (stage, loudness) = try writerThread(
            file, readers: readers, lanes: lanes, canvas: canvas, frameRate: frameRate, firstFrame: firstK, withAudio: withAudio, options: options, failure: failure)
        let wasCancelled = state.withLockedValue { s in
            (s.lanes, s.writerThread) = (lanes, stage)
            return s.cancelled
        }
        if wasCancelled { throw JobError.cancelled }

        let compositorClock = ThreadClock(name: "the compositor")
        let watchdog = Watchdog(clocks: lanes.map(\.clock) + [compositorClock, stage.clock], timeout: options.stallTimeout) {
            [weak self] in self?.stop(because: $0)
        }
        for l in lanes { l.start() }
        stage.start(withAudio: withAudio)
        watchdog.start()
        defer { watchdog.stop() }
        let expected = range?.count ?? Self.expectedFrames(readers, options: options, frameRate: frameRate)

        // A segment of the snake starts rendering before its first frame (`SnakeStage.startSegment`).
        let firstTick = segment?.firstTick ?? firstK
        var sync = FrameSync<LaneFrame>(mode: options.sync, inputs: lanes.count, frameRate: frameRate, startTick: firstTick, placement: options.placement)
        for (i, origin) in (segment?.origins ?? []).enumerated() {
            sync.setOrigin(origin, input: i)
            if i < stabilisers.count { stabilisers[i]?.setOrigin(origin) }  // the motion's clock, not the cut's
        }
        for (i, r) in readers.enumerated() { if let end = Self.streamEnd(r.video) { sync.setStreamEnd(end, input: i) } }
        var idle = Set<Int>()
        var endedBy: Int?
        var emitted: Int64 = 0
        var longerPreRoll = false
        let stamp = ProvenanceStamp(width: canvas.width, height: canvas.height)
        if let origin = segment?.origins.first { snake?.firstFrameTime = Rational.rescale(origin.value, from: origin.timeBase, to: Rational(1, 1_000_000_000)) }
        // Pre-roll frames are drawn here, never handed to the writer.
        let preRollFrame: Frame? = try firstTick < firstK ? Frame(width: canvas.width, height: canvas.height) : nil
        let ending = try sync.drive(
            pull: { i in
                compositorClock.set("waiting for input \(i + 1)", busy: false)
                guard failure.error == nil, let item = lanes[i].frames.pop() else { return .closed }  // closed: a failure
                return item.map { .frame($0.picture.source, $0) } ?? .end
            },
            release: { item in lanes[item.lane].recycle(item) },
            emit: { sync, tick in
                guard failure.error == nil else { return false }
                // An input past its trim's end is not read again: its reader goes on with audio only.
                for i in lanes.indices where sync.isIdle(i) && !idle.contains(i) {
                    idle.insert(i)
                    lanes[i].stopVideo(audioUntil: withAudio ? min(timing.audible(input: i).upperBound, Int64.max) : .min)
                }
                let preRolling = tick < firstK
                if emitted == range?.count { return false }  // the segment is complete
                compositorClock.set("waiting for the writer", busy: false)
                guard let out = preRolling ? preRollFrame : stage.pool.pop() else { return false }
                compositorClock.set(preRolling ? "rendering pre-roll frame \(tick)" : "blending frame \(emitted)", busy: true)
                try out.makeWritable()
                func picture(_ i: Int) -> Frame {
                    guard let chosen = sync.chosenIfPresent(i) else { return blanks[i]! }
                    // Stage hook (issue 42): a stabilised input's picture is its stabiliser's.
                    guard i < stabilisers.count, let stabiliser = stabilisers[i] else { return chosen.frame }
                    return stabiliser.apply(chosen.frame, source: sync.chosenFrame(i))
                }
                let matte = options.matte == nil ? nil : picture(lanes.count - 1)
                blender.blend(picture, matte: matte, into: out)
                let k = preRolling ? tick : firstK + emitted  // the single pass's frame index
                // The video's clock is the first input's: its chosen frame's pts (the snake's).
                let pts = snake == nil ? nil : sync.chosenFrame(0).pts
                let context = FrameContext(
                    index: k, outputTime: frameRate.inverse * k,
                    videoTime: pts.map { Rational.rescale($0.value, from: $0.timeBase, to: Rational(1, 1_000_000_000)) } ?? 0,
                    written: !preRolling, matte: matte)
                var chain: String?
                for stage in stages {
                    switch try stage.process(out, context) {
                    case .done(let provenance): if let provenance { chain = provenance }
                    case .needsLongerPreRoll: longerPreRoll = true; return false
                    }
                }
                if preRolling { return true }
                // A cut's first frame carries the header too, saying which frame it is.
                var record = provenance(of: sync, header: k == firstK ? header(sync, readers: readers, frameRate: frameRate) : nil)
                if k == firstK && firstK > 0 { record.first = firstK }
                record.filter = chain
                try stamp.stamp(out, with: record, sources: (options.matte == nil ? lanes.indices : lanes.indices.dropLast()).map(picture))
                guard stage.queue.push(out) else { return false }
                emitted += 1
                events.progress?(emitted, expected)
                return true
            })
        if case .ended(let input, _) = ending { endedBy = input }
        // No more pictures are needed: readers deliver only the audio that the video covers.
        let audioEnd = stage.samples(emitted)
        for l in lanes { l.stopVideo(audioUntil: withAudio ? audioEnd : .min) }
        stage.queue.close()
        stage.join()
        for l in lanes { l.join(afterFailure: failure.error != nil) }
        while sync.drain() != nil {}
        if longerPreRoll {
            if !isCancelled && failure.error == nil { return .needsLongerPreRoll }
        }
        if let error = failure.error { throw error }
        guard emitted > 0 else {
            if let noTime = Self.noSharedTime(options, readers: readers) { throw noTime }
            throw MediaError("has no video frame to composite", path: options.readerPaths[endedBy ?? 0])
        }
        if let range, let count = range.count, emitted < count {
            let i = endedBy ?? 0
            throw FrameRange.pastEnd(range, input: i, path: options.readerPaths[i], frames: firstK + emitted, frameRate: frameRate)
        }
        // A still found only by reading (a one-frame movie whose container lists no count).
        let lateNotices = (0..<options.inputs.count).filter { sync.isStill($0) && !readers[$0].video.isStill }
            .map { Self.stillNotice(input: $0, path: options.inputs[$0]) }
        tell(lateNotices)
        let snakeSummary = try snake?.finish()
        for s in stabilisers { try s?.finish() }  // Stage hook (issue 42): the export paths.
        for stage in stages { try stage.finish(frames: segment?.outputLength ?? emitted, frameRate: frameRate) }
        let summary = try loudness.map { m in
            LoudnessSummary(target: options.loudness!, mixLUFS: m.mixLUFS, gainDB: 20 * log10(m.gain), writtenLUFS: try stage.writtenLoudness() ?? -.infinity)
        }
        var result = CompositeResult(
            frames: emitted, audioSamples: withAudio ? audioEnd : nil, canvas: canvas,
            frameRate: frameRate, endedBy: endedBy, snake: snakeSummary,
            warnings: lanes.flatMap { l in
                l.reader.damage.map { "\(l.reader.path): damaged \($0), concealed" }
            } + sync.backwardJumps.map { Self.describe($0, path: options.readerPaths[$0.input]) },
            picturesDecoded: lanes.map(\.reader.picturesDecoded),
            notices: notices + lateNotices)
        result.loudness = summary
        result.keying = blender.keyer?.report
        return .done(result)
    }

    /// The canvas: --size, or for blends that give each input a place of its own (quad, grid,
    /// pip) one chosen from all inputs (`Layout.canvas`), else the first input's size; even
    /// (4:2:0), and large enough for every cell to hold a 2x2 picture. The rate: --fps, else
    /// the inputs' (`defaultFrameRate`).
    static func canvasAndRate(_ options: CompositeOptions, readers: [MovieReader]) throws -> (canvas: Size, frameRate: Rational) {
        let first = readers[0]
        let sizes = readers.prefix(options.inputs.count).map(\.video.displaySize)
        let (rows, columns) = options.gridShape
        let smallest = Size(width: 2 * columns, height: 2 * rows)
        let chosen =
            options.blend.placesInputs
            ? Layout.canvas(blend: options.blend, inputs: sizes, cells: options.grid)
            : first.video.displaySize.evenCanvas
        let canvas = options.size ?? Size(width: max(smallest.width, chosen.width), height: max(smallest.height, chosen.height))
        guard canvas.width >= 2 && canvas.height >= 2 else { throw MediaError("picture too small to be a canvas", path: first.path) }
        guard let frameRate = options.frameRate ?? Self.defaultFrameRate(readers.prefix(options.inputs.count)) else {
            throw MediaError("no frame rate in the file; give one with --fps", path: first.path)
        }
        if canvas.width < smallest.width || canvas.height < smallest.height {
            throw CompositeOptionsError.canvasTooSmallForCells(canvas: "\(canvas)", blend: options.blend.rawValue, rows: rows, columns: columns)
        }
        // A size the inputs gave (a 1x1 picture under --hdr, a grid of large cells): said here,
        // naming where it came from, not by the encoder.
        if options.size == nil, let problem = EncodeSettings.problem(encoding: canvas, as: options.signal, codec: options.encode.codec) {
            let from = options.blend.placesInputs ? "the \(options.blend.rawValue) of the inputs' pictures" : "\(first.path)'s picture"
            throw OutputOptionsError.canvasNotEncodable(canvas: "\(canvas)", from: from, problem: problem)
        }
        return (canvas, frameRate)
    }

    /// The blend of the options over `layout` (with a matte: keyed by it).
    static func blender(_ options: CompositeOptions, layout: Layout, matteMix: MatteMix?) -> Blender {
        let key = ChromaKey(
            keyColor: options.keyColor, similarity: options.similarity, smoothness: options.smoothness,
            matrix: options.signal.matrix)
        var blender = Blender(
            mode: options.blend, layout: layout, key: key, keyer: options.makeKeyer(layout: layout),
            weights: options.weights ?? Array(repeating: 1, count: options.inputs.count))
        if let matteMix, options.blend != .single { blender.matte = (matteMix, options.matte!.mode) }
        blender.keyAlphaAndColor = options.keyAlphaAndColor
        blender.signal = options.signal
        return blender
    }

    /// One lane per reader, each fitting its pictures to its place (the matte's: the canvas), its
    /// sound placed in time as its picture is (`timing`).
    static func lanes(
        _ readers: [MovieReader], options: CompositeOptions, layout: Layout, blender: Blender, canvas: Size, timing: Timing, failure: FailureBox
    ) throws -> [InputLane] {
        let lanes = try readers.enumerated().map { i, r in
            let conformer: Conformer
            do {
                guard i < layout.places.count else { return InputLane(index: i, reader: r, conformer: try .matte(canvas: canvas, rotation: r.video.rotation), poolSize: 4, failure: failure) }
                let place = layout.places[i], pic = layout.pictures[i]
                conformer = try Conformer(
                    place: Size(width: place.width, height: place.height),
                    picture: Rect(x: pic.x - place.x, y: pic.y - place.y, width: pic.width, height: pic.height),
                    fill: blender.marginColor(ofInput: i), rotation: r.video.rotation, keep: layout.keep[i],
                    color: options.color(of: r))
                conformer.extendsEdges = i == 0 && options.placesKeyedForeground
                // A grid's cells shrink an exact half by 2x2 means (`Halving.box`, issue 43: the
                // quad's speed); the other blends keep swscale's bicubic and their bytes.
                conformer.halving = options.blend == .quad || options.blend == .grid ? .box : .bicubic
            } catch let e as MediaError { throw e.at(r.path) }
            let alpha = try options.alphaConformer(ofInput: i, reader: r, place: conformer.place, picture: conformer.picture, fill: conformer.fill)
            if alpha != nil && layout.keep[i] != .all {
                throw CompositeOptionsError.alphaOffCanvas(input: i, path: r.path)
            }
            return InputLane(index: i, reader: r, conformer: conformer, poolSize: 4, failure: failure, alphaConformer: alpha)
        }
        let clocks = options.placement.clocks
        for (i, lane) in lanes.enumerated() {
            lane.reader.audioDriftPpb = options.sync == .time ? clocks[i].driftPpb : 0
            lane.audioShift = timing.audioShift(input: i)
            lane.audio?.audible = timing.audible(input: i)
        }
        return lanes
    }

    /// What an absent input (`--longest`) shows: its place with no picture, as its margins are.
    static func blanks(_ lanes: [InputLane], coverage: SyncPlacement.Coverage) throws -> [Frame?] {
        try lanes.map { lane -> Frame? in
            guard coverage == .longest else { return nil }
            if let alpha = lane.alphaConformer { return try alpha.emptyFrame() }
            return try Frame(width: lane.conformer.place.width, height: lane.conformer.place.height, color: lane.conformer.fill)
        }
    }

    /// The writer on `file`'s temporary file and its stage: the encoder settings (an HDR
    /// output passes on the first HDR input's mastering display and light levels), each input's
    /// gain in the mix, and under --loudness the measurement that sets them.
    private func writerThread(
        _ file: OutputPath, readers: [MovieReader], lanes: [InputLane], canvas: Size, frameRate: Rational, firstFrame: Int64, withAudio: Bool,
        options: CompositeOptions, failure: FailureBox
    ) throws -> (WriterThread, LoudnessPass.Measurement?) {
        let container = OutputPath.container(for: options.output)
        var encode = options.encode
        encode.signal = options.signal
        // An HDR output passes on the first HDR input's mastering display and light levels
        // (its stream's, else its first picture's).
        if options.signal.isHDR {
            for r in readers where r.video.color.description?.isHDR == true {
                let hdr = try HDRMetadata.of(movie: r.path)
                if !hdr.isEmpty { encode.hdr = hdr; break }
            }
        }
        // Camera telemetry (CompositeTelemetry.swift): kept where the output keeps the input's timeline.
        let kept = try Self.keptTelemetry(options, readers: readers, frameRate: frameRate, firstFrame: firstFrame)
        if let notice = kept.notice { tell([notice]) }
        let writer = try MovieWriter(
            path: file.path, container: container, canvas: canvas, frameRate: frameRate,
            settings: encode, withAudio: withAudio, telemetry: kept.telemetry?.format)
        if let t = kept.telemetry { writer.carryTelemetry(Self.packets(t, from: kept.start)) }
        var gains = (options.gains ?? Array(repeating: 1, count: options.inputs.count)).map(Float.init) + (options.matte == nil ? [] : [0])
        if let n = options.audioFrom { for i in gains.indices where i != n { gains[i] = 0 } }
        var loudness: LoudnessPass.Measurement?
        if let target = options.loudness, withAudio {
            let mixed = lanes.filter { $0.audio != nil }.map { (path: options.readerPaths[$0.index], gain: gains[$0.index]) }
            let m = try LoudnessPass.measure(mixed, target: target, cancellation: cancellation)
            gains = gains.map { $0 * Float(m.gain) }
            loudness = m
        }
        let stage = try WriterThread(
            writer: writer, sounds: lanes.map { l -> (any SoundSource)? in l.audio }, gains: gains, frameRate: frameRate, canvas: canvas,
            poolSize: 3, failure: failure, firstFrame: firstFrame, measuresLoudness: loudness != nil,
            signal: options.signal)
        return (stage, loudness)
    }

    /// The video's clock at each tick as the single pass sees it (what `SnakeStage` pairs
    /// motion with): the time of the first input's frame the sync takes, from its first
    /// frame's, ns.
    static func videoTime(_ frames: SegmentPlan.Frames, sync: SyncMode, frameRate: Rational) -> (Int64) -> Int64 {
        let ns = Rational(1, 1_000_000_000)
        let origin = Rational.rescale(frames.pts[0], from: frames.timeBase, to: ns)
        return { tick in
            let i = SegmentPlan.frame(atTick: tick, frames, sync: sync, frameRate: frameRate)!
            return Rational.rescale(frames.pts[i], from: frames.timeBase, to: ns) - origin
        }
    }

    /// "input 2 (x.ts): its timestamps go back from 0.967 s to 0.000 s at source frame 30; the output ends there"
    static func describe(_ jump: FrameSync<LaneFrame>.BackwardJump, path: String) -> String {
        func s(_ t: Timestamp) -> String { String(format: "%.3f s", t.seconds) }
        return "input \(jump.input + 1) (\(path)): its timestamps go back from \(s(jump.last.pts)) to \(s(jump.refused.pts)) "
            + "at source frame \(jump.refused.index); under --sync time the output ends there"
    }

    /// The record of the tick just emitted: source index and pts per input, and under time sync
    /// until when that frame is on screen ([] for an absent input; plus, on frame 0, the file's
    /// header fields).
    private func provenance(of sync: FrameSync<LaneFrame>, header: Provenance?) -> Provenance {
        var p = header ?? Provenance(k: 0, src: [])
        p.k = sync.tick
        p.src = (0..<sync.inputCount).map { i in
            guard sync.presence(i) != .absent else { return [] }
            let f = sync.chosenFrame(i)
            return [Int64(f.index), f.pts.value] + (sync.until(i).map { [$0.value] } ?? [])
        }
        let damaged = (0..<sync.inputCount).filter { sync.chosenIfPresent($0)?.picture.damaged ?? false }
        p.damaged = damaged.isEmpty ? nil : damaged
        let held = (0..<sync.inputCount).filter { sync.presence($0) == .held }
        p.held = held.isEmpty ? nil : held
        return p
    }

    /// Frame 0's header: the sync, the blend, the rate, every input with its clock.
    private func header(_ sync: FrameSync<LaneFrame>, readers: [MovieReader], frameRate: Rational) -> Provenance {
        let placement = sync.placement
        var h = Provenance.header(
            sync: options.sync.rawValue, blend: options.blend.rawValue, frameRate: frameRate,
            inputs: readers.enumerated().map { i, r in
                var input = Provenance.Input(path: r.path, timeBase: r.video.timeBase, audio: r.audio != nil)
                input.origin = sync.origin(i)?.value
                let clock = placement.clocks[i]
                if options.sync == .time {
                    if clock.offset != Rational(0, 1) { input.offset = Provenance.fraction(clock.offset) }
                    if clock.driftPpm != 0 { input.driftPpm = clock.driftPpm }
                    if clock.trim != .whole { input.trim = Self.trimText(clock.trim) }
                }
                if sync.isStill(i) { input.still = true }
                return input
            })
        if sync.start != Rational(0, 1) { h.start = Provenance.fraction(sync.start) }
        if placement.coverage != .common && options.sync == .time { h.coverage = placement.coverage.rawValue }
        if placement.holdLast { h.holdLast = true }
        return h
    }

    /// "1.5:9" (exact fractions where a decimal would round: "1/3:").
    static func trimText(_ t: InputClock.Trim) -> String {
        func exact(_ r: Rational) -> String { r.den == 1 ? "\(r.num)" : "\(r.num)/\(r.den)" }
        return exact(t.start) + ":" + (t.end.map(exact) ?? "")
    }

    /// The output's length in frames for progress, as the sync will place the inputs: under time
    /// sync each input's part (`--trim`) where its clock puts it (`--offsets`, `--drift`), the
    /// time all share (or from the first start to the last end: `--longest`, `--hold-last`).
    static func expectedFrames(_ readers: [MovieReader], options: CompositeOptions, frameRate: Rational) -> Int64? {
        let inputs = Array(readers.prefix(options.inputs.count))
        guard options.sync == .time, options.placesInputsInTime || options.holdLast else { return expectedFrames(inputs, sync: options.sync, frameRate: frameRate) }
        let placement = options.placement
        var ends: [Rational] = []
        for (i, r) in inputs.enumerated() where !r.video.isStill {
            guard let d = r.video.duration ?? r.containerDuration else { return nil }
            let clock = placement.clocks[i]
            let used = clock.trim.end.map { $0 < d ? $0 : d } ?? d
            ends.append(clock.referenceTime(ofInput: used))
        }
        guard let first = ends.first else { return expectedFrames(inputs, sync: options.sync, frameRate: frameRate) }
        let longest = placement.coverage == .longest || placement.holdLast
        let end = ends.dropFirst().reduce(first) { longest ? ($1 < $0 ? $0 : $1) : ($1 < $0 ? $1 : $0) }
        guard let length = end.subtracting(placement.start), length.num > 0 else { return 0 }
        return TimeCut.ceil(length * frameRate)
    }

    static func expectedFrames(_ readers: [MovieReader], sync: SyncMode, frameRate: Rational) -> Int64? {
        // A still is shown throughout: it does not bound the output (stills alone: one frame).
        let movies = readers.filter { !$0.video.isStill }
        if movies.isEmpty { return readers.isEmpty ? nil : 1 }
        let readers = movies
        let counts: [Int64] = readers.compactMap { r in
            switch sync {
            case .index:
                if let n = r.video.shownFrames ?? r.video.indexedFrames { return n }
                guard let d = r.video.duration ?? r.containerDuration, let fps = r.video.frameRate else { return nil }
                return Rational.rescale(1, from: d * fps, to: Rational(1, 1))
            case .time:
                guard let d = r.video.duration ?? r.containerDuration else { return nil }
                return Rational.rescale(1, from: d * frameRate, to: Rational(1, 1))
            }
        }
        return counts.count == readers.count ? counts.min() : nil
    }
}

/// The readers opened by `openReaders()`'s threads, handed to the job's thread: a reader is not
/// Sendable, but each changes hands once, under the lock, and is used by one thread at a time.
private final class OpenedReaders: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<MovieReader, Error>?]
    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ result: Result<MovieReader, Error>) { lock.lock(); results[i] = result; lock.unlock() }
    var complete: Bool { lock.lock(); defer { lock.unlock() }; return results.allSatisfy { $0 != nil } }
    func readers() throws -> [MovieReader] {
        lock.lock(); defer { lock.unlock() }
        return try results.map { try $0!.get() }
    }
}

private extension Double {
    func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
    var int64: Int64 { Int64(self) }
}

extension CompositeOptions {
    /// What input `reader`'s pictures are converted into.
    func color(of reader: MovieReader) -> ColorOptions {
        ColorOptions(working: signal, toneCurve: toneCurve, metadata: reader.video.color.hdr)
    }
}
