import Compositor

/// The provenance check of `lockstep reverse` outputs (header sync "reverse" or "boomerang"),
/// in place of the index/time-sync one: written from what the output must show, not from how
/// it was made. Reverse: source frames N-1 down to 0, each once, then again from N-1 for every
/// further loop. Boomerang: 0 up to N-1, back down to 0, then (further loops) up from 1 again;
/// it turns only at 0 and N-1 and ends at 0. N is one more than the highest source frame shown;
/// a cut of the source (header "trim") ends at the lowest shown instead of 0.
///
/// A reversal on the frame loop keeps its source's timeline (header "timing":"time"): output
/// frame k at k/fps shows the source frame on screen at the source time the reversal plays
/// then, so a frame may repeat (it lasts longer than a frame of the output) or be passed over
/// (it lasted less). Each record says when its frame is on screen ([index, pts, until]), so
/// the order is judged by the direction alone and every frame by its time: reverse plays the
/// span [F, T) (the cut, or the whole of the source's "duration") backwards, loop after loop;
/// a boomerang plays it forward, then [F, start of the top frame) backwards, then forward from
/// the end of the bottom frame, and so on. "timing":"index" (`--keep-frames`): every frame once
/// at the output's rate. No "timing" (older files): each frame for its source frame's duration.
extension Checks {
    static let reverseModes: Set<String> = ["reverse", "boomerang"]

    static func reverseProvenance(_ frames: [ScannedFrame], boomerang: Bool) -> [Violation] {
        var v: [Violation] = []
        let header = frames.first?.provenance
        let byTime = header?.timing == SyncMode.time.rawValue
        let shown: [Int64?] = frames.map { $0.provenance?.src.first?.first }
        let missing = frames.indices.filter { shown[$0] == nil }
        if let first = missing.first {
            v.append(Violation(.provenanceMissing, frame: first, "\(missing.count) frame\(missing.count == 1 ? "" : "s") carry no source frame, the first is frame \(first)"))
        }
        for (k, f) in frames.enumerated() where f.provenance.map({ $0.k != Int64(k) }) ?? false {
            v.append(Violation(.provenanceMissing, frame: k, time: f.pts.seconds, "frame \(k) carries the provenance of output frame \(f.provenance!.k)"))
        }
        guard let last = shown.compactMap({ $0 }).max(), let lowest = shown.compactMap({ $0 }).min() else { return v }
        // A cut of the source reverses only part of it: its lowest frame is where it turns.
        let bottom = header?.inputs?.first?.trim != nil ? lowest : 0
        var goingUp = boomerang
        var previous: Int64?
        for (k, s) in shown.enumerated() {
            guard let s else { previous = nil; continue }
            let t = frames[k].pts.seconds
            guard let p = previous else {
                if k == 0 && !byTime && s != (boomerang ? bottom : last) {
                    v.append(Violation(.droppedSource, frame: 0, time: t, "output frame 0 shows source frame \(s), not \(boomerang ? bottom : last)"))
                }
                previous = s
                continue
            }
            previous = s
            if byTime {
                // Repeats and frames passed over are the times' to judge (below); the direction is judged here.
                if s == p { continue }
                if boomerang {
                    if goingUp == (s > p) { continue }
                    if goingUp ? p == last : p == bottom {
                        goingUp.toggle()
                        continue
                    }
                } else if s < p || p == bottom {
                    continue  // down, or a new loop from the top
                }
                v.append(Violation(.reorderedSource, frame: k, time: t, "output frame \(k) goes from source frame \(p) to \(s), against the direction of play"))
                if boomerang { goingUp = s > p }
                continue
            }
            // Where the movie turns (boomerang) or starts a new loop (reverse).
            if boomerang && goingUp && p == last { goingUp = false } else if boomerang && !goingUp && p == bottom { goingUp = true } else if !boomerang && p == bottom && s == last { continue }
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
        if !byTime, let end = shown.last ?? nil, end != bottom {
            v.append(Violation(.droppedSource, frame: frames.count - 1, "the output ends at source frame \(end), not \(bottom)"))
        }
        if byTime { v += reverseTimes(frames, boomerang: boomerang) }
        return v
    }

    /// A reversal that keeps its source's timeline: each output frame shows the source frame on
    /// screen at the source time played then (to half a time-base unit, at most 1 ms).
    static func reverseTimes(_ frames: [ScannedFrame], boomerang: Bool) -> [Violation] {
        let header = frames.first?.provenance
        let input = header?.inputs?.first
        guard let fps = positiveRate(header?.fps), let tb = positiveRate(input?.timeBase), let origin = input?.origin,
            let duration = input?.duration.flatMap({ Rational(parsing: $0) }), duration > Rational(0, 1)
        else {
            return [Violation(.provenanceMalformed, frame: 0, "the reversal's header gives no frame rate, time base, origin or duration; its times are not checked")]
        }
        var span = (start: Rational(0, 1), end: duration)
        if let trim = input?.trim {
            let ends = trim.split(separator: ":", omittingEmptySubsequences: false)
            guard ends.count == 2, let a = Rational(parsing: String(ends[0])), let b = Rational(parsing: String(ends[1])), a < b,
                a.magnitudeAtMost(Rational(1 << 40, 1)), b.magnitudeAtMost(Rational(1 << 40, 1))
            else { return [Violation(.provenanceMalformed, frame: 0, "the reversal's header gives the cut \"\(trim)\", not two times; its times are not checked")] }
            span = (a, b)
        }
        // Each record's source times, from the source's first frame.
        func times(_ k: Int) -> (index: Int64, start: Rational, end: Rational)? {
            guard let r = frames[k].provenance?.src.first, r.count == 3, let a = tb.multiplied(by: r[1] - origin), let b = tb.multiplied(by: r[2] - origin) else { return nil }
            return (r[0], a, b)
        }
        let records = frames.indices.compactMap(times)
        let length = span.end - span.start
        // A boomerang turns at the top frame's start and goes up again from the bottom frame's
        // end. A frame shorter than an output frame may not be shown at all: the top frame's
        // start is also the end of the one below it (its record's `until`), the bottom frame's
        // end the start of the one above it.
        let top = max(
            records.map(\.start).max() ?? span.start, records.map(\.end).filter { $0 < span.end }.max() ?? span.start, span.start)
        let bottom = min(
            records.map(\.end).min() ?? span.end, records.map(\.start).filter { $0 > span.start }.min() ?? span.end, span.end)
        let down = top - span.start, up = span.end - bottom
        let slack = min(tb * Rational(1, 2), Rational(1, 1000))
        var v: [Violation] = []
        for k in frames.indices {
            guard let r = times(k) else { continue }
            let tick = fps.inverse * Int64(k)
            // The source time played at `tick`, and which way.
            let backward: Bool, u: Rational, piece: (start: Rational, end: Rational)
            if !boomerang {
                let loop = TimeCutFloor.floor(tick * length.inverse)
                (backward, u, piece) = (true, span.end - (tick - length * loop), span)
            } else if tick < length {
                (backward, u, piece) = (false, span.start + tick, span)
            } else {
                let cycle = down + up
                guard cycle > Rational(0, 1) else { continue }
                let rest = tick - length
                let into = rest - cycle * TimeCutFloor.floor(rest * cycle.inverse)
                if into < down {
                    (backward, u, piece) = (true, top - into, (span.start, top))
                } else {
                    (backward, u, piece) = (false, bottom + into - down, (bottom, span.end))
                }
            }
            let a = max(r.start, piece.start), b = min(r.end, piece.end)
            // As the frame loop chooses: the frame whose start is due by the tick (to `slack`,
            // half a time-base unit: stored times are rounded) and the next one's not yet.
            let early = backward ? b < u - slack : a > u + slack
            let late = backward ? a >= u - slack : b <= u + slack
            let at = String(format: "%.3f s", tick.seconds), played = String(format: "%.3f s", u.seconds)
            let on = String(format: "%.3f-%.3f s", r.start.seconds, r.end.seconds)
            if early {
                v.append(
                    Violation(
                        .sourceFromTheFuture, frame: k, time: tick.seconds,
                        "output frame \(k) at \(at) plays source time \(played), but shows source frame \(r.index), on screen over \(on): not yet"))
            } else if late {
                v.append(
                    Violation(
                        .staleSource, frame: k, time: tick.seconds,
                        "output frame \(k) at \(at) plays source time \(played), but still shows source frame \(r.index), on screen over \(on)"))
            }
        }
        return v
    }
}

extension Checks {
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

/// floor of a rational as a whole number.
enum TimeCutFloor {
    static func floor(_ r: Rational) -> Int64 { r.num >= 0 ? r.num / r.den : -((-r.num + r.den - 1) / r.den) }
}
