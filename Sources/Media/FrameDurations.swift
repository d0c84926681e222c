/// The durations of the frames an encoder holds (x264 delays and reorders them), by pts, so
/// that each packet leaving it gets its own frame's duration. Room for 512 frames is made once
/// (more than x264's deepest lookahead plus B-frames plus frame threads); past that it grows.
struct FrameDurations {
    private var pending: [(pts: Int64, duration: Int64)] = []

    init() { pending.reserveCapacity(512) }

    mutating func sent(pts: Int64, duration: Int64) { pending.append((pts, duration)) }

    /// The duration recorded for `pts`, forgotten once taken; `fallback` for a pts never sent.
    mutating func take(pts: Int64, fallback: Int64) -> Int64 {
        guard let i = pending.firstIndex(where: { $0.pts == pts }) else { return fallback }
        let d = pending[i].duration
        pending.swapAt(i, pending.count - 1)
        pending.removeLast()
        return d
    }
}
