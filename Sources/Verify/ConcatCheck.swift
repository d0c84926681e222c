import Compositor

/// The provenance check of a `lockstep concat` output (header "sync":"concat"): every frame
/// names its clip and the one source frame it shows. Clips appear in order, none skipped; each
/// clip starts at its source frame 0 and advances one source frame per output frame (none lost,
/// repeated or reordered); and at each join the clip left behind ended at its last frame (the
/// count its header entry gives), so the join lost nothing. The last clip shown may stop early:
/// that is the cap (`--max-duration`), reported nowhere as a fault.
public enum ConcatCheck {
    public static let sync = "concat"

    public static func provenance(_ frames: [ScannedFrame], malformed: Set<Int> = []) -> [Violation] {
        var v: [Violation] = []
        let inputs = frames.first?.provenance?.inputs ?? []
        func name(_ c: Int) -> String { c >= 0 && c < inputs.count ? "clip \(c + 1) (\(inputs[c].name))" : "clip \(c + 1)" }
        let missing = frames.indices.filter { frames[$0].provenance == nil && !malformed.contains($0) }
        if let first = missing.first {
            v.append(Violation(.provenanceMissing, frame: first, "\(missing.count) frame\(missing.count == 1 ? "" : "s") carry no provenance, the first is frame \(first)"))
        }
        var previous: (clip: Int, index: Int64)?
        for (k, frame) in frames.enumerated() {
            guard let p = frame.provenance else { previous = nil; continue }
            let t = frame.pts.seconds
            if p.k != Int64(k) {
                v.append(Violation(.provenanceMissing, frame: k, time: t, "frame \(k) carries the provenance of output frame \(p.k)"))
            }
            guard let clip = p.clip, p.src.count == 1 else {
                v.append(Violation(.provenanceMalformed, frame: k, time: t, "frame \(k) does not say which clip and source frame it shows"))
                previous = nil
                continue
            }
            let index = p.src[0][0]
            let expected: (clip: Int, index: Int64)? = previous.map { ($0.clip, $0.index + 1) } ?? (k == 0 ? (0, 0) : nil)
            if let expected, (clip, index) != expected {
                if clip == expected.clip {
                    let d = index - expected.index
                    if d < 0 {
                        v.append(Violation(d == -1 ? .duplicatedSource : .reorderedSource, frame: k, time: t, d == -1
                            ? "output frame \(k): \(name(clip)) shows source frame \(index) again"
                            : "output frame \(k): \(name(clip)) goes back from source frame \(expected.index - 1) to \(index)"))
                    } else {
                        v.append(Violation(.droppedSource, frame: k, time: t,
                                           "output frame \(k): \(name(clip)) jumps from source frame \(expected.index - 1) to \(index): \(d == 1 ? "source frame \(expected.index) was" : "\(d) source frames were") dropped"))
                    }
                } else if clip == expected.clip + 1 && index == 0 {
                    // A join: the clip left behind must have shown its last frame.
                    let shown = expected.index, listed = expected.clip < inputs.count ? inputs[expected.clip].frames : nil
                    if let listed, shown != listed {
                        v.append(Violation(.droppedSource, frame: k, time: t,
                                           "the join into \(name(clip)) at output frame \(k): \(name(expected.clip)) ended after \(shown) of its \(listed) frames"))
                    }
                } else if clip < expected.clip {
                    v.append(Violation(.reorderedSource, frame: k, time: t, "output frame \(k): \(name(clip)) comes back after \(name(expected.clip))"))
                } else {
                    v.append(Violation(.droppedSource, frame: k, time: t, clip == expected.clip + 1
                        ? "output frame \(k): \(name(clip)) starts at source frame \(index), not 0"
                        : "output frame \(k): \(name(clip)) follows \(name(expected.clip)); the clips between are missing"))
                }
            }
            previous = (clip, index)
        }
        return v
    }
}
