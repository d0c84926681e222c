import Compositor
import Foundation
import Media

/// Joins clips end to end (`lockstep concat`). Every source frame of every clip becomes exactly
/// one output frame, in order (a clip at another rate is retimed, never thinned or padded), each
/// fitted to the canvas as `composite` fits its inputs (its lane's Conformer: scale, turn,
/// margins). Output frame k has pts k/fps; the audio is each clip's own, placed as `ConcatAudio`
/// says, and ends exactly with the video. With a cap the output stops at the last whole frame
/// at or before it, and the audio at the same instant.
///
/// Threads: `run()` on the caller's thread (it encodes), one reader thread per clip, at most two
/// at once (the current clip and the next, decoding ahead). `cancel()` may come from any thread.
public final class ConcatJob: @unchecked Sendable {  // mutable state guarded by `lock`
    public let options: ConcatOptions
    private let failure = FailureBox()
    private let cancellation = CancellationToken()
    private let lock = NSLock()
    private var lanes: [InputLane] = []
    /// Called after each output frame: (frames done, frames expected).
    public var progress: (@Sendable (Int64, Int64?) -> Void)?

    public init(options: ConcatOptions) { self.options = options }

    public func cancel() { stop(because: JobError.cancelled) }

    /// The first failure wins (a cancel, or the watchdog's sentence); every reader is stopped.
    private func stop(because error: Error) {
        failure.record(error)
        cancellation.cancel()
        lock.lock(); let lanes = self.lanes; lock.unlock()
        for l in lanes { l.cancel() }
    }

    public func run() throws -> ConcatResult {
        try options.check()
        try OutputPath.check(options.output, inputs: options.clips)
        let pending = try OutputPath(for: options.output)
        do {
            return options.copy ? try runCopy(pending) : try run(pending)
        } catch {
            pending.discard()
            throw pending.explain(error)
        }
    }

    private func run(_ pending: OutputPath) throws -> ConcatResult {

        // Every clip is opened first: one that is not a movie, or has no video, fails before
        // anything is encoded.
        // A stop signal during the opens cancels them: that is the stop, not the clip's fault.
        let readers: [MovieReader]
        do { readers = try options.clips.map { try MovieReader(path: $0, audio: true, cancellation: cancellation) } } catch {
            throw failure.error ?? error
        }
        if let error = failure.error { throw error }
        let first = readers[0]
        let canvas = options.size ?? Size(width: max(2, first.video.displaySize.width & ~1), height: max(2, first.video.displaySize.height & ~1))
        guard let frameRate = options.frameRate ?? first.video.frameRate else {
            throw MediaError("no frame rate in the file; give one with --fps", path: first.path)
        }
        let maxFrames = options.maxDuration.map { ConcatOptions.frames(within: $0, frameRate: frameRate) } ?? .max
        guard maxFrames > 0 else {
            throw JobError("--max-duration \(ConcatOptions.text(options.maxDuration!)) is shorter than one frame at \(frameRate) fps.")
        }
        // Before any thread starts: a .cube that cannot be read stops the job here.
        let filters = try options.filter.map { try FilterStage(schedule: $0, canvas: canvas) }
        // The filtered picture: the lanes' pool frames keep their margins from one use to the next.
        let filtered = try filters.map { _ in try Frame(width: canvas.width, height: canvas.height) }
        let stamp = ProvenanceStamp(width: canvas.width, height: canvas.height)
        let lanes = try readers.enumerated().map { k, r in
            let layout = Layout(blend: .single, canvas: canvas, inputs: [r.video.displaySize])
            let conformer: Conformer
            do {
                conformer = try Conformer(place: canvas, picture: layout.pictures[0], fill: .black, rotation: r.video.rotation)
            } catch let e as MediaError { throw e.at(r.path) }
            return InputLane(index: k, reader: r, conformer: conformer, poolSize: 4, failure: failure)
        }
        lock.lock(); self.lanes = lanes; lock.unlock()
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

        let writer = try MovieWriter(path: pending.path, container: OutputPath.container(for: options.output), canvas: canvas,
                                     frameRate: frameRate, settings: options.encode, withAudio: withAudio)
        func samples(_ frames: Int64) -> Int64 {
            AudioTimeline.samples(coveringFrames: frames, frameRate: frameRate, sampleRate: AudioFormat.sampleRate)
        }
        let fade = Int64(options.crossfadeMs ?? 0) * Int64(AudioFormat.sampleRate) / 2000
        let audio = withAudio ? ConcatAudio(fadeSamples: fade) { try writer.writeAudio(left: $0, right: $1, count: $2) } : nil
        let header = Provenance(k: 0, src: [], sync: ConcatCheck.sync, blend: nil, fps: "\(frameRate.num)/\(frameRate.den)",
                                inputs: readers.map { Provenance.Input(name: ($0.path as NSString).lastPathComponent,
                                                                       timeBase: "\($0.video.timeBase.num)/\($0.video.timeBase.den)",
                                                                       audio: $0.audio != nil, frames: $0.video.indexedFrames) })
        let expected = Self.expectedFrames(readers).map { min($0, maxFrames) }
        var emitted: Int64 = 0
        var clipFrames: [Int64] = []
        // This thread fits nothing itself (the lanes do): it waits for clips and encodes.
        let encoderClock = StageClock(name: "the encoder")
        let watchdog = Watchdog(clocks: lanes.map(\.clock) + [encoderClock], timeout: options.stallTimeout) {
            [weak self] in self?.stop(because: JobError($0))
        }
        watchdog.start()
        defer { watchdog.stop() }
        start(0)
        for (k, lane) in lanes.enumerated() {
            if k + 1 < lanes.count { start(k + 1) }  // decodes ahead while this clip is encoded
            let first = emitted
            audio?.begin(lane.audio, at: samples(first))
            while emitted < maxFrames {
                encoderClock.set("waiting for clip \(k + 1)", busy: false)
                guard let popped = lane.frames.pop() else { break }  // closed: a failure
                encoderClock.set("encoding frame \(emitted)", busy: true)
                guard let item = popped else { break }               // the clip's end
                var p = emitted == 0 ? header : Provenance(k: 0, src: [])
                p.k = emitted
                p.clip = k
                p.src = [[Int64(item.picture.source.index), item.picture.source.pts.value]]
                var picture = item.frame
                if let filters, let filtered {
                    (picture, p.filter) = try filters.render(item.frame, into: filtered, index: emitted, time: frameRate.inverse * emitted)
                }
                try stamp.stamp(picture, with: p)
                try writer.writeVideo(picture, index: emitted)
                lane.recycle(item)
                emitted += 1
                try audio?.writeAvailable(until: samples(emitted))
                progress?(emitted, expected)
            }
            if let error = failure.error { throw error }
            let capped = emitted == maxFrames
            let end = samples(emitted)
            encoderClock.set("waiting for the audio of clip \(k + 1)", busy: false)
            // No more pictures from this clip: its reader delivers only the audio its video covers.
            // A crossfade goes on with this clip's own audio past its video's end.
            let joined = !capped && k + 1 < lanes.count
            lane.stopVideo(audioUntil: withAudio ? end - samples(first) + (joined ? fade : 0) : .min)
            try audio?.finish(at: end, join: joined)
            lane.join()
            running.remove(k)
            if let error = failure.error { throw error }
            guard emitted > first else { throw MediaError("has no video frame to join", path: lane.reader.path) }
            clipFrames.append(emitted - first)
            if capped { break }
        }
        try writer.finish()
        if let error = failure.error { throw error }
        try filters?.finish(frames: emitted, frameRate: frameRate)
        try pending.commit()
        let warnings = readers.prefix(clipFrames.count).compactMap { r -> String? in
            guard let rate = r.video.frameRate, rate != frameRate else { return nil }
            return "\(r.path): \(rate) fps, shown at \(frameRate) fps (every frame once, so it plays \(String(format: "%.3g", frameRate.seconds / rate.seconds))x as fast; its audio is cut or padded to its video)"
        }
        return ConcatResult(frames: emitted, audioSamples: withAudio ? samples(emitted) : nil, canvas: canvas,
                            frameRate: frameRate, clipFrames: clipFrames, warnings: warnings)
    }

    /// The sum of the clips' indexed frame counts, when every clip has one.
    static func expectedFrames(_ readers: [MovieReader]) -> Int64? {
        let counts = readers.compactMap(\.video.indexedFrames)
        return counts.count == readers.count ? counts.reduce(0, +) : nil
    }

    /// `--copy`: the same temporary-then-rename as the re-encoding path around `ConcatCopy.join`.
    private func runCopy(_ pending: OutputPath) throws -> ConcatResult {
        let result = try ConcatCopy.join(options.clips, into: pending.path, container: OutputPath.container(for: options.output),
                                         audioBitRate: options.encode.audioBitRate, cancellation: cancellation) { [progress] in progress?($0, nil) }
        try pending.commit()
        return result
    }
}
