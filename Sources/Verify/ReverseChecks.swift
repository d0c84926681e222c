import Compositor

/// The provenance check of `lockstep reverse` outputs (header sync "reverse" or "boomerang"),
/// in place of the index/time-sync one: written from what the output must show, not from how
/// it was made. Reverse: source frames N-1 down to 0, each once, then again from N-1 for every
/// further loop. Boomerang: 0 up to N-1, back down to 0, then (further loops) up from 1 again;
/// it turns only at 0 and N-1 and ends at 0. N is one more than the highest source frame shown.
extension Checks {
    static let reverseModes: Set<String> = ["reverse", "boomerang"]

    static func reverseProvenance(_ frames: [ScannedFrame], boomerang: Bool) -> [Violation] {
        var v: [Violation] = []
        let shown: [Int64?] = frames.map { $0.provenance?.src.first?.first }
        let missing = frames.indices.filter { shown[$0] == nil }
        if let first = missing.first {
            v.append(Violation(.provenanceMissing, frame: first, "\(missing.count) frame\(missing.count == 1 ? "" : "s") carry no source frame, the first is frame \(first)"))
        }
        for (k, f) in frames.enumerated() where f.provenance.map({ $0.k != Int64(k) }) ?? false {
            v.append(Violation(.provenanceMissing, frame: k, time: f.pts.seconds, "frame \(k) carries the provenance of output frame \(f.provenance!.k)"))
        }
        guard let last = shown.compactMap({ $0 }).max() else { return v }
        var goingUp = boomerang
        var previous: Int64?
        for (k, s) in shown.enumerated() {
            guard let s else { previous = nil; continue }
            let t = frames[k].pts.seconds
            guard let p = previous else {
                if k == 0 && s != (boomerang ? 0 : last) {
                    v.append(Violation(.droppedSource, frame: 0, time: t, "output frame 0 shows source frame \(s), not \(boomerang ? 0 : last)"))
                }
                previous = s
                continue
            }
            previous = s
            // Where the movie turns (boomerang) or starts a new loop (reverse).
            if boomerang && goingUp && p == last { goingUp = false } else if boomerang && !goingUp && p == 0 { goingUp = true } else if !boomerang && p == 0 && s == last { continue }
            let expected = goingUp ? p + 1 : p - 1
            if s == expected { continue }
            if s == p {
                v.append(Violation(.duplicatedSource, frame: k, time: t, "output frame \(k) shows source frame \(s) again"))
            } else if (goingUp && s > expected) || (!goingUp && s < expected) {
                let n = abs(s - expected)
                v.append(
                    Violation(
                        .droppedSource, frame: k, time: t,
                        "output frame \(k) jumps from source frame \(p) to \(s): \(n == 1 ? "source frame \(expected) was" : "\(n) source frames were") dropped"))
            } else {
                v.append(Violation(.reorderedSource, frame: k, time: t, "output frame \(k) goes from source frame \(p) to \(s), against the direction of play"))
                if boomerang { goingUp = s > p }
            }
        }
        if let end = shown.last ?? nil, end != 0 {
            v.append(Violation(.droppedSource, frame: frames.count - 1, "the output ends at source frame \(end), not 0"))
        }
        return v
    }

    /// The timing check of a reversal, in place of the constant-step one: each output frame
    /// lasts as long as the source frame it shows (the step to the next output frame against
    /// pts(s + 1) - pts(s) in the input's time base, from the provenance). The highest source
    /// frame shown has no successor to measure, so the frame showing it is not checked. Both
    /// sides are stored times: the output's rounded to its time base (at most 1 ms), the
    /// source's within a tick of its rate (what `ReverseJob` accepts as constant). The stream's
    /// duration is not checked: a variable-rate reversal's packets carry no duration, so the
    /// muxer ends its stream early (Fixtures/reverse/vfr.mp4 reversed: 2.306 s for 2.333 s).
    static func reverseTiming(_ scan: Scan, sourceTimeBase: Rational) -> [Violation] {
        var v = timing(scan, step: nil)  // the first timestamp
        let f = scan.frames
        var sourcePTS: [Int64: Int64] = [:]
        for frame in f { if let s = frame.provenance?.src.first, s.count == 2 { sourcePTS[s[0]] = s[1] } }
        let outputSlack = min(f[0].pts.timeBase.num > 0 ? f[0].pts.timeBase : Rational(1, 1000), Rational(1, 1000))
        guard let slack = outputSlack.adding(sourceTimeBase.multiplied(by: 2) ?? sourceTimeBase) else { return v }
        for k in f.indices.dropFirst() {
            guard let d = difference(f[k - 1].pts, f[k].pts) else { continue }
            if let order = orderViolation(f, k, d) { v.append(order); continue }
            guard let s = f[k - 1].provenance?.src.first?.first, let a = sourcePTS[s], let b = sourcePTS[s + 1],
                let own = sourceTimeBase.multiplied(by: b - a), let off = d.subtracting(own)
            else { continue }
            if off > slack || Rational(0, 1).subtracting(off).map({ $0 > slack }) ?? false {
                v.append(
                    Violation(
                        .irregularStep, frame: k - 1, time: f[k - 1].pts.seconds,
                        String(format: "output frame %d lasts %.1f ms, but its source frame %lld lasts %.1f ms", k - 1, d.seconds * 1000, s, own.seconds * 1000)))
            }
        }
        return v
    }
}
