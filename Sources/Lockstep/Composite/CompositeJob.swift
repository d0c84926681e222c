import Compositor
import Foundation
import Media

/// Everything `lockstep composite` needs to know.
public struct CompositeOptions: Sendable {
    public var inputs: [String]
    public var output: String
    public var blend: BlendMode
    public var sync: SyncMode = .index
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
    /// Conceal decode errors in the inputs and go on (each damaged frame named in a warning and
    /// in the output's provenance) instead of stopping at the first.
    public var conceal = false
    /// Seconds a stage may be stuck before the job stops with an error naming it.
    public var stallTimeout = 30.0
    /// The video-snake effect as a last stage, driven by an IMU trace.
    public var snake: SnakeOptions?
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

    public init(inputs: [String], output: String, blend: BlendMode) {
        self.inputs = inputs; self.output = output; self.blend = blend
    }
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
}

/// A failure of the job that is not FFmpeg's: bad input combinations, cancellation.
public struct JobError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
    public static let cancelled = JobError("cancelled")
}

/// Opens every input, runs readers, compositor and writer as overlapping stages with bounded
/// queues, writes to a temporary file beside the output and renames it only on success.
///
/// Threads: `run()` on the caller's thread (the compositor), one per input lane, the writer, the
/// watchdog. `cancel()` may come from any thread (a signal source's queue, never a signal
/// handler itself); it only raises flags, closes queues and wakes waiters.
public final class CompositeJob: @unchecked Sendable {  // mutable state guarded by `lock`
    public let options: CompositeOptions
    /// The current attempt's failure (a snake segment may start again, `run()`).
    private var failure = FailureBox()
    private var lanes: [InputLane] = []
    private var writerStage: WriterStage?
    private let lock = NSCondition()
    private var cancelled = false
    /// Raised on cancellation or failure: every reader's open and reads give up.
    private let cancellation = CancellationToken()
    /// Called on the compositor thread after each output frame: (frames done, frames expected).
    public var progress: (@Sendable (Int64, Int64?) -> Void)?

    public init(options: CompositeOptions) { self.options = options }

    /// Stops a running job from another thread: it ends with `JobError.cancelled`, also while
    /// an input is still opening (a FIFO nobody writes to blocks in open(2) for good).
    public func cancel() { stop(because: JobError.cancelled) }

    private func stop(because error: Error) {
        lock.lock(); cancelled = true; let lanes = self.lanes; let w = writerStage; let failure = self.failure; lock.broadcast(); lock.unlock()
        failure.record(error)
        cancellation.cancel()
        for l in lanes { l.cancel() }
        w?.queue.close(); w?.pool.close()
    }

    /// Opens every input on a thread of its own and waits for all of them, or for `cancel()`.
    /// An open that blocks (a FIFO with no writer) gives up when the cancellation token is
    /// raised; the job does not wait for it either. Failures are reported in input order, as a person reads the command line.
    private func openReaders() throws -> [MovieReader] {
        let box = OpenedReaders(count: options.readerPaths.count)
        for (i, path) in options.readerPaths.enumerated() {
            let audio = options.audio && i < options.inputs.count, conceal = options.conceal, cancellation = self.cancellation
            let t = Thread { [box, lock] in
                let result = Result { try MovieReader(path: path, audio: audio, conceal: conceal, cancellation: cancellation) }
                box.set(i, result)
                lock.lock(); lock.broadcast(); lock.unlock()
            }
            t.name = "lockstep.open.\(i + 1)"
            t.start()
        }
        lock.lock()
        while !cancelled && !box.complete { lock.wait() }
        let wasCancelled = cancelled
        lock.unlock()
        if wasCancelled { throw JobError.cancelled }
        return try box.readers()
    }

    /// A snake segment whose pre-roll window the bracket did not close: the attempt is dropped
    /// before any frame is written, and the job starts again with a longer window.
    private struct LongerPreRoll: Error {}

    public func run() throws -> CompositeResult {
        // Snake segments: pre-roll windows of 16, 32, 64 frames, then the taint's own pre-roll
        // (as far back as frame 0 if need be), which is always exact (`SnakeStage.startSegment`).
        for window in [16, 32, SnakeStage.longestBracketWindow, .max] as [Int64] {
            lock.lock(); failure = FailureBox(); lock.unlock()
            do { return try run(preRollWindow: window) } catch is LongerPreRoll { continue }
        }
        fatalError("the last window is the taint's, which never asks for a longer one")
    }

    private func run(preRollWindow: Int64) throws -> CompositeResult {
        lock.lock(); let failure = self.failure; lock.unlock()
        try options.check()
        try OutputPath.check(options.output, inputs: options.readerPaths)
        let folder = URL(fileURLWithPath: options.output).deletingLastPathComponent().path
        OutputPath.removeStaleTemporaries(in: folder)
        let readers = try openReaders()
        for r in readers { r.deinterlace(options.deinterlace) }
        let first = readers[0]
        // The first input's size, even (4:2:0), and large enough for every place to hold a 2x2
        // picture (a quad's cells are a quarter of the canvas).
        let smallest = options.blend == .quad ? 4 : 2
        let canvas = options.size ?? Size(width: max(smallest, first.video.displaySize.width & ~1),
                                          height: max(smallest, first.video.displaySize.height & ~1))
        guard canvas.width >= 2 && canvas.height >= 2 else { throw MediaError("picture too small to be a canvas", path: first.path) }
        guard let frameRate = options.frameRate ?? first.video.frameRate else {
            throw MediaError("no frame rate in the file; give one with --fps", path: first.path)
        }
        if options.blend == .quad && (canvas.width < 4 || canvas.height < 4) {
            throw JobError("--size \(canvas) is too small for quad: each of its cells needs at least 2x2 pixels")
        }
        // Before any thread starts: a .cube that cannot be read stops the job here.
        let filters = try options.filter.map { try FilterStage(schedule: $0, canvas: canvas) }
        let layout = Layout(blend: options.blend, canvas: canvas, inputs: readers.prefix(options.inputs.count).map(\.video.displaySize))
        let matteMix = options.matte.map { MatteMix(factor: $0.mixFactor) }
        let key = ChromaKey(keyColor: options.keyColor, similarity: options.similarity, smoothness: options.smoothness,
                            matrix: options.signal.matrix)
        var blender = Blender(mode: options.blend, layout: layout, key: key, keyer: options.makeKeyer(),
                              weights: options.weights ?? Array(repeating: 1, count: options.inputs.count))
        if let matteMix, options.blend != .single { blender.matte = (matteMix, options.matte!.mode) }
        blender.keyAlphaAndColor = options.keyAlphaAndColor
        blender.signal = options.signal
        let lanes = try readers.enumerated().map { i, r in
            let conformer: Conformer
            do {
                guard i < layout.places.count else { return InputLane(index: i, reader: r, conformer: try .matte(canvas: canvas, rotation: r.video.rotation), poolSize: 4, failure: failure) }
                let place = layout.places[i], pic = layout.pictures[i]
                conformer = try Conformer(place: Size(width: place.width, height: place.height),
                                          picture: Rect(x: pic.x - place.x, y: pic.y - place.y, width: pic.width, height: pic.height),
                                          fill: blender.marginColor(ofInput: i), rotation: r.video.rotation,
                                          color: options.color(of: r))
            } catch let e as MediaError { throw e.at(r.path) }
            let alpha = try options.alphaConformer(ofInput: i, reader: r, place: conformer.place, picture: conformer.picture, fill: conformer.fill)
            return InputLane(index: i, reader: r, conformer: conformer, poolSize: 4, failure: failure, alphaConformer: alpha)
        }
        let withAudio = lanes.contains { $0.audio != nil }
        let snake = options.snake.map { SnakeStage(options: $0, canvas: canvas, frameRate: frameRate) }
        let segment = try options.frames.map { range in
            try Self.startSegment(range, lanes: lanes, sync: options.sync, frameRate: frameRate, withAudio: withAudio) { frames in
                guard let snake else { return range.start }
                return snake.startSegment(at: range.start, videoTime: Self.videoTime(frames, sync: options.sync, frameRate: frameRate),
                                          window: preRollWindow)
            }
        }
        let firstK = options.frames?.start ?? 0
        let container = OutputPath.container(for: options.output)
        let temporary = OutputPath.temporary(beside: options.output)
        var committed = false
        defer { if !committed { unlink(temporary) } }
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
        let writer = try MovieWriter(path: temporary, container: container, canvas: canvas, frameRate: frameRate,
                                     settings: encode, withAudio: withAudio)
        let gains = (options.gains ?? Array(repeating: 1, count: options.inputs.count)).map(Float.init) + (options.matte == nil ? [] : [0])
        let stage = try WriterStage(writer: writer, lanes: lanes, gains: gains, frameRate: frameRate, canvas: canvas,
                                    poolSize: 3, failure: failure, firstFrame: firstK, signal: options.signal)
        lock.lock()
        self.lanes = lanes; writerStage = stage
        let wasCancelled = cancelled
        lock.unlock()
        if wasCancelled { throw JobError.cancelled }

        let compositorClock = StageClock(name: "the compositor")
        let watchdog = Watchdog(clocks: lanes.map(\.clock) + [compositorClock, stage.clock], timeout: options.stallTimeout) {
            [weak self] in self?.stop(because: JobError($0))
        }
        for l in lanes { l.start() }
        stage.start(withAudio: withAudio)
        watchdog.start()
        defer { watchdog.stop() }
        let expected = options.frames?.count ?? Self.expectedFrames(readers, sync: options.sync, frameRate: frameRate)

        let header = Provenance(k: 0, src: [], sync: options.sync.rawValue, blend: options.blend.rawValue,
                                fps: "\(frameRate.num)/\(frameRate.den)",
                                inputs: readers.map { Provenance.Input(name: ($0.path as NSString).lastPathComponent,
                                                                       timeBase: "\($0.video.timeBase.num)/\($0.video.timeBase.den)", audio: $0.audio != nil) })
        // A segment of the snake starts rendering before its first frame (`SnakeStage.startSegment`).
        let firstTick = segment?.firstTick ?? firstK
        var sync = FrameSync<LaneFrame>(mode: options.sync, inputs: lanes.count, frameRate: frameRate, startTick: firstTick)
        for (i, origin) in (segment?.origins ?? []).enumerated() { sync.setOrigin(origin, input: i) }
        var endedBy: Int?
        var emitted: Int64 = 0
        var longerPreRoll = false
        let stamp = ProvenanceStamp(width: canvas.width, height: canvas.height)
        if let origin = segment?.origins.first { snake?.firstFrameTime = Rational.rescale(origin.value, from: origin.timeBase, to: Rational(1, 1_000_000_000)) }
        // Pre-roll frames are drawn here, never handed to the writer.
        let preRollFrame: Frame? = try firstTick < firstK ? Frame(width: canvas.width, height: canvas.height) : nil
        loop: while failure.error == nil {
            switch sync.step() {
            case .need(let i):
                compositorClock.set("waiting for input \(i + 1)", busy: false)
                guard let item = lanes[i].frames.pop() else { break loop }  // closed: a failure
                if let item { sync.push(item.picture.source, payload: item, input: i) } else { sync.finish(input: i) }
            case .release(let item):
                lanes[item.lane].recycle(item)
            case .emit(let tick):
                let preRolling = tick < firstK
                if emitted == options.frames?.count { break loop }  // the segment is complete
                compositorClock.set("waiting for the writer", busy: false)
                guard let out = preRolling ? preRollFrame : stage.pool.pop() else { break loop }
                compositorClock.set(preRolling ? "rendering pre-roll frame \(tick)" : "blending frame \(emitted)", busy: true)
                try out.makeWritable()
                let matte = options.matte == nil ? nil : sync.chosen(lanes.count - 1).frame
                blender.blend({ sync.chosen($0).frame }, matte: matte, into: out)
                let k = preRolling ? tick : firstK + emitted  // the single pass's frame index
                let chain: String?
                if let matte, let matteMix, options.blend == .single {
                    chain = try filters?.apply(to: out, matte: matte, mix: matteMix, index: k, time: frameRate.inverse * k)
                } else {
                    chain = try filters?.apply(to: out, index: k, time: frameRate.inverse * k)
                }
                if let snake {
                    // The video's clock is the first input's: its chosen frame's pts.
                    let pts = sync.chosenFrame(0).pts
                    snake.apply(to: out, index: k, time: Rational.rescale(pts.value, from: pts.timeBase, to: Rational(1, 1_000_000_000)),
                                written: !preRolling)
                    if snake.needsLongerPreRoll { longerPreRoll = true; break loop }
                }
                if preRolling { continue loop }
                var record = provenance(of: sync, header: k == 0 ? header : nil)
                record.filter = chain
                try stamp.stamp(out, with: record)
                guard stage.queue.push(out) else { break loop }
                emitted += 1
                progress?(emitted, expected)
            case .end(let input, _):
                endedBy = input
                break loop
            }
        }
        // No more pictures are needed: readers deliver only the audio that the video covers.
        let audioEnd = stage.samples(emitted)
        for l in lanes { l.stopVideo(audioUntil: withAudio ? audioEnd : .min) }
        stage.queue.close()
        stage.join()
        if failure.error == nil {
            for l in lanes { l.join() }
        } else {
            for l in lanes { _ = l.join(timeout: 1) }
        }
        while sync.drain() != nil {}
        if longerPreRoll {
            lock.lock(); let wasCancelled = cancelled; lock.unlock()
            if !wasCancelled && failure.error == nil { throw LongerPreRoll() }
        }
        if let error = failure.error { throw error }
        guard emitted > 0 else {
            throw MediaError("has no video frame to composite", path: options.readerPaths[endedBy ?? 0])
        }
        if let range = options.frames, emitted < range.count {
            let i = endedBy ?? 0
            throw FrameRange.pastEnd(range, input: i, path: options.readerPaths[i], frames: firstK + emitted)
        }
        let snakeSummary = try snake?.finish()
        try filters?.finish(frames: segment?.outputLength ?? emitted, frameRate: frameRate)
        try OutputPath.commit(temporary, to: options.output)
        committed = true
        return CompositeResult(frames: emitted, audioSamples: withAudio ? audioEnd : nil, canvas: canvas,
                               frameRate: frameRate, endedBy: endedBy, snake: snakeSummary,
                               warnings: lanes.flatMap { l in
                                   l.reader.damage.map { "\(l.reader.path): damaged \($0), concealed" }
                               } + sync.backwardJumps.map { Self.describe($0, path: options.readerPaths[$0.input]) },
                               picturesDecoded: lanes.map(\.reader.picturesDecoded))
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

    /// The record of the tick just emitted: source index and pts per input (plus, on frame 0,
    /// the file's header fields).
    private func provenance(of sync: FrameSync<LaneFrame>, header: Provenance?) -> Provenance {
        var p = header ?? Provenance(k: 0, src: [])
        p.k = sync.tick
        p.src = (0..<sync.inputCount).map { let f = sync.chosenFrame($0); return [Int64(f.index), f.pts.value] }
        let damaged = (0..<sync.inputCount).filter { sync.chosen($0).picture.damaged }
        p.damaged = damaged.isEmpty ? nil : damaged
        return p
    }

    static func expectedFrames(_ readers: [MovieReader], sync: SyncMode, frameRate: Rational) -> Int64? {
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

/// The readers opened by `openReaders()`'s threads, guarded by its lock.
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

extension CompositeOptions {
    /// What input `reader`'s pictures are converted into.
    func color(of reader: MovieReader) -> ColorOptions {
        ColorOptions(working: signal, toneCurve: toneCurve, metadata: reader.video.color.hdr)
    }
}
