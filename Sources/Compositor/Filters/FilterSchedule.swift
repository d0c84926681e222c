/// `--filter-at T=CHAIN[;T=CHAIN...]`: from the first output frame whose time is at or after T
/// (seconds of output time, exact), CHAIN is in force; before the first entry, the `--filter`
/// chain (or none).
public struct FilterSchedule: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public var time: Rational
        /// As written: "2.5=mono".
        public var text: String
        public var chain: FilterChainSpec
    }
    public var initial: FilterChainSpec
    public var entries: [Entry]

    public init(initial: FilterChainSpec, entries: [Entry] = []) { self.initial = initial; self.entries = entries }

    public init(initial: FilterChainSpec, parsing text: String) throws {
        self.initial = initial
        entries = []
        let items = text.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        for (i, item) in items.enumerated() {
            let n = i + 1
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 else { throw FilterError("--filter-at entry \(n) (\"\(item)\"): expected T=CHAIN, T in seconds of output time.") }
            guard let t = Rational(parsing: parts[0]), t.num >= 0 else {
                throw FilterError("--filter-at entry \(n) (\"\(item)\"): \"\(parts[0])\" is not a time in seconds (0 or more).")
            }
            let chain: FilterChainSpec
            do { chain = try FilterChainSpec(parsing: parts[1]) } catch let e as FilterError {
                throw FilterError("--filter-at entry \(n) (\"\(item)\"): \(e.description)")
            }
            if let last = entries.last, !(last.time < t) {
                throw FilterError("--filter-at entry \(n) (\"\(item)\"): \(parts[0]) s is not after entry \(n - 1)'s \(last.text.split(separator: "=")[0]) s; times must increase.")
            }
            entries.append(Entry(time: t, text: item, chain: chain))
        }
    }

    /// Every chain the schedule can put in force, the initial one first.
    public var chains: [FilterChainSpec] { [initial] + entries.map(\.chain) }

    /// The entry in force at output time `t` (nil: the initial chain).
    public func entryIndex(at t: Rational) -> Int? {
        entries.lastIndex { !(t < $0.time) }
    }

    /// The first output frame at or after `t`: ceil(t * fps).
    static func firstFrame(at t: Rational, frameRate: Rational) -> Int64 {
        let x = t * frameRate
        return x.num >= 0 ? (x.num + x.den - 1) / x.den : x.num / x.den
    }

    /// Throws for the first entry that is never in force: one whose T is after the last frame's
    /// time, or one whose first frame is also the next entry's (two switches within one frame
    /// interval: only the later can be shown).
    public func check(frames: Int64, frameRate: Rational) throws {
        guard let lastEntry = entries.last else { return }
        for i in entries.indices.dropLast() {
            let k = Self.firstFrame(at: entries[i].time, frameRate: frameRate)
            if k == Self.firstFrame(at: entries[i + 1].time, frameRate: frameRate) && k < frames {
                throw FilterError(
                    "--filter-at entry \(i + 1) (\"\(entries[i].text)\") is never in force: entry \(i + 2) (\"\(entries[i + 1].text)\") "
                        + "starts at the same output frame, \(k) (at \(frameRate) fps).")
            }
        }
        let lastTime = frameRate.inverse * max(0, frames - 1)
        guard lastTime < lastEntry.time else { return }
        let i = entries.firstIndex { lastTime < $0.time }!
        throw FilterError(
            "--filter-at entry \(i + 1) (\"\(entries[i].text)\"): no output frame is at or after \(entries[i].text.split(separator: "=")[0]) s; "
                + "the output has \(frames) frame\(frames == 1 ? "" : "s"), the last at \(Self.seconds(lastTime)) s.")
    }

    static func seconds(_ r: Rational) -> String {
        let ms = (Double(r.num) / Double(r.den) * 1000).rounded() / 1000
        return ms == ms.rounded() ? String(Int64(ms)) : String(ms)
    }
}

/// Which chain renders each output frame, with AVCamFilter's swipe discipline: every chain the
/// schedule names is made and prepared before the first frame (so a switch allocates nothing and
/// never waits), the outgoing chain is reset at the switch, the incoming one renders that very
/// frame. Chains written the same way share one renderer.
public final class FilterSwitcher {
    public let schedule: FilterSchedule
    private let chains: [FilterChain]  // distinct chains
    private let chainOfEntry: [Int]  // per schedule position (0: initial), into `chains`
    private var current: Int?  // position in force
    public private(set) var switches: [(frame: Int64, text: String)] = []

    public init(
        schedule: FilterSchedule, format: FilterFormat, retainedBufferHint: Int,
        loadLUT: (String) throws -> CubeLUT
    ) throws {
        self.schedule = schedule
        var distinct: [String: Int] = [:], chains: [FilterChain] = [], map: [Int] = []
        for spec in schedule.chains {
            if let i = distinct[spec.text] { map.append(i); continue }
            let c = try FilterFactory.chain(spec, loadLUT: loadLUT)
            c.prepare(format: format, retainedBufferHint: retainedBufferHint)
            distinct[spec.text] = chains.count
            map.append(chains.count)
            chains.append(c)
        }
        self.chains = chains; chainOfEntry = map
        switches.reserveCapacity(schedule.entries.count + 1)
    }

    /// The chain for output frame `index` at output time `time`; at a change the outgoing
    /// chain is reset first.
    public func chain(forFrame index: Int64, at time: Rational) -> FilterChain {
        let position = schedule.entryIndex(at: time).map { $0 + 1 } ?? 0
        if position != current {
            if let current, chainOfEntry[current] != chainOfEntry[position] { chains[chainOfEntry[current]].reset() }
            current = position
            switches.append((index, chains[chainOfEntry[position]].name))
        }
        return chains[chainOfEntry[position]]
    }
}
