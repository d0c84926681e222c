import Compositor
import Foundation

/// The checks `lockstep verify` runs on a scan. Each returns violations naming the output frame
/// and time; none reads a file.
public enum Checks {
    /// Thresholds, with their reasons.
    public static let audioTolerance = 0.001  // 1 ms: Lockstep cuts audio to the sample
    public static let blackMean = 20.0, blackDeviation = 4.0  // video-range black is 16
    public static let stillDifference = 0.1  // mean absolute luma difference of a repeated picture
    /// A rendered picture (provenance "change") that differs from the previous one by this much
    /// survives encoding as a clear change: ten times `stillDifference`, so encoder noise on
    /// either side cannot turn a still source into a frozen frame.
    public static let renderedChange = 1.0

    public static func run(_ scan: Scan) -> VerifyReport {
        // Provenance comes from the file: a record out of range is a violation, never a trap,
        // and the checks below only see records that passed.
        var scan = scan
        var v: [Violation] = []
        var malformed: [Int] = []
        for k in scan.frames.indices {
            if let p = scan.frames[k].provenance, !wellFormed(p) {
                malformed.append(k)
                scan.frames[k].provenance = nil
            }
        }
        if let first = malformed.first {
            v.append(
                Violation(
                    .provenanceMalformed, frame: first,
                    "\(malformed.count) frame\(malformed.count == 1 ? "" : "s") carry a provenance record out of range, the first is frame \(first)"))
        }
        let header = scan.frames.first?.provenance
        guard !scan.frames.isEmpty else {
            return VerifyReport(
                file: scan.path, frames: 0, frameStep: nil, provenance: false, sync: nil, inputs: nil, audio: scan.audio != nil,
                violations: [Violation(.noFrames, "the file has no video frames")])
        }
        let step = commonStep(scan.frames)
        // An older reversal kept each source frame's own duration (a variable rate stayed
        // variable); one on the frame loop ("timing") has the output's constant step.
        if let mode = header?.sync, reverseModes.contains(mode), header?.timing == nil, let sourceTimeBase = positiveRate(header?.inputs?.first?.timeBase) {
            v += reverseTiming(scan, sourceTimeBase: sourceTimeBase)
        } else {
            v += timing(scan, step: step)
        }
        let hasProvenance = scan.frames.contains { $0.provenance != nil } || !malformed.isEmpty
        if hasProvenance {
            switch header?.sync {
            case ConcatCheck.sync?: v += ConcatCheck.provenance(scan.frames, malformed: Set(malformed))
            case let mode? where reverseModes.contains(mode): v += reverseProvenance(scan.frames, boomerang: mode == "boomerang")
            default: v += provenance(scan.frames, malformed: Set(malformed))
            }
        }
        v += pictures(scan.frames, provenance: hasProvenance)
        v += audio(scan, step: step, header: header)
        let switches = filterSwitches(scan.frames)
        return VerifyReport(
            file: scan.path, frames: scan.frames.count, frameStep: step?.seconds, provenance: hasProvenance,
            sync: header?.sync, inputs: header?.inputs?.map(\.name), audio: scan.audio != nil, violations: v,
            filterSwitches: switches.isEmpty ? nil : switches)
    }

    static func seconds(_ t: Rational) -> String { String(format: "%.3f s", t.seconds) }

    /// Source frame indices and pts far beyond any real movie, with room for the arithmetic
    /// below (differences, +1) to stay inside 64 bits.
    static let largestIndex: Int64 = 1 << 40, largestPTS: Int64 = 1 << 61

    /// A record the checks can compute with: k and every source index in range, every source
    /// a [index, pts] pair.
    static func wellFormed(_ p: Provenance) -> Bool {
        (0...largestIndex).contains(p.k) && (p.change.map { (0...255).contains($0) } ?? true)
            && (p.first.map { (0...largestIndex).contains($0) } ?? true)
            && p.src.allSatisfy { r in
                // [index, pts], [index, pts, until] (time sync), or [] (an absent input).
                r.isEmpty || ((r.count == 2 || r.count == 3) && (0...largestIndex).contains(r[0]) && r.dropFirst().allSatisfy { (-largestPTS...largestPTS).contains($0) })
            }
    }

    /// A positive rational whose parts fit FFmpeg's 32-bit AVRational, as a header's "fps" and
    /// "timeBase" must be; nil for anything else ("0000", "-1/30", "x").
    static func positiveRate(_ text: String?) -> Rational? {
        guard let text, let r = Rational(parsing: text), r.num > 0, r.num <= Int64(Int32.max), r.den <= Int64(Int32.max) else { return nil }
        return r
    }

    /// A container timestamp as an exact time, nil where it does not fit.
    static func time(_ t: Timestamp) -> Rational? { t.timeBase.multiplied(by: t.value) }

    /// b - a for two frames' timestamps, nil where it does not fit.
    static func difference(_ a: Timestamp, _ b: Timestamp) -> Rational? {
        guard let x = time(a), let y = time(b) else { return nil }
        return y.subtracting(x)
    }

    /// A ratio of two durations as a count, clamped (a crafted gap of 2^62 ticks is not an Int).
    static func count(_ x: Double) -> Int {
        guard x.isFinite else { return x > 0 ? Int.max : 0 }
        return x >= 1e15 ? 1_000_000_000_000_000 : x <= -1e15 ? -1_000_000_000_000_000 : Int(x.rounded())
    }

    /// The most common step between consecutive timestamps.
    static func commonStep(_ frames: [ScannedFrame]) -> Rational? {
        var counts: [Rational: Int] = [:]
        for k in frames.indices.dropFirst() {
            if let d = difference(frames[k - 1].pts, frames[k].pts) { counts[d, default: 0] += 1 }
        }
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
    }

    // MARK: timing

    /// Frame k at the same time as frame k - 1, or before it (`d`: the step between them).
    static func orderViolation(_ f: [ScannedFrame], _ k: Int, _ d: Rational) -> Violation? {
        let t = f[k].pts
        if d == Rational(0, 1) {
            return Violation(.repeatedTimestamp, frame: k, time: t.seconds, "frame \(k) repeats the timestamp of frame \(k - 1) (\(String(format: "%.3f s", t.seconds)))")
        } else if d < Rational(0, 1) {
            return Violation(
                .reorderedTimestamp, frame: k, time: t.seconds, "frame \(k) at \(String(format: "%.3f s", t.seconds)) comes before frame \(k - 1) at \(String(format: "%.3f s", f[k - 1].pts.seconds))")
        }
        return nil
    }

    static func timing(_ scan: Scan, step: Rational?) -> [Violation] {
        var v: [Violation] = []
        let f = scan.frames
        let first = f[0].pts
        // Where the container cannot mark the audio's priming as discarded (AAC in Matroska),
        // every stream starts later by it: the video's first frame is there, in sync.
        let shifted = scan.audio.map { $0.priming > 0 && abs(first.seconds - $0.priming) <= audioTolerance } ?? false
        if first.value != 0 && !shifted {
            v.append(Violation(.firstTimestamp, frame: 0, time: first.seconds, "the first frame is at \(String(format: "%.3f s", first.seconds)), not 0"))
        }
        guard let step, step > Rational(0, 1), let late = step.adding(step.multiplied(by: Rational(1, 2)) ?? step) else { return v }
        // A stored time is the true one rounded to the time base (Matroska: 1 ms). A file Lockstep
        // did not write (no provenance: a camera original) keeps its camera's clock, whose steps
        // jitter by a fraction of a millisecond (phones, GoPros: 0.1 ms); up to a fiftieth of the
        // step (0.67 ms at 30 fps) is that jitter, not an irregular step. Lockstep's own frames
        // are placed exactly, and keep the strict bound.
        var slack = min(f[0].pts.timeBase.num > 0 ? f[0].pts.timeBase : Rational(1, 1000), Rational(1, 1000))
        if f[0].provenance == nil, let jitter = step.multiplied(by: Rational(1, 50)), jitter > slack { slack = jitter }
        let longest = step.adding(slack), shortest = step.subtracting(slack)
        let timeBases = (f[0].provenance?.inputs ?? []).map { positiveRate($0.timeBase) }
        for k in f.indices.dropFirst() {
            guard let d = difference(f[k - 1].pts, f[k].pts) else { continue }
            let t = f[k].pts
            if let order = orderViolation(f, k, d) {
                v.append(order)
            } else if d > late {
                let missing = count(d.seconds / step.seconds) - 1
                v.append(
                    Violation(
                        .missingFrames, frame: k, time: t.seconds,
                        "\(missing) frame\(missing == 1 ? "" : "s") missing before frame \(k): it comes \(String(format: "%.1f", d.seconds * 1000)) ms after frame \(k - 1), the step is \(String(format: "%.1f", step.seconds * 1000)) ms"
                    ))
            } else if longest.map({ d > $0 }) ?? false || shortest.map({ d < $0 }) ?? false,
                !keepsSourceStep(f, k, d, slack: slack, timeBases: timeBases)
            {
                v.append(
                    Violation(
                        .irregularStep, frame: k, time: t.seconds,
                        "frame \(k) comes \(String(format: "%.1f", d.seconds * 1000)) ms after frame \(k - 1); the step is \(String(format: "%.1f", step.seconds * 1000)) ms"))
            }
        }
        if let duration = scan.videoDuration {
            // In a time base of 1 ms or coarser (Matroska) the most common step is the true one
            // rounded (33 ms for 30 fps): the mean step over the stream is the frame's length.
            var frameLength = step.seconds
            if f.count > 1, f[0].pts.timeBase >= Rational(1, 1000), let span = difference(f[0].pts, f[f.count - 1].pts) {
                frameLength = span.seconds / Double(f.count - 1)
            }
            let expected = Double(f.count) * frameLength
            if abs(duration - expected) > frameLength * 0.5 {
                v.append(
                    Violation(
                        .countVersusDuration, time: duration,
                        String(format: "%d frames of %.1f ms make %.3f s, but the video stream lasts %.3f s", f.count, frameLength * 1000, expected, duration)))
            }
        }
        return v
    }

    /// Whether output frames k - 1 and k show consecutive frames of one source, a step apart as
    /// the source's own frames were (to its time base and `slack`): an output that keeps its
    /// source's times (a copy, a cut) keeps a camera's jitter too, and that is right.
    static func keepsSourceStep(_ f: [ScannedFrame], _ k: Int, _ d: Rational, slack: Rational, timeBases: [Rational?]) -> Bool {
        guard let a = f[k - 1].provenance, let b = f[k].provenance, a.src.count == 1, b.src.count == 1,
            a.src[0].count >= 2, b.src[0].count >= 2, b.src[0][0] == a.src[0][0] + 1, a.clip == b.clip
        else { return false }
        let i = b.clip ?? 0
        guard i >= 0, i < timeBases.count, let tb = timeBases[i], let own = tb.multiplied(by: b.src[0][1] - a.src[0][1]),
            let off = d.subtracting(own), let bound = slack.adding(tb)
        else { return false }
        return off <= bound && Rational(0, 1).subtracting(off).map { $0 <= bound } ?? false
    }

    // MARK: provenance

    static func provenance(_ frames: [ScannedFrame], malformed: Set<Int> = []) -> [Violation] {
        var v: [Violation] = []
        let header = frames[0].provenance
        let names = header?.inputs?.map(\.name) ?? []
        func name(_ i: Int) -> String { i < names.count ? "input \(i + 1) (\(names[i]))" : "input \(i + 1)" }
        let missing = frames.indices.filter { frames[$0].provenance == nil && !malformed.contains($0) }
        if let first = missing.first {
            v.append(Violation(.provenanceMissing, frame: first, "\(missing.count) frame\(missing.count == 1 ? "" : "s") carry no provenance, the first is frame \(first)"))
        }
        // A cut (`--frames A:B`): frame k of the file is frame A + k of the single pass, and its
        // first frame's header says A. A first record of another frame without that header (a
        // cut by an older Lockstep, or a file cut by another tool) cannot be checked: one line.
        let cut = header?.first ?? 0
        if let p = header, p.first == nil, p.k != 0, p.inputs == nil {
            return v + [
                Violation(
                    .provenanceMissing, frame: 0, time: frames[0].pts.seconds,
                    "frame 0 carries the provenance of output frame \(p.k) without the header a cut's first frame carries; its sources are not checked")
            ]
        }
        // An unreadable time base or frame rate leaves the time checks of that input (or all)
        // undone, and says so; a time base of 1 would judge against a made-up clock.
        let timeBases: [Rational?] = header?.inputs?.map { positiveRate($0.timeBase) } ?? []
        for (i, input) in (header?.inputs ?? []).enumerated() where timeBases[i] == nil {
            v.append(Violation(.provenanceMalformed, frame: 0, "the provenance gives \(name(i)) the time base \"\(input.timeBase)\", not a positive fraction; its times are not checked"))
        }
        let timeSync = header?.sync == "time"
        let fps = positiveRate(header?.fps)
        if timeSync && fps == nil {
            v.append(
                Violation(
                    .provenanceMalformed, frame: 0, "the provenance gives the frame rate \(header?.fps.map { "\"\($0)\"" } ?? "as missing"), not a positive fraction; the time-sync checks are not done"
                ))
        }
        let placement = TimePlacement(header: header, inputs: timeBases.count)
        if let problem = placement.problem { v.append(Violation(.provenanceMalformed, frame: 0, problem)) }
        let stills = Set((header?.inputs ?? []).indices.filter { header?.inputs?[$0].still == true })
        var previous: [Int64?]?
        var origins: [Int64]? = placement.origins
        // Per input: the last record showing a frame ([index, pts, until?]), and whether it has
        // been absent after showing frames (then it has ended for good).
        var last: [[Int64]?] = Array(repeating: nil, count: timeBases.count)
        // Per input: the output frame from which it has been absent after its frames (ended).
        var absentSince: [Int?] = Array(repeating: nil, count: timeBases.count)
        // Source steps (time sync without `until`, older files): per input, the smallest
        // positive pts step per source frame seen.
        var sourceStep: [Rational?] = Array(repeating: nil, count: timeBases.count)
        if timeSync {
            for i in timeBases.indices {
                var best: Rational?
                for k in frames.indices.dropFirst() {
                    guard let tb = timeBases[i], let a = frames[k - 1].provenance?.src, let b = frames[k].provenance?.src,
                        i < a.count, i < b.count, a[i].count >= 2, b[i].count >= 2, b[i][0] == a[i][0] + 1,
                        let s = tb.multiplied(by: b[i][1] - a[i][1])
                    else { continue }
                    if s > Rational(0, 1) && (best == nil || s < best!) { best = s }
                }
                sourceStep[i] = best
            }
        }
        for (k, frame) in frames.enumerated() {
            guard let p = frame.provenance else { previous = nil; continue }
            let t = frame.pts.seconds
            if p.k != cut + Int64(k) {
                v.append(
                    Violation(
                        .provenanceMissing, frame: k, time: t,
                        cut == 0
                            ? "frame \(k) carries the provenance of output frame \(p.k)"
                            : "frame \(k) of a cut from output frame \(cut) carries the provenance of output frame \(p.k), not \(cut + Int64(k))"))
            }
            let held = Set(p.held ?? [])
            let indices: [Int64?] = p.src.map { $0.isEmpty ? nil : $0[0] }
            // A cut's first frame is not its inputs' first: without the header's origins, the
            // time checks are not done (below: `origins` stays nil).
            if origins == nil && cut == 0 { origins = p.src.map { $0.count > 1 ? $0[1] : 0 } }
            let tick = fps.flatMap { $0.inverse.multiplied(by: cut + Int64(k)) }
            for i in indices.indices {
                guard let index = indices[i] else {
                    // Absent: only under --longest, and only outside the input's own span: before
                    // its start, or after the end of what it showed (and then for good).
                    if !(timeSync && placement.coverage == "longest") {
                        v.append(Violation(.droppedSource, frame: k, time: t, "output frame \(k): \(name(i)) is absent, and only --longest leaves an input out"))
                    } else if let tick, let local = placement.inputTime(tick, input: i), let tb = i < timeBases.count ? timeBases[i] : nil {
                        let slack = min(tb.multiplied(by: Rational(1, 2)) ?? Rational(1, 1000), Rational(1, 1000))
                        let before = last[i] == nil && (local.adding(slack).map { $0 < placement.trimStart(i) } ?? true)
                        let after =
                            last[i].map { r in
                                r.count > 2 && origins.map { i < $0.count } == true
                                    && (tb.multiplied(by: r[2] - origins![i]).map { $0 <= local.adding(slack) ?? local } ?? true)
                            } ?? false
                        if !before && !after {
                            v.append(Violation(.droppedSource, frame: k, time: t, "output frame \(k) at \(seconds(tick)): \(name(i)) is absent, but its \(seconds(local)) is inside its span"))
                        }
                        if after && i < absentSince.count && absentSince[i] == nil { absentSince[i] = k }
                    }
                    continue
                }
                if i < absentSince.count, let since = absentSince[i] {
                    v.append(
                        Violation(
                            .reorderedSource, frame: k, time: t,
                            "output frame \(k): \(name(i)) comes back with source frame \(index) after being absent from output frame \(since), past what it had shown"))
                    absentSince[i] = nil
                }
                let record = p.src[i]
                if held.contains(i) && header?.holdLast != true {
                    v.append(Violation(.duplicatedSource, frame: k, time: t, "output frame \(k): \(name(i)) holds source frame \(index), and only --hold-last holds a frame"))
                }
                if let prev = previous, i < prev.count, let before = prev[i] {
                    let d = index - before
                    if stills.contains(i) {
                        if d != 0 { v.append(Violation(.reorderedSource, frame: k, time: t, "output frame \(k): \(name(i)), a still, shows source frame \(index) after \(before)")) }
                    } else if d < 0 {
                        v.append(Violation(.reorderedSource, frame: k, time: t, "output frame \(k): \(name(i)) goes back from source frame \(before) to \(index)"))
                    } else if timeSync {
                        // The previous record said when the next frame starts: the one shown now
                        // must be that frame, or one after it (those between were on screen only
                        // between ticks, which the times below prove).
                        if d > 0, let r = last[i], r.count > 2, record.count >= 2,
                            (d == 1 && record[1] != r[2]) || (d > 1 && record[1] <= r[2])
                        {
                            v.append(
                                Violation(
                                    .droppedSource, frame: k, time: t,
                                    "output frame \(k): \(name(i)) shows source frame \(index) at pts \(record[1]), but frame \(before)'s record said frame \(before + 1) starts at pts \(r[2])"))
                        }
                    } else if d == 0 && !held.contains(i) {
                        v.append(Violation(.duplicatedSource, frame: k, time: t, "output frame \(k): \(name(i)) shows source frame \(index) again"))
                    } else if d > 1 {
                        let n = d - 1
                        v.append(
                            Violation(
                                .droppedSource, frame: k, time: t,
                                "output frame \(k): \(name(i)) jumps from source frame \(before) to \(index): \(n == 1 ? "source frame \(before + 1) was" : "\(n) source frames were") dropped"))
                    }
                } else if previous == nil && k == 0, !(timeSync && (placement.placed || cut > 0)) {
                    // Frame-by-frame, output frame A shows each movie's source frame A (a still: 0).
                    let expected = stills.contains(i) ? 0 : cut
                    if index != expected {
                        v.append(
                            Violation(
                                .droppedSource, frame: 0, time: t,
                                cut == 0
                                    ? "output frame 0: \(name(i)) starts at source frame \(index), not 0"
                                    : "output frame 0 (output frame \(cut) of the single pass): \(name(i)) starts at source frame \(index), not \(expected)"))
                    }
                }
                if timeSync, !stills.contains(i), let tick, let origins, i < timeBases.count, i < origins.count, record.count > 1,
                    let tb = timeBases[i], let chosen = tb.multiplied(by: record[1] - origins[i]),
                    let local = placement.inputTime(tick, input: i)
                {
                    let slack = min(tb.multiplied(by: Rational(1, 2)) ?? Rational(1, 1000), Rational(1, 1000))
                    if let latest = local.adding(slack), chosen > latest {
                        v.append(
                            Violation(
                                .sourceFromTheFuture, frame: k, time: t,
                                "output frame \(k) at \(seconds(tick)): \(name(i)) shows source frame \(index) of \(seconds(chosen)), which is not on screen yet"))
                    } else if held.contains(i) {
                        // Past its end by declaration; a held frame never advances again (checked above).
                    } else if record.count > 2, let until = tb.multiplied(by: record[2] - origins[i]) {
                        if let overdue = until.adding(slack), local >= overdue {
                            v.append(
                                Violation(
                                    .staleSource, frame: k, time: t,
                                    "output frame \(k) at \(seconds(tick)): \(name(i)) still shows source frame \(index) of \(seconds(chosen)), on screen only until \(seconds(until))"))
                        }
                    } else if let s = sourceStep[i], let due = chosen.adding(s), let overdue = due.adding(slack), local >= overdue {
                        v.append(
                            Violation(
                                .staleSource, frame: k, time: t,
                                "output frame \(k) at \(seconds(tick)): \(name(i)) still shows source frame \(index) of \(seconds(chosen)); frame \(index + 1) was due at \(seconds(due))"))
                    }
                }
                if i < last.count { last[i] = record }
            }
            // An absent input keeps its previous index for the progression checks.
            previous = indices.indices.map { i in indices[i] ?? previous.flatMap { i < $0.count ? $0[i] : nil } }
        }
        return v
    }

    // MARK: pictures

    static func pictures(_ frames: [ScannedFrame], provenance: Bool) -> [Violation] {
        var v: [Violation] = []
        func black(_ f: ScannedFrame) -> Bool { f.meanLuma <= blackMean && f.lumaDeviation <= blackDeviation }
        // A black frame whose record says it was rendered from black sources (a fade) is right;
        // a run at either end with one frame that does not say so is named whole.
        func faithful(_ run: ArraySlice<ScannedFrame>) -> Bool { run.allSatisfy { $0.provenance?.black == true } }
        let leading = frames.prefix { black($0) }.count
        if leading > 0 && !faithful(frames.prefix(leading)) {
            v.append(
                Violation(
                    .blackStart, frame: 0, time: frames[0].pts.seconds,
                    leading == 1 ? "frame 0 is black" : "frames 0-\(leading - 1) are black"))
        }
        if leading < frames.count {
            let trailing = frames.reversed().prefix { black($0) }.count
            if trailing > 0 && !faithful(frames.suffix(trailing)) {
                let from = frames.count - trailing
                v.append(
                    Violation(
                        .blackEnd, frame: from, time: frames[from].pts.seconds,
                        trailing == 1 ? "the last frame (\(from)) is black" : "frames \(from)-\(frames.count - 1) at the end are black"))
            }
        }
        // A run of repeats is one violation, named by its first frame: a picture frozen for the
        // last second is one line, not thirty.
        var run: (kind: Violation.Kind, first: Int, last: Int, input: Int?)?
        func close() {
            guard let r = run else { return }
            run = nil
            let atEnd = r.last == frames.count - 1 && r.last > r.first ? " (to the end)" : ""
            let t = frames[r.first].pts.seconds
            if r.kind == .repeatedPicture {
                v.append(
                    Violation(
                        .repeatedPicture, frame: r.first, time: t,
                        r.first == r.last
                            ? "frame \(r.first) repeats the picture of frame \(r.first - 1)"
                            : "frames \(r.first)-\(r.last) repeat the picture of frame \(r.first - 1)\(atEnd)"))
            } else {
                let i = r.input ?? 0
                func source(_ k: Int) -> Int64 { frames[k].provenance.flatMap { i < $0.src.count ? $0.src[i].first : nil } ?? -1 }
                let from = source(r.first - 1), to = source(r.last)
                v.append(
                    Violation(
                        .frozenFrame, frame: r.first, time: t,
                        r.first == r.last
                            ? "output frame \(r.first) is the same picture as frame \(r.first - 1) although input \(i + 1) advanced from source frame \(from) to \(to)"
                            : "output frames \(r.first)-\(r.last) are the same picture as frame \(r.first - 1)\(atEnd) although input \(i + 1) advanced from source frame \(from) to \(to)"))
            }
        }
        for k in frames.indices.dropFirst() {
            var found: (Violation.Kind, Int?)?
            if let d = frames[k].difference, d < stillDifference, !black(frames[k]) {
                if !provenance {
                    found = (.repeatedPicture, nil)
                } else if let rendered = renderedChange(frames, at: k), rendered < renderedChange {
                    // The render itself barely changed (a still source, a snake of still
                    // footage): the file shows what was rendered. Only without this measure
                    // (older files) does an advancing source alone make a frozen frame.
                } else if let a = frames[k - 1].provenance?.src, let b = frames[k].provenance?.src, a.count == b.count,
                    let i = b.indices.first(where: { b[$0].first != a[$0].first })
                {
                    found = (.frozenFrame, i)
                }
            }
            if let kind = found?.0, let r = run, r.kind == kind, r.last == k - 1 {
                run!.last = k
            } else {
                close()
                if let (kind, input) = found { run = (kind, k, k, input) }
            }
        }
        close()
        return v
    }

    /// Frame k's provenance "change"; for a render's first frame inside a join of segment
    /// renders (nothing rendered before it in its own render, so none), its neighbours' measure
    /// stands in, the larger of the two: the footage is still there only if it is on both sides.
    static func renderedChange(_ frames: [ScannedFrame], at k: Int) -> Double? {
        if let c = frames[k].provenance?.change { return c }
        guard k > 0, let before = frames[k - 1].provenance?.change else { return nil }
        let after = k + 1 < frames.count ? frames[k + 1].provenance?.change : nil
        return max(before, after ?? before)
    }

    // MARK: audio

    /// Audio against video, judged by what the file's container can express: the start to the
    /// millisecond once priming the container cannot mark is allowed for; the end to the
    /// millisecond where the container trims the last codec frame (Lockstep's MP4s, to the
    /// sample), to one codec frame where it cannot (a camera's file ends its audio on a whole
    /// AAC frame: 4 ms before the video, or 7 ms after, is its normal end). Silence at the end
    /// is not judged: a clip may end quietly, and nothing in the file tells padding from a
    /// quiet room (every clip ending in silence failed).
    static func audio(_ scan: Scan, step: Rational?, header: Provenance?) -> [Violation] {
        var v: [Violation] = []
        let videoStart = scan.frames[0].pts.seconds
        let videoEnd = scan.frames.last!.pts.seconds + (step?.seconds ?? 0)
        guard let a = scan.audio else {
            if let withAudio = header?.inputs?.filter(\.audio), !withAudio.isEmpty {
                v.append(Violation(.audioMissing, "the file has no audio, but \(withAudio.map(\.name).joined(separator: ", ")) had audio"))
            }
            return v
        }
        func ms(_ s: Double) -> String { String(format: "%.0f ms", abs(s) * 1000) }
        let audible = a.start + a.priming
        if abs(audible - videoStart) > audioTolerance {
            v.append(Violation(.audioStart, time: audible, "audio starts \(ms(audible - videoStart)) \(audible > videoStart ? "after" : "before") the video"))
        }
        let endTolerance = max(audioTolerance, a.endResolution)
        if abs(a.end - videoEnd) > endTolerance {
            let granularity = a.endResolution > audioTolerance ? String(format: "; its codec ends on a frame of %.1f ms", a.endResolution * 1000) : ""
            v.append(
                Violation(
                    .audioEnd, time: a.end,
                    "audio ends \(ms(a.end - videoEnd)) \(a.end > videoEnd ? "after" : "before") the video (\(String(format: "%.3f", a.end)) s against \(String(format: "%.3f", videoEnd)) s)\(granularity)"
                ))
        }
        return v
    }
}
