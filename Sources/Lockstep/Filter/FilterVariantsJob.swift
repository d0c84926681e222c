import Compositor
import Foundation
import Media
import NIOConcurrencyHelpers

/// `lockstep filter IN --variants CHAIN[;CHAIN...] -o DIR/` (VidClips' one file per filter):
/// the input is decoded once; every decoded picture is lent to one writer thread per chain,
/// which renders it through its chain and encodes it. A variant that fails loses only its own
/// file; the others go on.
public struct FilterVariantsOptions: Sendable {
    public var input: String
    public var folder: String
    public var chains: [FilterChainSpec]
    public var audio = true
    /// Time (the default): the input's timeline kept, as every command keeps it; `.index`
    /// (`--keep-frames`): every frame once at the nominal rate.
    public var sync = SyncMode.time
    public var encode = EncodeSettings()
    /// The canvas (the picture fitted into it); nil: the input's display size.
    public var size: Size?
    /// How HDR inputs are brought into the SDR output, and interlaced ones scanned.
    public var toneCurve = ToneCurve.hable
    public var deinterlace = DeinterlaceMode.frame
    /// Seconds a stage may be stuck before the job stops with an error naming it.
    public var stallTimeout = 30.0
    /// A cut, as every command cuts (`--frames A:B`, or `--from/--to` resolved at the input's
    /// rate): every variant is output frames [A, B) of the whole pass, its sound cut at the same
    /// frame boundaries to the sample, its first frame's record saying which frame it is.
    public var frames: FrameRange?
    public var cut: TimeCut?
    /// Tests only: variant `variant` fails once it has written `afterFrames` frames (a failure
    /// in the middle of the pass, which no input can be relied on to cause).
    var injectedFailure: (variant: Int, afterFrames: Int64)?

    public init(input: String, folder: String, chains: [FilterChainSpec]) {
        self.input = input; self.folder = folder; self.chains = chains
    }

    /// `--variants CHAIN[;CHAIN...]`; a bad entry is named by its position and text.
    public static func parse(_ text: String) throws -> [FilterChainSpec] {
        try text.split(separator: ";", omittingEmptySubsequences: false).enumerated().map { i, item in
            guard !item.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw FilterError("--variants entry \(i + 1) is empty; expected CHAIN[;CHAIN...].")
            }
            do { return try FilterChainSpec(parsing: String(item)) } catch let e as FilterError {
                throw FilterError("--variants entry \(i + 1) (\"\(item)\"): \(e.description)")
            }
        }
    }

    /// The file a chain writes in the folder: its text with every character a file name or a
    /// shell makes awkward replaced (`blur:radius=3,mono` -> `blur-radius-3+mono.mp4`).
    /// `codec`: ProRes and DNxHR go into .mov files, the others into .mp4.
    public static func fileName(for chain: String, codec: VideoCodec? = nil) -> String {
        var name = String(
            chain.unicodeScalars.map { c -> Character in
                switch c {
                case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".": return Character(c)
                case ":", "=": return "-"
                case ",": return "+"
                default: return "_"
                }
            })
        if name.hasPrefix(".") { name = "_" + name.dropFirst() }  // never a hidden file
        return name + (codec?.needsMOV == true ? ".mov" : ".mp4")
    }

    public var outputs: [String] {
        chains.map { (folder as NSString).appendingPathComponent(Self.fileName(for: $0.text, codec: encode.codec)) }
    }

    /// Everything knowable before the job starts, as one sentence.
    /// A folder that does not exist yet is made by `run` (`-o looks/` failed when it did not),
    /// so only its parent must exist.
    public func check() throws {
        try CompositeOptions.check(size: size, frameRate: nil, codec: encode.codec)
        if frames != nil && cut != nil { throw FilterVariantsError.framesAndCut }
        if deinterlace == .field && (frames != nil || cut != nil) {
            throw FilterVariantsError.fieldDeinterlaceInCut(byTime: cut != nil)
        }
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder)
        if exists {
            guard isFolder.boolValue else { throw FilterVariantsError.outputIsAFile(folder: folder) }
        } else {
            let parent = URL(fileURLWithPath: folder).deletingLastPathComponent().path
            guard FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
                throw FilterVariantsError.noParentFolder(folder: folder, parent: parent)
            }
        }
        let outputs = self.outputs
        for (i, o) in outputs.enumerated() {
            if let j = outputs[..<i].firstIndex(of: o) {
                throw FilterVariantsError.sameOutput(first: j, second: i, firstChain: chains[j].text, secondChain: chains[i].text, output: o)
            }
            // (In a folder still to be made, the files' places are checked when it is.)
            if exists { try OutputPath.check(o, inputs: [input]) }
        }
    }
}

public struct FilterVariantsResult: Sendable {
    public struct Variant: Sendable, Equatable {
        public var chain: String
        public var output: String
        /// Why this variant has no file (nil: written).
        public var failure: String?
    }
    public var frames: Int64
    public var audioSamples: Int64?
    public var canvas: Size
    public var frameRate: Rational
    public var variants: [Variant]
    public var failed: [Variant] { variants.filter { $0.failure != nil } }
}

/// Runs a variants pass. Threads: `run()` on the caller's (it hands decoded pictures out), the
/// input lane's reader, one writer per variant, the watchdog.
public final class FilterVariantsJob: Job {
    public let options: FilterVariantsOptions
    /// Progress after each frame handed out: (frames done, frames expected).
    private let events: JobEvents
    /// The input's failure (or cancellation): it ends every variant.
    private let failure = FailureBox()
    /// The input's lane and the variants' writers once made (so that a stop reaches them), and
    /// whether the job was stopped before they were.
    private let parts = NIOLockedValueBox<(lane: InputLane?, writers: [VariantWriter], cancelled: Bool)>((nil, [], false))
    var lane: InputLane? { parts.withLockedValue { $0.lane } }  // read by tests after `run()`

    public init(options: FilterVariantsOptions, events: JobEvents = JobEvents()) { self.options = options; self.events = events }

    public func cancel() { stop(because: JobError.cancelled) }

    private func stop(because error: Error) {
        failure.record(error)
        let (lane, writers) = parts.withLockedValue { p in
            p.cancelled = true
            return (p.lane, p.writers)
        }
        lane?.cancel()
        for w in writers { w.queue.close() }
    }

    public func run() throws -> FilterVariantsResult {
        try options.check()
        // The folder is made here when missing, and removed again if no variant lands in it.
        let made = mkdir(options.folder, 0o755) == 0
        do {
            let result = try runInFolder()
            if made, !result.variants.contains(where: { $0.failure == nil }) { rmdir(options.folder) }
            return result
        } catch {
            if made { rmdir(options.folder) }
            throw error
        }
    }

    private func runInFolder() throws -> FilterVariantsResult {
        OutputPath.removeStaleTemporaries(in: options.folder)
        let reader = try MovieReader(path: options.input, audio: options.audio)
        reader.deinterlace(options.deinterlace)
        let canvas = options.size ?? reader.video.displaySize.evenCanvas
        if options.size == nil, let problem = EncodeSettings.problem(encoding: canvas, as: .sdr, codec: options.encode.codec) {
            throw OutputOptionsError.canvasNotEncodable(canvas: "\(canvas)", from: "\(options.input)'s picture", problem: problem)
        }
        let inputs = [(path: options.input, video: reader.video)]
        if let line = ToneMapping.notice(inputs, signal: .sdr, curve: options.toneCurve) { events.notice?(line) }
        guard let frameRate = reader.video.nominalFrameRate ?? reader.video.frameRate else {
            throw MediaError("no frame rate in the file", path: reader.path)
        }
        let layout = Layout(blend: .single, canvas: canvas, inputs: [reader.video.displaySize])
        let place = layout.places[0], pic = layout.pictures[0]
        let conformer: Conformer
        do {
            conformer = try Conformer(
                place: Size(width: place.width, height: place.height),
                picture: Rect(x: pic.x - place.x, y: pic.y - place.y, width: pic.width, height: pic.height),
                fill: .black, rotation: reader.video.rotation,
                color: ColorOptions(toneCurve: options.toneCurve, metadata: reader.video.color.hdr))
        } catch let e as MediaError { throw e.at(reader.path) }
        // Each variant's file is kept or dropped on its own; a failure of the input drops them all.
        let written = try OutputPath.writing(toEach: options.outputs) { files in
            try run(reader: reader, conformer: conformer, canvas: canvas, frameRate: frameRate, files: files)
        }
        var result = written.value
        for (i, failure) in written.failures.enumerated() {
            if let failure { result.variants[i].failure = "\(failure)" }
        }
        return result
    }

    /// The pass itself, writing variant `i` into `files[i]`; returns the result and which files to keep.
    private func run(
        reader: MovieReader, conformer: Conformer, canvas: Size, frameRate: Rational, files: [Result<OutputPath, any Error>]
    ) throws -> (value: FilterVariantsResult, keep: [Bool]) {
        let outputs = options.outputs
        let range = options.frames ?? options.cut.map { FrameRange($0, frameRate: frameRate) }
        let firstK = range?.start ?? 0
        func samples(_ frames: Int64) -> Int64 {
            AudioTimeline.samples(coveringFrames: frames, frameRate: frameRate, sampleRate: AudioFormat.sampleRate)
        }
        // A variant whose chain or file cannot be set up (an unreadable .cube) fails alone, now.
        var variants = options.chains.enumerated().map { i, chain in
            FilterVariantsResult.Variant(chain: chain.text, output: outputs[i], failure: nil)
        }
        // Camera telemetry (CompositeTelemetry.swift): every variant keeps the input's timeline,
        // so each carries the track, cut with the picture.
        let kept = try CompositeJob.keptTelemetry(path: options.input, reader: reader, sync: options.sync, frameRate: frameRate, firstFrame: firstK)
        if let notice = kept.notice { events.notice?(notice) }
        let telemetry = kept.telemetry.map { ($0.format, CompositeJob.packets($0, from: kept.start)) }
        var writers: [VariantWriter] = []
        for (i, chain) in options.chains.enumerated() {
            do {
                writers.append(
                    try VariantWriter(
                        number: i, chain: chain, output: outputs[i], file: files[i], canvas: canvas, frameRate: frameRate,
                        settings: options.encode, withAudio: reader.audio != nil, firstFrame: firstK, telemetry: telemetry,
                        failAfter: options.injectedFailure.flatMap { $0.variant == i ? $0.afterFrames : nil }))
            } catch {
                variants[i].failure = "\(error)"
            }
        }
        let none = [Bool](repeating: false, count: files.count)
        if writers.isEmpty {
            return (FilterVariantsResult(frames: 0, audioSamples: nil, canvas: canvas, frameRate: frameRate, variants: variants), none)
        }
        let lane = InputLane(index: 0, reader: reader, conformer: conformer, poolSize: 4, failure: failure, audioCopies: writers.count)
        // A cut starts as a segment render does (CompositeJob+Segment.swift): the reader seeks to
        // the keyframe before the cut's first frame (or before its first sample's audio lead)
        // and decodes from there, dropping the pictures before it; the sound starts at that
        // frame's first sample (`audioOrigin`). The sync counts ticks from the cut's first,
        // against the stream's first frame as the whole pass does.
        let segment = try range.map { try CompositeJob.startSegment($0, lanes: [lane], sync: options.sync, frameRate: frameRate, withAudio: reader.audio != nil) }
        for (k, w) in writers.enumerated() { w.audio = lane.audioCopies.indices.contains(k) ? lane.audioCopies[k] : nil }
        let wasCancelled = parts.withLockedValue { p in
            (p.lane, p.writers) = (lane, writers)
            return p.cancelled
        }
        if wasCancelled { throw JobError.cancelled }

        let clock = ThreadClock(name: "the dispatcher")
        let watchdog = Watchdog(clocks: [lane.clock, clock] + writers.map(\.clock), timeout: options.stallTimeout) {
            [weak self] in self?.stop(because: $0)
        }
        lane.start()
        for w in writers { w.start() }
        watchdog.start()
        defer { watchdog.stop() }
        let whole = CompositeJob.expectedFrames([reader], sync: options.sync, frameRate: frameRate)
        let expected = range.map { r in r.count ?? whole.map { max(0, $0 - r.start) } } ?? whole
        if options.sync == .index, let line = KeepFramesNotice.line([reader], frameRate: frameRate) { events.notice?(line) }
        var header = Provenance.header(
            sync: options.sync.rawValue, blend: BlendMode.single.rawValue, frameRate: frameRate,
            inputs: [Provenance.Input(path: reader.path, timeBase: reader.video.timeBase, audio: reader.audio != nil)])
        var sync = FrameSync<SharedFrame>(mode: options.sync, inputs: 1, frameRate: frameRate, startTick: firstK)
        if let origin = segment?.origins.first { sync.setOrigin(origin, input: 0) }
        if let end = CompositeJob.streamEnd(reader.video) { sync.setStreamEnd(end, input: 0) }
        var emitted: Int64 = 0
        // Ticks the loop reached, cut or not: the whole pass's length when it ends early.
        var reached: Int64 = 0
        _ = sync.drive(
            pull: { _ in
                clock.set("waiting for the input", busy: false)
                guard failure.error == nil, writers.contains(where: { !$0.queue.closed }), let item = lane.frames.pop() else { return .closed }
                // One share for the sync, and one per variant each time it is lent (a frame on
                // screen for several ticks is lent several times); the last release recycles it.
                return item.map { .frame($0.picture.source, SharedFrame($0, lane: lane, holders: 1)) } ?? .end
            },
            release: { $0.release() },
            emit: { sync, tick in
                guard failure.error == nil, writers.contains(where: { !$0.queue.closed }) else { return false }
                reached = tick + 1
                // A cut: the sync starts at its first tick; those after it are not read.
                if let end = range?.end, tick >= end { return false }
                clock.set("handing out frame \(emitted)", busy: false)
                if emitted == 0 { header.inputs?[0].origin = sync.origin(0)?.value }
                var record = emitted == 0 ? header : Provenance(k: 0, src: [])
                // A cut's first frame carries the header too, saying which frame it is.
                if emitted == 0 && firstK > 0 { record.first = firstK }
                record.k = tick
                let f = sync.chosenFrame(0)
                // Under time sync, until when the frame is on screen (as composite records it).
                record.src = [[Int64(f.index), f.pts.value] + (sync.until(0).map { [$0.value] } ?? [])]
                let shared = sync.chosen(0)
                let lent = Lent(shared: shared, index: emitted, time: frameRate.inverse * tick, record: record)
                shared.retain(writers.count)
                for w in writers where !w.queue.push(lent) { shared.release() }
                emitted += 1
                events.progress?(emitted, expected)
                return true
            })
        while let shared = sync.drain() { shared.release() }
        let audioEnd = samples(firstK + emitted) - samples(firstK)
        lane.stopVideo(audioUntil: reader.audio != nil && failure.error == nil ? audioEnd : .min)
        for w in writers { w.queue.close() }
        for w in writers { w.join() }
        lane.join(afterFailure: failure.error != nil)
        if let error = failure.error { throw error }
        // An open cut (`--from` alone) ends where the input does: short only when it kept nothing.
        if let range, emitted < range.count ?? 1 {
            throw FrameRange.pastEnd(range, input: 0, path: options.input, frames: reached, frameRate: frameRate)
        }
        guard emitted > 0 else { throw MediaError("has no video frame to filter", path: options.input) }
        var keep = none
        for w in writers {
            if let error = w.failure { variants[w.number].failure = "\(error)" } else { keep[w.number] = true }
        }
        let result = FilterVariantsResult(
            frames: emitted, audioSamples: reader.audio != nil ? audioEnd : nil, canvas: canvas,
            frameRate: frameRate, variants: variants)
        return (result, keep)
    }
}

/// A decoded picture shared by the variants, read-only while shared: the last holder to let
/// go gives the frame back to the lane's pool.
final class SharedFrame: Sendable {
    /// Only read while shared (every holder reads, nobody writes); the lane refills it only
    /// after the last release.
    let item: LaneFrame
    private let lane: InputLane
    private let holders: NIOLockedValueBox<Int>  // a pthread mutex, seen by ThreadSanitizer (see ThreadClock)

    init(_ item: LaneFrame, lane: InputLane, holders: Int) {
        self.item = item; self.lane = lane; self.holders = NIOLockedValueBox(holders)
    }

    /// `n` more holders (a lending to every variant).
    func retain(_ n: Int) { holders.withLockedValue { $0 += n } }

    func release() {
        let last = holders.withLockedValue { n -> Bool in
            n -= 1; return n == 0
        }
        if last { lane.recycle(item) }
    }
}

/// One output frame's worth of a shared picture, as handed to each variant.
struct Lent: Sendable {
    let shared: SharedFrame
    let index: Int64
    let time: Rational
    let record: Provenance
}
