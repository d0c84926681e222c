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
    public var encode = EncodeSettings()

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
    /// Damage concealed under `conceal`: one line per damaged input frame, naming the input.
    public var warnings: [String] = []
}

/// A failure of the job that is not FFmpeg's: bad input combinations, cancellation.
public struct JobError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
    public static let cancelled = JobError("cancelled")
}

/// Opens every input, runs readers, compositor and writer as overlapping stages with bounded
/// queues, writes to a temporary file beside the output and renames it only on success.
public final class CompositeJob {
    public let options: CompositeOptions
    private let failure = FailureBox()
    private var lanes: [InputLane] = []
    private var writerStage: WriterStage?
    private let lock = NSLock()
    private var cancelled = false
    /// Raised on cancellation or failure: every reader's open and reads give up.
    private let cancellation = CancellationToken()
    /// Called on the compositor thread after each output frame: (frames done, frames expected).
    public var progress: ((Int64, Int64?) -> Void)?

    public init(options: CompositeOptions) { self.options = options }

    /// Stops a running job from another thread (a signal handler): it ends with `JobError.cancelled`.
    public func cancel() { stop(because: JobError.cancelled) }

    private func stop(because error: Error) {
        lock.lock(); cancelled = true; let lanes = self.lanes; let w = writerStage; lock.unlock()
        failure.record(error)
        cancellation.cancel()
        for l in lanes { l.cancel() }
        w?.queue.close(); w?.pool.close()
    }

    public func run() throws -> CompositeResult {
        let readers: [MovieReader]
        do {
            readers = try options.inputs.map {
                try MovieReader(path: $0, audio: options.audio, conceal: options.conceal, cancellation: cancellation)
            }
        } catch let e as MediaError where e.kind == .cancelled {
            throw failure.error ?? JobError.cancelled
        }
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
        let layout = Layout(blend: options.blend, canvas: canvas, inputs: readers.map(\.video.displaySize))
        let key = ChromaKey(keyColor: options.keyColor, similarity: options.similarity, smoothness: options.smoothness)
        var blender = Blender(mode: options.blend, layout: layout, key: key,
                              weights: options.weights ?? Array(repeating: 1, count: readers.count))
        let lanes = try readers.enumerated().map { i, r in
            let place = layout.places[i], pic = layout.pictures[i]
            let conformer: Conformer
            do {
                conformer = try Conformer(place: Size(width: place.width, height: place.height),
                                          picture: Rect(x: pic.x - place.x, y: pic.y - place.y, width: pic.width, height: pic.height),
                                          fill: blender.marginColor(ofInput: i), rotation: r.video.rotation)
            } catch let e as MediaError { throw e.at(r.path) }
            return InputLane(index: i, reader: r, conformer: conformer, poolSize: 4, failure: failure)
        }
        let withAudio = lanes.contains { $0.audio != nil }
        let container = OutputPath.container(for: options.output)
        let temporary = OutputPath.temporary(beside: options.output)
        var committed = false
        defer { if !committed { unlink(temporary) } }
        let writer = try MovieWriter(path: temporary, container: container, canvas: canvas, frameRate: frameRate,
                                     settings: options.encode, withAudio: withAudio)
        let gains = (options.gains ?? Array(repeating: 1, count: readers.count)).map(Float.init)
        let stage = try WriterStage(writer: writer, lanes: lanes, gains: gains, frameRate: frameRate, canvas: canvas,
                                    poolSize: 3, failure: failure)
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
        let expected = Self.expectedFrames(readers, sync: options.sync, frameRate: frameRate)

        let header = Provenance(k: 0, src: [], sync: options.sync.rawValue, blend: options.blend.rawValue,
                                fps: "\(frameRate.num)/\(frameRate.den)",
                                inputs: readers.map { Provenance.Input(name: ($0.path as NSString).lastPathComponent,
                                                                       timeBase: "\($0.video.timeBase.num)/\($0.video.timeBase.den)", audio: $0.audio != nil) })
        var sync = FrameSync<LaneFrame>(mode: options.sync, inputs: lanes.count, frameRate: frameRate)
        var endedBy: Int?
        var emitted: Int64 = 0
        let snake = options.snake.map { SnakeStage(options: $0, canvas: canvas, frameRate: frameRate) }
        loop: while failure.error == nil {
            switch sync.step() {
            case .need(let i):
                compositorClock.set("waiting for input \(i + 1)", busy: false)
                guard let item = lanes[i].frames.pop() else { break loop }  // closed: a failure
                if let item { sync.push(item.picture.source, payload: item, input: i) } else { sync.finish(input: i) }
            case .release(let item):
                lanes[item.lane].recycle(item)
            case .emit:
                compositorClock.set("waiting for the writer", busy: false)
                guard let out = stage.pool.pop() else { break loop }
                compositorClock.set("blending frame \(emitted)", busy: true)
                try out.makeWritable()
                blender.blend({ sync.chosen($0).frame }, into: out)
                if let snake {
                    // The video's clock is the first input's: its chosen frame's pts.
                    let pts = sync.chosenFrame(0).pts
                    snake.apply(to: out, index: emitted, time: Rational.rescale(pts.value, from: pts.timeBase, to: Rational(1, 1_000_000_000)))
                }
                try out.setUserDataSEI(provenance(of: sync, header: emitted == 0 ? header : nil).payload())
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
        if let error = failure.error { throw error }
        guard emitted > 0 else {
            throw MediaError("has no video frame to composite", path: options.inputs[endedBy ?? 0])
        }
        let snakeSummary = try snake?.finish()
        try OutputPath.commit(temporary, to: options.output)
        committed = true
        return CompositeResult(frames: emitted, audioSamples: withAudio ? audioEnd : nil, canvas: canvas,
                               frameRate: frameRate, endedBy: endedBy, snake: snakeSummary,
                               warnings: lanes.flatMap { l in
                                   l.reader.damage.map { "\(l.reader.path): damaged \($0), concealed" }
                               })
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
                if let n = r.video.indexedFrames { return n }
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
