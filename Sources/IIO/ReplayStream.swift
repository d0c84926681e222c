/// One open buffer of the replay server: which channels it sends, which sample comes next, and
/// when each falls due. Pure: the host clock is passed in, so pacing is tested without sockets
/// or sleeping, and its arithmetic saturates instead of trapping (`--speed 1e-300` made a due
/// time of 1e300 ns and trapped converting it).
struct ReplayStream {
    let device: ReplayDevice
    let mask: UInt64
    let layout: [(channel: Int, offset: Int)]
    let sampleSize: Int
    /// Replay speed: 2 = twice as fast; 0 = as fast as the client reads.
    let speed: Double
    /// Host time (ns, monotonic) when the buffer was opened: sample 0 falls due then.
    let startHost: UInt64
    /// Samples the replay holds in all (`ReplayDevice.length(looping:)`).
    let length: Int
    var next = 0

    /// A chunk larger than this is split: bounds what one connection has in flight.
    static let maxChunkBytes = 64 * 1024
    /// Longest silence while a READBUF waits for samples: libiio's client gives up on a read after
    /// about 5 s, so whatever is due goes out at least this often.
    static let maxWait: UInt64 = 1_000_000_000

    init?(device: ReplayDevice, mask: UInt64, speed: Double, loop: Bool, startHost: UInt64) {
        guard let (layout, size) = device.layout(mask: mask) else { return nil }
        self.device = device; self.mask = mask; self.layout = layout; self.sampleSize = size
        self.speed = speed; self.startHost = startHost; self.length = device.length(looping: loop)
    }

    var exhausted: Bool { next >= length }

    /// Host time at which sample k falls due; UInt64.max for "never" (a speed so small, or a
    /// gap so large, that the wait does not fit in 64 bits of nanoseconds).
    func due(_ k: Int) -> UInt64 {
        guard speed > 0 else { return startHost }
        let t = device.timestamp(k), t0 = device.timestamp(0)
        let (d, overflow) = t.subtractingReportingOverflow(t0)
        let offset = (overflow ? Double(t) - Double(t0) : Double(d)) / speed
        guard offset > 0 else { return startHost }
        guard offset < 9.0e18 else { return .max }
        let (sum, o) = startHost.addingReportingOverflow(UInt64(offset))
        return o ? .max : sum
    }

    enum Step: Equatable {
        /// Send this many samples from `next` now.
        case send(Int)
        /// Nothing to send before this host time.
        case wait(until: UInt64)
        /// The replay has no more samples: end the READBUF early.
        case end
    }

    /// What to do for a READBUF still wanting `remaining` samples, at host time `now`, when the
    /// last chunk went out (or the READBUF began) at `since`. A chunk waits for all its samples
    /// to fall due, but not longer than `maxWait`: then what is due goes out.
    func step(remaining: Int, now: UInt64, since: UInt64) -> Step {
        let n = min(remaining, length - next, max(1, Self.maxChunkBytes / sampleSize))
        guard n > 0 else { return .end }
        if speed == 0 { return .send(n) }
        let last = due(next + n - 1)
        if last <= now { return .send(n) }
        let (flushAt, o) = since.addingReportingOverflow(Self.maxWait)
        if o || now < flushAt { return .wait(until: min(last, o ? .max : flushAt)) }
        let ready = dueCount(n, by: now)
        if ready > 0 { return .send(ready) }
        let (later, o2) = now.addingReportingOverflow(Self.maxWait)
        return .wait(until: min(due(next), o2 ? .max : later))
    }

    /// How many of the next `n` samples are due by `now` (due times never decrease with k).
    func dueCount(_ n: Int, by now: UInt64) -> Int {
        var lo = 0, hi = n
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if due(next + mid) <= now { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
