import Compositor
import Foundation
import Media

/// The writer thread: encodes composited frames in order, and after each one mixes every
/// input's sound (`SoundSource`: an input lane's, or a reversal's) as far as all of them have
/// it, never past the video written so far. At the end it cuts the audio to exactly the
/// video's length, to the sample.
// @unchecked Sendable: the writer, the mixer and the scratch belong to the writer thread alone;
// other threads touch only the queue, the pool and the clock.
package final class WriterThread: @unchecked Sendable {
    /// Composited frames in output order; `nil` never travels here: closing ends the stream.
    package let queue: BoundedQueue<Frame>
    /// Output frames free for the compositor.
    package let pool: BoundedQueue<Frame>
    private let writer: MovieWriter
    /// Per input, its sound (nil: none).
    private let sounds: [(any SoundSource)?]
    private let mixer: AudioMixer
    private let frameRate: Rational
    /// A segment render's first output frame (its global index): its audio starts at that
    /// frame's first sample.
    private let firstFrame: Int64
    private let failure: FailureBox
    private let done = DispatchSemaphore(value: 0)
    private(set) var framesWritten: Int64 = 0
    private var mixedUntil: Int64 = 0
    private let chunk = 4096
    private let scratch: UnsafeMutablePointer<Float>
    // Per-input pointers into `scratch`, kept so mixing after each frame allocates nothing.
    private var leftInputs: [UnsafePointer<Float>?]
    private var rightInputs: [UnsafePointer<Float>?]
    package let clock = ThreadClock(name: "the writer")

    /// `--loudness`: what is written, measured (read after `join()`).
    private let meter: LoudnessMeter?

    package init(
        writer: MovieWriter, sounds: [(any SoundSource)?], gains: [Float], frameRate: Rational, canvas: Size,
        poolSize: Int, failure: FailureBox, firstFrame: Int64 = 0, measuresLoudness: Bool = false,
        signal: WorkingSignal = .sdr
    ) throws {
        meter = measuresLoudness ? LoudnessMeter() : nil
        self.writer = writer
        self.sounds = sounds
        self.mixer = AudioMixer(gains: gains)
        self.frameRate = frameRate
        self.firstFrame = firstFrame
        self.failure = failure
        queue = BoundedQueue(capacity: poolSize)
        pool = BoundedQueue(capacity: poolSize)
        for _ in 0..<poolSize { pool.push(try Frame(width: canvas.width, height: canvas.height, signal: signal)) }
        // Per input: left and right; then the mix: left and right.
        scratch = .allocate(capacity: chunk * 2 * (sounds.count + 1))
        leftInputs = Array(repeating: nil, count: sounds.count)
        rightInputs = leftInputs
    }
    deinit { scratch.deallocate() }

    private var audioSources: [(Int, any SoundSource)] { sounds.enumerated().compactMap { i, s in s.map { (i, $0) } } }

    package func start(withAudio: Bool) {
        let t = Thread { [self] in
            defer { done.signal() }
            do { try run(withAudio: withAudio) } catch {
                failure.record(error)
                queue.close(); pool.close()
            }
        }
        t.name = "lockstep.writer"
        t.stackSize = 1 << 20
        t.start()
    }

    package func join() { done.wait() }

    /// The integrated loudness of the sound written, LUFS, after `join()` (nil unless measured).
    package func writtenLoudness() throws -> Double? { try meter?.integrated() }

    private func run(withAudio: Bool) throws {
        while let frame = queue.pop() {
            clock.set("encoding frame \(framesWritten)", busy: true)
            try writer.writeVideo(frame, index: framesWritten)
            framesWritten += 1
            pool.push(frame)
            if withAudio { try mixAvailable(until: samples(framesWritten)) }
            clock.set("waiting for frames", busy: false)
        }
        guard failure.error == nil else { return }
        if withAudio {
            // The video is complete (the compositor has told the readers to deliver only
            // audio up to its end): wait for each input's audio to get there or to end.
            let end = samples(framesWritten)
            for (i, audio) in audioSources {
                clock.set("waiting for the audio of input \(i + 1)", busy: false)
                audio.wait(until: end)
            }
            try mix(until: end)
        }
        clock.set("finishing the file", busy: true)
        try writer.finish()
    }

    /// Samples covering `frames` frames from the first: the single pass's own rounding at both
    /// ends, so consecutive segments add up to it.
    package func samples(_ frames: Int64) -> Int64 {
        AudioTimeline.samples(coveringFrames: firstFrame + frames, frameRate: frameRate, sampleRate: AudioFormat.sampleRate)
            - AudioTimeline.samples(coveringFrames: firstFrame, frameRate: frameRate, sampleRate: AudioFormat.sampleRate)
    }

    /// Mixes as far as every input has audio, up to `limit`.
    private func mixAvailable(until limit: Int64) throws {
        var ready = limit
        for case let a? in sounds { ready = min(ready, a.readyUntil) }
        if ready > mixedUntil { try mix(until: ready) }
    }

    private func mix(until end: Int64) throws {
        let mixL = scratch + chunk * 2 * sounds.count, mixR = mixL + chunk
        while mixedUntil < end {
            let n = Int(min(Int64(chunk), end - mixedUntil))
            for (i, sound) in sounds.enumerated() {
                guard let audio = sound else { continue }
                let l = scratch + chunk * 2 * i, r = l + chunk
                try audio.read(from: mixedUntil, count: n, left: l, right: r)
                leftInputs[i] = UnsafePointer(l); rightInputs[i] = UnsafePointer(r)
            }
            mixer.mix(leftInputs, count: n, into: mixL)
            mixer.mix(rightInputs, count: n, into: mixR)
            try writer.writeAudio(left: mixL, right: mixR, count: n)
            try meter?.add(left: mixL, right: mixR, count: n)
            mixedUntil += Int64(n)
        }
    }
}
