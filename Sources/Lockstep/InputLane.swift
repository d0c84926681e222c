import Compositor
import Foundation
import Media

/// One input: a reader thread that decodes ahead into a small pool of frames (so memory does not
/// grow with the input's length), the queue those frames travel in, and the input's audio.
final class InputLane {
    let index: Int
    let reader: MovieReader
    let audio: AudioLane?
    /// Decoded frames on their way to the compositor. `nil` marks the end of the video.
    let frames: BoundedQueue<Frame?>
    /// Frames free for the reader to fill; the compositor gives them back.
    let pool: BoundedQueue<Frame>
    private let failure: FailureBox
    private let done = DispatchSemaphore(value: 0)

    private let stateLock = NSLock()
    private var _audioNeededUntil: Int64 = .max
    /// For the watchdog.
    let clock: StageClock

    init(index: Int, reader: MovieReader, poolSize: Int, failure: FailureBox) throws {
        self.index = index
        self.reader = reader
        self.audio = reader.audio != nil ? AudioLane() : nil
        self.failure = failure
        clock = StageClock(name: "input \(index + 1) (\(reader.path))")
        frames = BoundedQueue(capacity: poolSize + 1)
        pool = BoundedQueue(capacity: poolSize)
        for _ in 0..<poolSize { let f = Frame(); f.tag = index; pool.push(f) }
    }

    func start() {
        let t = Thread { [self] in
            defer { done.signal() }
            do { try run() } catch {
                failure.record(error)
            }
            frames.close()
            audio?.finish()
        }
        t.name = "lockstep.reader.\(index)"
        t.stackSize = 1 << 20
        t.start()   // not kept: the thread keeps the lane alive while it runs, no longer
    }

    func join() { done.wait() }

    /// Waits at most `seconds`; false if the thread is still stuck (a read blocked in the
    /// kernel on a pipe does not see FFmpeg's interrupt). Such a thread keeps what it uses
    /// alive and ends when its read returns; the job does not wait for it.
    func join(timeout seconds: Double) -> Bool { done.wait(timeout: .now() + seconds) == .success }

    /// The output needs no more pictures; keep reading audio up to output sample `position`.
    func stopVideo(audioUntil position: Int64) {
        stateLock.lock(); _audioNeededUntil = position; stateLock.unlock()
        frames.close()
        pool.close()
    }

    /// Stops everything (failure or cancellation elsewhere), even a read blocked in FFmpeg.
    func cancel() {
        stopVideo(audioUntil: .min)
        reader.interrupt()
        audio?.finish()
    }

    private var audioNeededUntil: Int64 { stateLock.lock(); defer { stateLock.unlock() }; return _audioNeededUntil }

    private func run() throws {
        var held: Frame?
        let spare = Frame()
        let sink: (AudioSamples) -> Void = { [audio] in audio?.append($0) }
        var originSet = false
        while true {
            if reader.decodesVideo && held == nil {
                clock.set("waiting for a free frame", busy: false)
                held = pool.pop()
                if held == nil { reader.decodesVideo = false }
            }
            if !reader.decodesVideo {
                // Audio-only from here: stop once the output's audio is covered.
                guard let audio, audio.readyUntil < audioNeededUntil else { return }
            }
            clock.set("reading and decoding", busy: true)
            let event = try reader.next(into: held ?? spare, audioSink: sink)
            switch event {
            case .video:
                let frame = held!
                held = nil
                if !originSet, let src = frame.source {
                    originSet = true
                    audio?.setOrigin(Rational.rescale(src.pts.value, from: src.pts.timeBase, to: Rational(1, Int64(AudioFormat.sampleRate))))
                }
                clock.set("waiting for the compositor", busy: false)
                if !frames.push(frame) { reader.decodesVideo = false }
            case .audio:
                continue
            case .end:
                if !originSet { audio?.setOrigin(0) }
                frames.push(nil)
                return
            }
        }
    }
}
