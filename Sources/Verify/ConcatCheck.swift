import Compositor

/// The provenance check of a `lockstep concat` output (header "sync":"concat"): every frame
/// names its clip and the one source frame it shows. Clips appear in order, none skipped; each
/// clip starts at its source frame 0 and advances one source frame per output frame (none lost,
/// repeated or reordered); and at each join the clip left behind ended at its last frame (the
/// count its header entry gives), so the join lost nothing. The last clip shown may stop early:
/// that is the cap (`--max-duration`), reported nowhere as a fault.
public enum ConcatCheck {
    public static let sync = "concat"
    /// The header's "timing" of a concat by time (the default): clips keep their durations.
    public static let byTime = "time"

    public static func provenance(_ frames: [ScannedFrame], malformed: Set<Int> = []) -> [Violation] {
        if frames.first?.provenance?.timing == byTime { return timeProvenance(frames, malformed: malformed) }
        var v: [Violation] = []
        let inputs = frames.first?.provenance?.inputs ?? []
        func name(_ c: Int) -> String { c >= 0 && c < inputs.count ? "clip \(c + 1) (\(inputs[c].name))" : "clip \(c + 1)" }
        let missing = frames.indices.filter { frames[$0].provenance == nil && !malformed.contains($0) }
        if let first = missing.first {
            v.append(Violation(.provenanceMissing, frame: first, "\(missing.count) frame\(missing.count == 1 ? "" : "s") carry no provenance, the first is frame \(first)"))
        }
        // A cut (`--from/--to`): frame k is frame A + k of the whole join (its header says A).
        let cut = frames.first?.provenance?.first ?? 0
        var previous: (clip: Int, index: Int64)?
        for (k, frame) in frames.enumerated() {
            guard let p = frame.provenance else { previous = nil; continue }
            let t = frame.pts.seconds
            if p.k != cut + Int64(k) {
                v.append(Violation(.provenanceMissing, frame: k, time: t, "frame \(k) carries the provenance of output frame \(p.k)"))
            }
            guard let clip = p.clip, p.src.count == 1 else {
                v.append(Violation(.provenanceMalformed, frame: k, time: t, "frame \(k) does not say which clip and source frame it shows"))
                previous = nil
                continue
            }
            let index = p.src[0][0]
            let expected: (clip: Int, index: Int64)? = previous.map { ($0.clip, $0.index + 1) } ?? (k == 0 && cut == 0 ? (0, 0) : nil)
            if let expected, (clip, index) != expected {
                if clip == expected.clip {
                    let d = index - expected.index
                    if d < 0 {
                        v.append(
                            Violation(
                                d == -1 ? .duplicatedSource : .reorderedSource, frame: k, time: t,
                                d == -1
                                    ? "output frame \(k): \(name(clip)) shows source frame \(index) again"
                                    : "output frame \(k): \(name(clip)) goes back from source frame \(expected.index - 1) to \(index)"))
                    } else {
                        v.append(
                            Violation(
                                .droppedSource, frame: k, time: t,
                                "output frame \(k): \(name(clip)) jumps from source frame \(expected.index - 1) to \(index): \(d == 1 ? "source frame \(expected.index) was" : "\(d) source frames were") dropped"
                            ))
                    }
                } else if clip == expected.clip + 1 && index == 0 {
                    // A join: the clip left behind must have shown its last frame.
                    let shown = expected.index, listed = expected.clip < inputs.count ? inputs[expected.clip].frames : nil
                    if let listed, shown != listed {
                        v.append(
                            Violation(
                                .droppedSource, frame: k, time: t,
                                "the join into \(name(clip)) at output frame \(k): \(name(expected.clip)) ended after \(shown) of its \(listed) frames"))
                    }
                } else if clip < expected.clip {
                    v.append(Violation(.reorderedSource, frame: k, time: t, "output frame \(k): \(name(clip)) comes back after \(name(expected.clip))"))
                } else {
                    v.append(
                        Violation(
                            .droppedSource, frame: k, time: t,
                            clip == expected.clip + 1
                                ? "output frame \(k): \(name(clip)) starts at source frame \(index), not 0"
                                : "output frame \(k): \(name(clip)) follows \(name(expected.clip)); the clips between are missing"))
                }
            }
            previous = (clip, index)
        }
        return v
    }

    /// A concat by time: each clip's frames are the ones on screen at each tick of its span, and
    /// each clip lasts its own length. Clip c's first frame says where its time 0 lies on the
    /// output (`clipStart`) and its frame 0's pts (`origin`); every record says until when its
    /// frame is on screen, so each drop and repeat is proven by time: the frame shown at output
    /// time T is on screen at clip time T - clipStart, and a frame skipped lay wholly between two
    /// ticks. At a join the clip left behind must have reached its end: its last frame shown is
    /// its last frame (the count its header gives), or later frames existed (its last record's
    /// `until` is before the clip's end) and fell between ticks. Its length must be the one its
    /// container gives, within a frame.
    static func timeProvenance(_ frames: [ScannedFrame], malformed: Set<Int>) -> [Violation] {
        var v: [Violation] = []
        let header = frames.first?.provenance
        let inputs = header?.inputs ?? []
        func name(_ c: Int) -> String { c >= 0 && c < inputs.count ? "clip \(c + 1) (\(inputs[c].name))" : "clip \(c + 1)" }
        guard let fps = Checks.positiveRate(header?.fps) else {
            return [
                Violation(
                    .provenanceMalformed, frame: 0,
                    "the provenance gives the frame rate \(header?.fps.map { "\"\($0)\"" } ?? "as missing"), not a positive fraction; the concat's times are not checked")
            ]
        }
        let missing = frames.indices.filter { frames[$0].provenance == nil && !malformed.contains($0) }
        if let first = missing.first {
            v.append(Violation(.provenanceMissing, frame: first, "\(missing.count) frame\(missing.count == 1 ? "" : "s") carry no provenance, the first is frame \(first)"))
        }
        let ms = Rational(1, 1000)
        let cut = header?.first ?? 0
        // The clip being read: its number, start, origin, time base, last record and output frame.
        struct Clip { var c: Int; var start: Rational; var origin: Int64; var tb: Rational?; var last: [Int64]; var lastFrame: Int }
        var clip: Clip?
        /// Checks the clip left behind at output frame k (nil: the output's end, which a cap may cut).
        func leave(_ left: Clip, at k: Int, nextStart: Rational?) {
            guard let nextStart, let tb = left.tb else { return }
            let t = frames[k].pts.seconds
            let length = nextStart - left.start
            let shown = left.last[0], listed = left.c < inputs.count ? inputs[left.c].frames : nil
            if let listed, shown + 1 < listed {
                let until = left.last.count > 2 ? tb.multiplied(by: left.last[2] - left.origin) : nil
                if let until, until + ms >= length {
                    v.append(
                        Violation(
                            .droppedSource, frame: k, time: t,
                            "the join into \(name(left.c + 1)) at output frame \(k): \(name(left.c)) ended after \(shown + 1) of its \(listed) frames"))
                }
            }
            if left.c < inputs.count, let text = inputs[left.c].duration, let d = Rational(parsing: text), d.magnitudeAtMost(Rational(1 << 40, 1)),
                let gap = length.subtracting(d), !gap.magnitudeAtMost(fps.inverse + ms)
            {
                v.append(
                    Violation(
                        .droppedSource, frame: k, time: t,
                        "\(name(left.c)) lasts \(Checks.seconds(length)) in the output, but its stream lasts \(Checks.seconds(d))"))
            }
        }
        for (k, frame) in frames.enumerated() {
            guard let p = frame.provenance else { continue }
            let t = frame.pts.seconds
            if p.k != cut + Int64(k) {
                v.append(Violation(.provenanceMissing, frame: k, time: t, "frame \(k) carries the provenance of output frame \(p.k)"))
            }
            guard let c = p.clip, p.src.count == 1, p.src[0].count >= 2 else {
                v.append(Violation(.provenanceMalformed, frame: k, time: t, "frame \(k) does not say which clip and source frame it shows"))
                continue
            }
            let record = p.src[0]
            let tick = fps.inverse * (cut + Int64(k))
            // A cut may start inside any clip, at any of its frames.
            let cutStart = clip == nil && cut > 0
            if clip?.c != c {
                // A clip's first frame: where it starts on the output's clock and its time 0.
                guard let text = p.clipStart, let start = Rational(parsing: text), start.magnitudeAtMost(Rational(1 << 40, 1)), let origin = p.origin,
                    (-Checks.largestPTS...Checks.largestPTS).contains(origin)
                else {
                    v.append(Violation(.provenanceMalformed, frame: k, time: t, "output frame \(k) starts \(name(c)) without saying where its time 0 lies"))
                    clip = nil
                    continue
                }
                let expected = clip.map { $0.c + 1 } ?? (cutStart ? c : 0)
                if c != expected {
                    v.append(
                        Violation(
                            c < expected ? .reorderedSource : .droppedSource, frame: k, time: t,
                            c < expected
                                ? "output frame \(k): \(name(c)) comes back after \(name(expected - 1))"
                                : "output frame \(k): \(name(c)) follows \(expected == 0 ? "nothing" : name(expected - 1)); the clips between are missing"))
                }
                if start > tick + ms || (start + fps.inverse + ms <= tick && !cutStart) {
                    v.append(
                        Violation(
                            .droppedSource, frame: k, time: t,
                            "output frame \(k) at \(Checks.seconds(tick)) starts \(name(c)), whose time 0 is at \(Checks.seconds(start))"))
                }
                if let left = clip { leave(left, at: k, nextStart: start) }
                let tb = c >= 0 && c < inputs.count ? Checks.positiveRate(inputs[c].timeBase) : nil
                clip = Clip(c: c, start: start, origin: origin, tb: tb, last: record, lastFrame: k)
            } else if let current = clip {
                let d = record[0] - current.last[0]
                if d < 0 {
                    v.append(Violation(.reorderedSource, frame: k, time: t, "output frame \(k): \(name(c)) goes back from source frame \(current.last[0]) to \(record[0])"))
                } else if d > 0, current.last.count > 2, (d == 1 && record[1] != current.last[2]) || (d > 1 && record[1] <= current.last[2]) {
                    v.append(
                        Violation(
                            .droppedSource, frame: k, time: t,
                            "output frame \(k): \(name(c)) shows source frame \(record[0]) at pts \(record[1]), but frame \(current.last[0])'s record said frame \(current.last[0] + 1) starts at pts \(current.last[2])"
                        ))
                }
                clip!.last = record; clip!.lastFrame = k
            }
            // The frame is the one on screen at the clip's time of this tick.
            guard let current = clip, let tb = current.tb, let local = tick.subtracting(current.start),
                let chosen = tb.multiplied(by: record[1] - current.origin)
            else { continue }
            let slack = min(tb.multiplied(by: Rational(1, 2)) ?? ms, ms)
            if chosen > local + slack && record[0] != 0 {
                v.append(
                    Violation(
                        .sourceFromTheFuture, frame: k, time: t,
                        "output frame \(k) at \(Checks.seconds(tick)): \(name(c)) shows source frame \(record[0]) of \(Checks.seconds(chosen)), which is not on screen yet"))
            } else if record.count > 2, let until = tb.multiplied(by: record[2] - current.origin), local >= until + slack {
                v.append(
                    Violation(
                        .staleSource, frame: k, time: t,
                        "output frame \(k) at \(Checks.seconds(tick)): \(name(c)) still shows source frame \(record[0]) of \(Checks.seconds(chosen)), on screen only until \(Checks.seconds(until))"))
            }
        }
        return v
    }
}
