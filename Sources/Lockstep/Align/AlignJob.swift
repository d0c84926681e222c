import AudioAlign
import Foundation
import Media
import NIOConcurrencyHelpers
import Synchronization

/// Where one input lies on the first input's clock, as `align` found it from the sound:
/// first-input time = offset + scale * this input's time (both presentation times, seconds:
/// pts, edit lists applied, 0 where a player shows 0:00).
///
/// The same convention as time sync's per-input clock (issue 21b, Compositor's `InputClock`):
/// input time t = (first time - offset) * (1 + driftPpm / 10^6), a positive drift a clock that
/// runs fast; but that clock counts each input's time from its first shown frame, so what it takes
/// is `firstFrameOffset` (the offset between the first frames), with `driftPpm` as it is.
public struct AlignedInput: Equatable, Sendable {
    public var path: String
    /// Where this input's time 0 lies on the first input's clock, seconds (0 for the first).
    public var offset: Double
    /// First-input seconds per second of this input (1 for the first).
    public var scale: Double
    /// 0 to 1 (`SoundAlignment.confidence`; 1 for the first).
    public var confidence: Double
    /// The measurement behind it (nil for the first input; against `via` when that is set).
    public var details: SoundAlignment?
    /// Where this input's first video frame lies on the clock of the first input's first video
    /// frame, seconds (`offset` moved from pts 0 to the two first frames: what time sync's
    /// `InputClock.offset` takes); nil when either has no video stream with a start time.
    public var firstFrameOffset: Double?
    /// The input (0-based) this one was aligned through, when its sound does not overlap the
    /// first's: a camera that started after the first stopped is placed by one that saw both.
    public var via: Int?

    /// How much faster this input's clock runs than the first's, ppm (+500: it counts
    /// 1.0005 s while the first counts 1 s).
    public var driftPpm: Double { (1 / scale - 1) * 1e6 }
    public func firstTime(ofInputTime t: Double) -> Double { offset + scale * t }
    public func inputTime(ofFirstTime t: Double) -> Double { (t - offset) / scale }

    public static func reference(_ path: String, videoStart: Double? = nil) -> AlignedInput {
        AlignedInput(path: path, offset: 0, scale: 1, confidence: 1, firstFrameOffset: videoStart.map { _ in 0 })
    }

    /// `firstFrameOffset` from the two inputs' first frames' times (each on its own clock).
    func withFirstFrames(_ videoStart: Double?, reference: Double?) -> AlignedInput {
        var a = self
        a.firstFrameOffset = videoStart.flatMap { v in reference.map { firstTime(ofInputTime: v) - $0 } }
        return a
    }

    /// This input placed through `clock` (input `index`), from `a`, its alignment against that input.
    static func through(_ clock: AlignedInput, index: Int, path: String, _ a: SoundAlignment) -> AlignedInput {
        var details = a
        details.overlap = clock.firstTime(ofInputTime: a.overlap.lowerBound)...clock.firstTime(ofInputTime: a.overlap.upperBound)
        return AlignedInput(
            path: path, offset: clock.offset + clock.scale * a.offset, scale: clock.scale * a.scale,
            confidence: min(clock.confidence, a.confidence), details: details, via: index)
    }
}

public struct AlignResult: Equatable, Sendable {
    /// One per input, in the order given; the first is the reference.
    public var inputs: [AlignedInput]
    /// Seconds of sound read per input.
    public var soundSeconds: [Double]

    /// `{"inputs":[{"path":"...","offset":S,"driftPpm":P,"confidence":C,...}, ...]}`: the
    /// documented keys first, then the measurement's details.
    public var json: String {
        func number(_ x: Double, _ digits: Int) -> String {
            let s = String(format: "%.\(digits)f", x)
            return s == "-0" || s.hasPrefix("-0.") && Double(s) == 0 ? String(s.dropFirst()) : s
        }
        let items = inputs.map { c -> String in
            var fields = [
                "\"path\":\(Self.quote(c.path))", "\"offset\":\(number(c.offset, 6))",
                "\"driftPpm\":\(number(c.driftPpm, 1))", "\"confidence\":\(number(c.confidence, 3))",
                "\"scale\":\(number(c.scale, 9))"
            ]
            if let d = c.details {
                fields += [
                    "\"offsetErrorMs\":\(number(d.offsetErrorMs, 4))", "\"driftErrorPpm\":\(number(d.driftErrorPpm, 1))",
                    "\"windows\":\(d.windows)", "\"agreeing\":\(d.agreeing)", "\"residualMs\":\(number(d.residualMs, 4))",
                    "\"peakZ\":\(number(d.peakZ, 1))", "\"distinctness\":\(number(d.distinctness, 2))",
                    "\"overlap\":[\(number(d.overlap.lowerBound, 3)),\(number(d.overlap.upperBound, 3))]"
                ]
            }
            if let via = c.via { fields.append("\"via\":\(via + 1)") }
            if let f = c.firstFrameOffset, c.details != nil { fields.append("\"firstFrameOffset\":\(number(f, 6))") }
            return "{" + fields.joined(separator: ",") + "}"
        }
        return "{\"inputs\":[" + items.joined(separator: ",") + "]}"
    }

    /// `--offsets s1,s2,... --drift p1,p2,...` for `composite` (time sync's per-input clocks, which
    /// count from each input's first frame: `firstFrameOffset` where known).
    public var compositeOptions: String {
        let offsets = inputs.map { String(format: "%.6f", $0.firstFrameOffset ?? $0.offset) }
        let drifts = inputs.map { String(format: "%.1f", $0.driftPpm) }
        return "--offsets " + offsets.joined(separator: ",") + " --drift " + drifts.joined(separator: ",")
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }
}

/// `lockstep align`: reads every input's sound (audio only: the video is never decoded), mono at
/// 8 kHz, on threads of their own, then finds each input after the first on the first's clock
/// (`SoundAligner`). An input that cannot be placed stops the job with a sentence naming it and
/// why: no offset is ever made up.
/// What `lockstep align` is given: movies (or sound files) of one event, the first the reference.
public struct AlignOptions: Sendable {
    public var inputs: [String]
    public init(inputs: [String]) { self.inputs = inputs }

    /// At least two inputs, each a readable file.
    public func check() throws {
        guard inputs.count >= 2 else { throw AlignError.tooFewInputs(inputs.count) }
        for input in inputs { try OutputPath.checkInput(input) }
    }
}

public final class AlignJob: Job {
    public let options: AlignOptions
    private var inputs: [String] { options.inputs }
    private let cancellation = CancellationToken()

    /// Progress: the sound read, milliseconds, over every input (their lengths as their containers say).
    private let events: JobEvents
    public init(options: AlignOptions, events: JobEvents = JobEvents()) { self.options = options; self.events = events }

    /// Stops the reads from another thread: `run()` throws `JobError.cancelled`.
    public func cancel() { cancellation.cancel() }

    public func run() throws -> AlignResult {
        try options.check()
        let settings = SoundAligner.Settings()
        let sounds = try readAll(rate: settings.rate)
        if cancellation.isCancelled { throw JobError.cancelled }
        let signals = sounds.map { AlignSignal(samples: $0.samples, rate: $0.rate, start: $0.start) }
        guard signals[0].rms >= SoundAligner.silence else {
            throw AlignError.silentReference(inputs[0])
        }
        let aligner = SoundAligner(reference: signals[0], engine: FFTWCorrelationEngine(), settings: settings)
        let outcomes = Outcomes(count: inputs.count)
        Parallel.forEach(inputs.count - 1) { k in
            outcomes.set(k + 1, aligner.align(signals[k + 1]))
        }
        var clocks: [AlignedInput?] = [AlignedInput.reference(inputs[0], videoStart: sounds[0].videoStart)] + Array(repeating: nil, count: inputs.count - 1)
        var refusals: [Int: AlignRefusal] = [:]
        for i in 1..<inputs.count {
            switch outcomes.get(i) {
            case .success(let a): clocks[i] = AlignedInput(path: inputs[i], offset: a.offset, scale: a.scale, confidence: a.confidence, details: a)
            case .failure(let refusal): refusals[i] = refusal
            }
        }
        // An input that shares no sound with the first may share some with another input that
        // was placed: try each of those as the reference, until nothing more is placed.
        var tried = Set<[Int]>()
        var progress = true
        while progress {
            progress = false
            for i in refusals.keys.sorted() {
                if case .silent = refusals[i]! { continue }
                if case .tooShort = refusals[i]! { continue }
                for j in 1..<inputs.count where j != i && clocks[j] != nil && !tried.contains([i, j]) {
                    tried.insert([i, j])
                    if case .success(let a) = SoundAligner(reference: signals[j], engine: aligner.engine, settings: settings).align(signals[i]) {
                        clocks[i] = AlignedInput.through(clocks[j]!, index: j, path: inputs[i], a)
                        refusals[i] = nil
                        progress = true
                        break
                    }
                }
            }
        }
        if let (i, refusal) = refusals.min(by: { $0.key < $1.key }) {
            throw AlignError.refused(input: i, line: Self.describe(refusal, input: i, path: inputs[i], reference: inputs[0], othersTried: tried.contains { $0[0] == i }))
        }
        let placed = clocks.enumerated().map { i, c in i == 0 ? c! : c!.withFirstFrames(sounds[i].videoStart, reference: sounds[0].videoStart) }
        return AlignResult(inputs: placed, soundSeconds: sounds.map(\.duration))
    }

    /// Every input's sound, read in parallel (two at a time per core is no faster: the decoders
    /// are compute-bound). Failures are reported in input order.
    private func readAll(rate: Int) throws -> [MonoSound] {
        let results = ReadResults(count: inputs.count)
        let (inputs, cancellation, report) = (self.inputs, self.cancellation, events.progress)
        // Told once every input has said its length (so the first line drawn has the total).
        let read = NIOLockedValueBox([(done: Int64, total: Int64?, told: Bool)](repeating: (0, nil, false), count: inputs.count))
        Parallel.forEach(inputs.count) { i in
            results.set(
                i,
                Result {
                    try SoundReader.read(inputs[i], rate: rate, cancellation: cancellation) { done, total in
                        guard let report else { return }
                        let (sum, all, ready) = read.withLockedValue { r in
                            r[i] = (done, total, true)
                            return (r.reduce(0) { $0 + $1.done }, r.allSatisfy { $0.total != nil } ? r.reduce(0) { $0 + $1.total! } : nil, r.allSatisfy(\.told))
                        }
                        if ready { report(sum, all) }
                    }
                })
        }
        return try results.all()
    }

    /// `s` with as many decimals (2 to 6) as it takes to read as less than `limit`, as it is: 0.996
    /// s printed "1.00" beside "needs at least 1 s".
    static func seconds(_ s: Double, under limit: Double) -> String {
        var digits = 2
        while digits < 6, s < limit, let shown = Double(String(format: "%.\(digits)f", s)), shown >= limit { digits += 1 }
        return String(format: "%.\(digits)f", s)
    }

    /// The sentence for an input that was not aligned.
    static func describe(_ refusal: AlignRefusal, input i: Int, path: String, reference: String, othersTried: Bool = false) -> String {
        let name = "input \(i + 1) (\(path))", first = "input 1 (\(reference))" + (othersTried ? " nor of any other input" : "")
        switch refusal {
        case .silent:
            return "\(name) is silent (no sound above -70 dBFS): there is nothing to align it by; no offset is given."
        case .tooShort(let s):
            return "\(name) has only \(seconds(s, under: SoundAligner.shortest)) s of sound; align needs at least 1 s."
        case .noMatch(let z, let lead):
            return "\(name): its sound matches no part of \(first) (best peak \(String(format: "%.1f", z)) times the correlation's rms, "
                + "\(String(format: "%.2f", lead)) times the next place; a match is over 7 and 1.6): another event, music or noise only, "
                + "or no sound in common; no offset is given."
        case .ambiguous(let offsets):
            let places = offsets.map { String(format: "%.3f s", $0) }.joined(separator: " and ")
            return "\(name): parts of its sound match \(first) at different places (offsets \(places)) equally well "
                + "(a repeated sound, or two recordings joined); no offset is given."
        case .noOverlap(let s, let needed):
            return "\(name) shares only \(seconds(s, under: needed)) s of sound with \(first); align needs at least \(String(format: "%g", needed)) s "
                + "(\(String(format: "%g", SoundAligner.shortest)) s to measure, and \(String(format: "%g", (needed - SoundAligner.shortest) / 2)) s searched at each end)."
        case .inconsistent(let agreeing, let windows):
            return "\(name): only \(agreeing) of its \(windows) stretches with sound agree on one place in \(first): "
                + "its sound does not match well enough; no offset is given."
        }
    }
}

private final class ReadResults: Sendable {
    private let results: Mutex<[Result<MonoSound, any Error>?]>
    init(count: Int) { results = Mutex(Array(repeating: nil, count: count)) }
    func set(_ i: Int, _ r: sending Result<MonoSound, any Error>) { results.withLock { $0[i] = r } }
    func all() throws -> [MonoSound] {
        try results.withLock { results in
            try results.map { r in
                do { return try r!.get() } catch let e as MediaError where e.kind == .cancelled { throw JobError.cancelled }
            }
        }
    }
}

private final class Outcomes: Sendable {
    private let outcomes: Mutex<[Result<SoundAlignment, AlignRefusal>?]>
    init(count: Int) { outcomes = Mutex(Array(repeating: nil, count: count)) }
    func set(_ i: Int, _ r: sending Result<SoundAlignment, AlignRefusal>) { outcomes.withLock { $0[i] = r } }
    func get(_ i: Int) -> Result<SoundAlignment, AlignRefusal> { outcomes.withLock { $0[i]! } }
}

/// Why `align` (and `--sync audio`) gives no offsets. Each case renders the one line the user
/// reads; a refusal's line is `AlignJob.describe`'s.
public enum AlignError: JobFailure, Equatable {
    case tooFewInputs(Int)
    case silentReference(String)
    /// Input `input` (0-based) could not be placed: `line` says why, naming it.
    case refused(input: Int, line: String)

    public var description: String {
        switch self {
        case .tooFewInputs(let n): "align needs at least 2 inputs (the first is the reference); got \(n)."
        case .silentReference(let path): "input 1 (\(path)) is silent (no sound above -70 dBFS): there is nothing to align the others by."
        case .refused(_, let line): line
        }
    }
}
