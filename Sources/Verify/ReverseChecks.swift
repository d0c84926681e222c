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
            if boomerang && goingUp && p == last { goingUp = false }
            else if boomerang && !goingUp && p == 0 { goingUp = true }
            else if !boomerang && p == 0 && s == last { continue }
            let expected = goingUp ? p + 1 : p - 1
            if s == expected { continue }
            if s == p {
                v.append(Violation(.duplicatedSource, frame: k, time: t, "output frame \(k) shows source frame \(s) again"))
            } else if (goingUp && s > expected) || (!goingUp && s < expected) {
                let n = abs(s - expected)
                v.append(Violation(.droppedSource, frame: k, time: t,
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
}
