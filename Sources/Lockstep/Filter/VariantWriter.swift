import Compositor
import Foundation
import Media

/// One variant of `filter --variants`: a thread that renders each lent picture through its
/// chain into its own frame, encodes it into a temporary file beside its output, and writes
/// its copy of the input's audio as far as the video goes. A failure here is this variant's
/// alone: it closes its queue (the dispatcher then stops lending to it), keeps releasing what
/// was already lent, and its temporary file is not kept (`OutputPath.writing(toEach:)`).
// @unchecked Sendable: the stage, the writer, the frame and `error` belong to the variant's
// thread until `join()` returns; other threads touch only the queue and the clock. `audio` is
// set once before `start()`.
final class VariantWriter: @unchecked Sendable {
    let number: Int
    let output: String
    let queue = BoundedQueue<Lent>(capacity: 2)
    let clock: ThreadClock
    var audio: AudioLane?
    private let stage: FilterStage
    private var writer: MovieWriter?
    private let file: OutputPath
    private let out: Frame
    private let stamp: ProvenanceStamp
    private let frameRate: Rational
    /// A cut's first frame in the whole pass: its sound starts at that frame's first sample.
    private let firstFrame: Int64
    private var error: Error?
    private var written: Int64 = 0
    private var mixedUntil: Int64 = 0
    private let chunk = 4096
    private let scratch: UnsafeMutablePointer<Float>
    private var worker: Worker?
    /// Tests only (`FilterVariantsOptions.injectedFailure`): fail when this many frames are written.
    private let failAfter: Int64?

    /// Prepares the chain (loading its .cube files) and opens the writer on `file`, its
    /// temporary (or why there is none): any failing is this variant's setup failure.
    init(
        number: Int, chain: FilterChainSpec, output: String, file: Result<OutputPath, any Error>, canvas: Size, frameRate: Rational,
        settings: EncodeSettings, withAudio: Bool, firstFrame: Int64 = 0, failAfter: Int64? = nil
    ) throws {
        self.firstFrame = firstFrame
        self.number = number
        self.failAfter = failAfter
        self.output = output
        self.frameRate = frameRate
        clock = ThreadClock(name: "variant \(number + 1) (\(chain.text))")
        stage = try FilterStage(schedule: FilterSchedule(initial: chain), canvas: canvas)
        out = try Frame(width: canvas.width, height: canvas.height)
        stamp = ProvenanceStamp(width: canvas.width, height: canvas.height)
        let file = try file.get()
        self.file = file
        scratch = .allocate(capacity: chunk * 2)
        do {
            writer = try MovieWriter(
                path: file.path, container: OutputPath.container(for: output), canvas: canvas,
                frameRate: frameRate, settings: settings, withAudio: withAudio)
        } catch {
            scratch.deallocate()
            throw file.explain(error)
        }
    }
    deinit { scratch.deallocate() }

    func start() {
        worker = Worker(name: "lockstep.variant.\(number)") { [self] in run() }
    }

    func join() { worker?.join() }

    private func run() {
        while let lent = queue.pop() {
            defer { lent.shared.release() }
            guard error == nil, let writer else { continue }  // failed: only drain
            do {
                clock.set("filtering and encoding frame \(lent.index)", busy: true)
                try encode(lent, with: writer)
            } catch {
                fail(error)
            }
            clock.set("waiting for frames", busy: false)
        }
        guard error == nil, let writer else { return }
        do {
            if let audio {
                // The dispatcher has told the reader how far the audio must go.
                let end = samples(written)
                clock.set("waiting for the audio", busy: false)
                audio.wait(until: end)
                try mix(until: end)
            }
            clock.set("finishing the file", busy: true)
            try writer.finish()
        } catch {
            fail(error)
        }
        clock.set("done", busy: false)
    }

    private func encode(_ lent: Lent, with writer: MovieWriter) throws {
        if let failAfter, written == failAfter { throw JobError("failed after \(failAfter) frames, as the test asked") }
        try out.makeWritable()  // the encoder may still hold the previous picture
        let (picture, chain) = try stage.render(lent.shared.item.frame, into: out, index: lent.index, time: lent.time)
        if picture !== out { out.withImage { o in lent.shared.item.frame.withImage { PlaneKernels.copy($0, into: o) } } }
        var record = lent.record
        record.filter = chain
        try stamp.stamp(out, with: record, sources: [lent.shared.item.frame])
        try writer.writeVideo(out, index: lent.index)
        written += 1
        if let audio {
            let ready = min(samples(written), audio.readyUntil)
            if ready > mixedUntil { try mix(until: ready) }
        }
    }

    /// Samples covering `frames` frames from the first: the whole pass's rounding at both ends.
    private func samples(_ frames: Int64) -> Int64 {
        func s(_ k: Int64) -> Int64 { AudioTimeline.samples(coveringFrames: k, frameRate: frameRate, sampleRate: AudioFormat.sampleRate) }
        return s(firstFrame + frames) - s(firstFrame)
    }

    private func mix(until end: Int64) throws {
        guard let audio, let writer else { return }
        let l = scratch, r = scratch + chunk
        while mixedUntil < end {
            let n = Int(min(Int64(chunk), end - mixedUntil))
            audio.read(from: mixedUntil, count: n, left: l, right: r)
            try writer.writeAudio(left: l, right: r, count: n)
            mixedUntil += Int64(n)
        }
    }

    private func fail(_ error: Error) {
        self.error = file.explain(error)
        queue.close()
        audio?.drop()  // the reader stops keeping audio for a variant that will never read it
        writer = nil  // closes the file
        clock.set("failed", busy: false)
    }

    /// After `join()`: this variant's failure, if any (its file is then not kept).
    var failure: Error? { error }
}
