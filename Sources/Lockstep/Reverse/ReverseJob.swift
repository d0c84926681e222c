import Compositor
import Foundation
import Media

/// What happens to the input's audio in `lockstep reverse`.
public enum ReverseAudioMode: String, CaseIterable, Sendable {
    /// Reversed sample by sample with the pictures (forward where a boomerang goes forward).
    case reverse
    /// The original audio as it is, from the start, cut to the video (silence past its end).
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
    /// Decoded pictures held at most (the pool a backward run decodes into); nil: as many as
    /// `poolBytes` holds, at least 4 (64 MiB: 21 pictures at 1080p, which keeps the whole job
    /// under 400 MB there: measured, the rest of it is about 320 MB, mostly x264).
    public var poolFrames: Int?
    public var poolBytes = 64 << 20
    public var encode = EncodeSettings()
    /// The output's size (the picture fitted into it); nil: the input's display size.
    public var size: Size?
    /// The signal the pictures are converted into and written in (as `composite --hdr`), and how
    /// HDR pictures are brought into SDR.
    public var signal = WorkingSignal.sdr
    public var toneCurve = ToneCurve.hable

    public init(input: String, output: String) { self.input = input; self.output = output }

    /// The most loops asked for: the plan holds a run per loop, so an unbounded count is an
    /// unbounded allocation (--loops 9223372036854775807 crashed, 1000000000 never finished).
    public static let mostLoops = 1000

    /// The rules on the options alone, as sentences (the CLI makes them usage errors).
    public func check() throws {
        guard loops >= 1 else { throw JobError("--loops must be at least 1 (it is \(loops)).") }
        guard loops <= Self.mostLoops else { throw JobError("--loops must be at most \(Self.mostLoops) (it is \(loops)).") }
        if let p = poolFrames, p < 1 { throw JobError("--pool-frames must be at least 1 (it is \(p)).") }
        // --size, --codec, --crf and --preset: the same rules and sentences as composite's.
        try CompositeOptions.check(size: size, frameRate: nil, signal: signal, codec: encode.codec)
        try CompositeOptions.check(codec: encode.codec, signal: signal, output: output)
        try CompositeOptions.check(encode: encode)
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
}

/// Reverses a movie (or makes a boomerang of it) in bounded memory: the video is read
/// backwards GOP by GOP through `SeekingVideoReader` into a pool of `poolFrames` pictures; a
/// GOP longer than the pool is read in sub-ranges from its end, each decoded again from its
/// keyframe (`ReversePlan.backwardPasses`). The audio is decoded once to a temporary raw file
/// (`ReverseAudioSpool`) and read back per output frame, reversed where the pictures are.
/// Output frame k has pts k/fps (variable frame rate input: the sum of the durations, reversed,
/// of the frames before it), and carries its source frame as provenance.
///
/// `run()` works on the caller's thread; `cancel()` may come from any other.
public final class ReverseJob: Job {
    public let options: ReverseOptions
    private let cancellation = CancellationToken()
    /// Progress after each output frame: (frames done, frames expected).
    private let events: JobEvents

    public init(options: ReverseOptions, events: JobEvents = JobEvents()) {
        self.options = options; self.events = events
    }

    public func cancel() { cancellation.cancel() }

    public func run() throws -> ReverseResult {
        try options.check()
        try OutputPath.checkInput(options.input)
        try OutputPath.check(options.output, inputs: [options.input])
        return try OutputPath.writing(to: options.output) { try run($0) }
    }

    private func run(_ file: OutputPath) throws -> ReverseResult {

        let reader = try SeekingVideoReader(path: options.input, cancellation: cancellation)
        let index = reader.index, n = index.frameCount
        let canvas = options.size ?? reader.video.displaySize.evenCanvas
        if options.size == nil, let problem = EncodeSettings.problem(encoding: canvas, as: options.signal, codec: options.encode.codec) {
            throw JobError("the canvas \(canvas), from \(options.input)'s picture, cannot be encoded: \(problem); give another with --size.")
        }
        let inputs = [(path: options.input, video: reader.video)]
        if let line = ToneMapping.notice(inputs, signal: options.signal, curve: options.toneCurve) { events.notice?(line) }
        let tb = index.timeBase
        // Constant rate: one frame per 1/fps. Otherwise the source's time base and its durations.
        let constantRate = index.constantRate(nominal: reader.video.frameRate)
        let variable = constantRate == nil
        let frameRate = constantRate ?? reader.video.frameRate ?? Rational(30, 1)
        let plan = ReversePlan(frames: n, boomerang: options.boomerang, loops: options.loops)
        let frameBytes = canvas.width * canvas.height * 3 / 2
        let pool = options.poolFrames ?? max(4, options.poolBytes / max(1, frameBytes))

        // Audio positions: samples from the first frame, on the source's clock and the output's.
        let origin = index.pts[0]
        // At a constant rate frame s starts at s/fps exactly (the file may store it rounded).
        func sourceSample(_ s: Int) -> Int64 {
            if !variable { return AudioTimeline.samples(coveringFrames: Int64(s), frameRate: frameRate, sampleRate: AudioFormat.sampleRate) }
            let t = s < n ? index.pts[s] : index.pts[n - 1] + index.durations[n - 1]
            return Rational.rescale(t - origin, from: tb, to: Rational(1, Int64(AudioFormat.sampleRate)))
        }
        let spool = try options.audio == .none ? nil : spoolAudio(limit: sourceSample(n), origin: origin, timeBase: tb)

        let container = OutputPath.container(for: options.output)
        let writer = try MovieWriter(
            path: file.path, container: container, canvas: canvas, frameRate: frameRate,
            settings: try ToneMapping.settings(options.encode, signal: options.signal, inputs: inputs), withAudio: spool != nil,
            videoTimeBase: variable ? tb : nil)
        let conformer = try Conformer(
            place: canvas, picture: Layout(blend: .single, canvas: canvas, inputs: [reader.video.displaySize]).pictures[0],
            fill: .black, rotation: reader.video.rotation,
            color: ColorOptions(working: options.signal, toneCurve: options.toneCurve, metadata: reader.video.color.hdr))
        let frames = (0..<min(pool, index.longestSegment)).map { _ in Frame() }
        let out = Frame()
        let stamp = ProvenanceStamp(width: canvas.width, height: canvas.height)
        let header = Provenance.header(
            sync: options.boomerang ? "boomerang" : "reverse", frameRate: frameRate,
            inputs: [Provenance.Input(path: options.input, timeBase: tb, audio: spool != nil)])
        let left = UnsafeMutablePointer<Float>.allocate(capacity: ReverseAudioSpool.chunk)
        let right = UnsafeMutablePointer<Float>.allocate(capacity: ReverseAudioSpool.chunk)
        defer { left.deallocate(); right.deallocate() }
        var emitted: Int64 = 0
        var outputTime: Int64 = 0  // in tb (variable rate) or frames
        let expected = Int64(plan.count)

        func outputSample(_ time: Int64) -> Int64 {
            variable
                ? Rational.rescale(time, from: tb, to: Rational(1, Int64(AudioFormat.sampleRate)))
                : AudioTimeline.samples(coveringFrames: time, frameRate: frameRate, sampleRate: AudioFormat.sampleRate)
        }

        // Shows source frame `s` (its picture in `picture`, left empty) as the next output frame.
        func emit(_ s: Int, _ picture: Frame, backward: Bool) throws {
            if cancellation.isCancelled { throw JobError.cancelled }
            try conformer.fit(picture, into: out)
            var p = emitted == 0 ? header : Provenance(k: emitted, src: [])
            p.src = [[Int64(s), index.pts[s]]]
            try stamp.stamp(out, with: p, sources: [out])
            try writer.writeVideo(out, pts: outputTime, duration: variable ? index.durations[s] : 1)
            let start = outputSample(outputTime)
            outputTime += variable ? index.durations[s] : 1
            if let spool {
                // This frame's samples: the source frame's own, in order or reversed (`keep`: the
                // source's at the same place). Both clocks round the same boundaries, so a
                // frame's count differs from its source's by a sample at most, never adding up.
                let count = outputSample(outputTime) - start
                var done: Int64 = 0
                while done < count {
                    let k = Int(min(Int64(ReverseAudioSpool.chunk), count - done))
                    switch (options.audio, backward) {
                    case (.keep, _):
                        try spool.read(from: start + done, count: k, reversed: false, left: left, right: right)
                    case (_, false):
                        try spool.read(from: sourceSample(s) + done, count: k, reversed: false, left: left, right: right)
                    case (_, true):
                        try spool.read(from: sourceSample(s + 1) - done - Int64(k), count: k, reversed: true, left: left, right: right)
                    }
                    try writer.writeAudio(left: left, right: right, count: k)
                    done += Int64(k)
                }
            }
            emitted += 1
            events.progress?(emitted, expected)
        }

        for run in plan.runs {
            switch run {
            case .forward(let r):
                try reader.decode(r.lowerBound..<(r.upperBound + 1)) { s, picture in try emit(s, picture, backward: false) }
            case .backward(let r):
                let passes = ReversePlan.backwardPasses(r, pool: frames.count) { index.segmentStarts[index.segment(of: $0)] }
                for pass in passes {
                    try reader.decode(pass) { s, picture in frames[s - pass.lowerBound].take(from: picture) }
                    for s in pass.reversed() { try emit(s, frames[s - pass.lowerBound], backward: true) }
                }
            }
        }
        try writer.finish()
        if cancellation.isCancelled { throw JobError.cancelled }
        return ReverseResult(
            frames: emitted, sourceFrames: n, audioSamples: spool != nil ? outputSample(outputTime) : nil,
            canvas: canvas, frameRate: frameRate, poolFrames: frames.count, longestGOP: index.longestSegment,
            picturesDecoded: reader.picturesDecoded, seeks: reader.seeks)
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
