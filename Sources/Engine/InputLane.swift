import Compositor
import Foundation
import Media

/// A decoded picture fitted to its place, on its way from a lane to the compositor. `lane` is
/// how it finds its way back to its pool once the sync lets it go.
package struct LaneFrame {
    package let lane: Int
    package let frame: Frame
    package let picture: DecodedPicture
}

/// One input: a reader thread that decodes ahead and fits each picture to its place (its
/// conformer: scale, rotate, margins) into a small pool of frames (so memory does not grow with
/// the input's length), the queue those frames travel in, and the input's audio.
// @unchecked Sendable: the reader, the conformer and `run` belong to the lane's thread alone;
// other threads touch only the queues, the audio lane and `stateLock`'s fields.
package final class InputLane: @unchecked Sendable {
    package let index: Int
    package let reader: MovieReader
    package let conformer: Conformer
    /// For an input keyed by its own alpha: fits into yuva420p instead (`conformer` unused).
    package let alphaConformer: AlphaConformer?
    package let audio: AudioLane?
    /// Every copy of the input's audio: `audio` first, then one more per extra reader (`filter
    /// --variants`: one per variant's writer, since a lane forgets what its reader has read).
    package let audioCopies: [AudioLane]
    /// Fitted frames on their way to the compositor. `nil` marks the end of the video.
    package let frames: BoundedQueue<LaneFrame?>
    /// Frames free for the reader to fill; the compositor gives them back (`recycle`).
    package let pool: BoundedQueue<Frame>
    private let failure: FailureBox
    private let done = DispatchSemaphore(value: 0)

    private let stateLock = NSLock()
    private var _audioNeededUntil: Int64 = .max
    /// A segment render's audio origin (input-clock position of its first output sample), set
    /// before `start()`; otherwise the first picture's pts.
    package var audioOrigin: Int64?
    /// Added to the audio origin: where output sample 0 lies on this input's (corrected) clock
    /// relative to its first frame, in samples, (output start - the input's offset) x 48000.
    /// Set before `start()`.
    package var audioShift: Int64 = 0
    /// For the watchdog.
    package let clock: ThreadClock

    package init(
        index: Int, reader: MovieReader, conformer: Conformer, poolSize: Int, failure: FailureBox, audioCopies: Int = 1,
        alphaConformer: AlphaConformer? = nil
    ) {
        self.index = index
        self.reader = reader
        self.conformer = conformer
        self.alphaConformer = alphaConformer
        self.audioCopies = reader.audio != nil ? (0..<max(1, audioCopies)).map { _ in AudioLane() } : []
        self.audio = self.audioCopies.first
        self.failure = failure
        clock = ThreadClock(name: "input \(index + 1) (\(reader.path))")
        frames = BoundedQueue(capacity: poolSize + 1)
        pool = BoundedQueue(capacity: poolSize)
        for _ in 0..<poolSize { pool.push(Frame()) }
    }

    /// Gives a frame the compositor is done with back to this lane's pool.
    package func recycle(_ item: LaneFrame) {
        precondition(item.lane == index, "a frame of input \(item.lane + 1) returned to input \(index + 1)")
        pool.push(item.frame)
    }

    package func start() {
        let t = Thread { [self] in
            defer { done.signal() }
            do { try run() } catch {
                failure.record(error)
            }
            // Done is not busy: a lane that ended early (concat's first clips) is never blamed.
            clock.set("finished", busy: false)
            frames.close()
            for a in audioCopies { a.finish() }
        }
        t.name = "lockstep.reader.\(index)"
        t.stackSize = 1 << 20
        t.start()  // not kept: the thread keeps the lane alive while it runs, no longer
    }

    package func join() { done.wait() }

    /// Waits at most `seconds`; false if the thread is still stuck.
    package func join(timeout seconds: Double) -> Bool { done.wait(timeout: .now() + seconds) == .success }

    /// At a job's end: waits for the reader thread for good after a clean end; after a failure
    /// at most a second (a reader blocked in a read nothing will finish is not waited for).
    package func join(afterFailure failed: Bool) {
        if failed { _ = join(timeout: 1) } else { join() }
    }

    /// The output needs no more pictures; keep reading audio up to output sample `position`.
    package func stopVideo(audioUntil position: Int64) {
        stateLock.lock(); _audioNeededUntil = position; stateLock.unlock()
        frames.close()
        pool.close()
    }

    /// Stops everything (failure or cancellation elsewhere), even a read blocked in FFmpeg.
    package func cancel() {
        stopVideo(audioUntil: .min)
        reader.cancellation.cancel()
        for a in audioCopies { a.finish() }
    }

    private var audioNeededUntil: Int64 { stateLock.lock(); defer { stateLock.unlock() }; return _audioNeededUntil }

    private func run() throws {
        var held: Frame?
        // The picture as decoded, before the conformer fits it into a pool frame.
        let decoded = Frame()
        let sink: (AudioSamples) -> Void = { [audioCopies] in for a in audioCopies { a.append($0) } }
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
            switch try reader.next(into: decoded, audioSink: sink) {
            case .video(let picture):
                let frame = held!
                held = nil
                if let alphaConformer { try alphaConformer.fit(decoded, into: frame) } else { try conformer.fit(decoded, into: frame) }
                if !originSet {
                    originSet = true
                    let pts = picture.source.pts
                    let origin = (audioOrigin ?? reader.audioPosition(of: pts)) + audioShift
                    for a in audioCopies { a.setOrigin(origin) }
                }
                clock.set("waiting for the compositor", busy: false)
                if !frames.push(LaneFrame(lane: index, frame: frame, picture: picture)) { reader.decodesVideo = false }
            case .audio:
                continue
            case .end:
                if !originSet { for a in audioCopies { a.setOrigin((audioOrigin ?? 0) + audioShift) } }
                frames.push(nil)
                return
            }
        }
    }
}
