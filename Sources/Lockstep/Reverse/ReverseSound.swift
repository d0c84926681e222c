import Compositor
import Engine
import Media

/// A reversal's sound for the writer's mixer (`WriterThread`): the input's audio, spooled once
/// (`ReverseAudioSpool`), read piece by piece as the timeline places the pictures: output
/// sample m of a backward piece is the source sample as far before the piece's source end as m
/// is after its output start, so every sound stays on its picture, reversed with it. Complete
/// before the writer starts: it never waits. Read by the writer thread alone.
final class ReverseSound: SoundSource {
    /// Output samples [at, at + count) play source samples from `source` (forward) or down
    /// from `source - 1` (backward).
    struct Piece: Equatable {
        var at: Int64
        var count: Int64
        var source: Int64
        var backward: Bool
    }

    private let spool: ReverseAudioSpool
    private let pieces: [Piece]
    /// The piece the last read reached (reads go forward).
    private var cursor = 0

    init(spool: ReverseAudioSpool, pieces: [Piece]) { self.spool = spool; self.pieces = pieces }

    /// The pieces of `timeline` in samples, both ends of each rounded as the clock rounds them,
    /// so that consecutive pieces meet exactly; `keep`: the source forward from the cut's
    /// start, whatever the pictures do.
    static func pieces(_ timeline: ReverseTimeline, timeBase: Rational, keep: Bool) -> [Piece] {
        let rate = Rational(1, Int64(AudioFormat.sampleRate))
        func sample(_ t: Int64) -> Int64 { Rational.rescale(t, from: timeBase, to: rate) }
        if keep { return [Piece(at: 0, count: .max / 2, source: sample(timeline.span.lowerBound), backward: false)] }
        return timeline.pieces.map { p in
            let at = sample(p.at)
            return Piece(at: at, count: sample(p.at + p.length) - at, source: sample(p.backward ? p.end : p.start), backward: p.backward)
        }
    }

    var readyUntil: Int64 { .max }
    func wait(until position: Int64) {}

    func read(from: Int64, count: Int, left l: UnsafeMutablePointer<Float>, right r: UnsafeMutablePointer<Float>) throws {
        l.update(repeating: 0, count: count); r.update(repeating: 0, count: count)
        let end = from + Int64(count)
        if cursor >= pieces.count || pieces[cursor].at > from { cursor = 0 }
        var i = cursor
        while i < pieces.count && pieces[i].at < end {
            let p = pieces[i]
            let lo = max(from, p.at), hi = min(end, p.at + p.count)
            if lo < hi {
                let n = Int(hi - lo), into = Int(lo - from)
                if p.backward {
                    try spool.read(from: p.source - (hi - p.at), count: n, reversed: true, left: l + into, right: r + into)
                } else {
                    try spool.read(from: p.source + (lo - p.at), count: n, reversed: false, left: l + into, right: r + into)
                }
            }
            if p.at + p.count <= end { cursor = i + 1 }
            i += 1
        }
    }
}
