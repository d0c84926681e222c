import Foundation
import SyncCode

/// What reading a coded movie yields: per output frame its time and the code read from it (nil:
/// none readable), and the audio code's blocks. Numbers only, never pictures or samples.
public struct CodedScan: Sendable {
    public var path: String
    /// Per output frame, in presentation order: seconds on the container's clock, and the code.
    public var frames: [(time: Double, code: Int?)]
    public var hasAudio: Bool
    public var audioHits: [AudioCodeHit]
    public init(path: String, frames: [(time: Double, code: Int?)], hasAudio: Bool, audioHits: [AudioCodeHit]) {
        self.path = path; self.frames = frames; self.hasAudio = hasAudio; self.audioHits = audioHits
    }
}

/// The published lip-sync limits, in the sign convention of the report: positive = audio late
/// (after the picture). Each standard states "sound before vision" as + and "sound after
/// vision" as -; turned here: ATSC IS-191 allows audio 15 ms early, 45 ms late; EBU R37 40 ms
/// early, 60 ms late; ITU-R BT.1359 detects 45 ms early, 125 ms late and accepts 90 early, 185 late.
public struct SyncLimit: Sendable, Equatable {
    public var key: String, name: String
    public var earliest: Double, latest: Double
    public static let all = [
        SyncLimit(key: "atscIS191", name: "ATSC IS-191", earliest: -15, latest: 45),
        SyncLimit(key: "ebuR37", name: "EBU R37", earliest: -40, latest: 60),
        SyncLimit(key: "bt1359Detectable", name: "ITU-R BT.1359 detectability", earliest: -45, latest: 125),
        SyncLimit(key: "bt1359Acceptable", name: "ITU-R BT.1359 acceptability", earliest: -90, latest: 185)
    ]
    public func holds(_ ms: Double) -> Bool { ms >= earliest && ms <= latest }
}

public struct CodedReport: Sendable {
    public struct CodeRun: Sendable, Equatable { public var from: Int, to: Int, outputFrame: Int }
    public struct Repeat: Sendable, Equatable { public var code: Int, from: Int, to: Int }
    public struct Reorder: Sendable, Equatable { public var code: Int, outputFrame: Int, after: Int }
    public struct Offset: Sendable, Equatable {
        /// Per audio block: the video time (s, from the first coded frame) and the offset (ms).
        public var blocks: [(time: Double, ms: Double)]
        public var perSecond: [(second: Int, ms: Double)]
        public var mean: Double, min: Double, max: Double, driftMsPerMin: Double
        public static func == (a: Offset, b: Offset) -> Bool {
            a.mean == b.mean && a.min == b.min && a.max == b.max && a.driftMsPerMin == b.driftMsPerMin && a.blocks.count == b.blocks.count
        }
    }
    public struct AudioEvent: Sendable, Equatable { public var time: Double, ms: Double, frame: Int }
    public struct Verdict: Sendable, Equatable {
        public var limit: SyncLimit
        public var passed: Bool
        /// The second (from the first coded frame) holding the offset furthest outside (or
        /// nearest to) the limits, and that offset.
        public var worstSecond: Int?, worstMs: Double?
    }
    public struct Check: Sendable, Equatable { public var name: String, passed: Bool?, message: String }

    public var file: String
    public var frames: Int
    /// Output frames from the first to the last that carry a code.
    public var span: ClosedRange<Int>
    public var codedFrames: Int
    public var firstCode: Int, lastCode: Int
    public var missing: [CodeRun] = []
    public var repeated: [Repeat] = []
    public var reordered: [Reorder] = []
    /// Output frames inside the span whose code could not be read, as runs.
    public var unreadable: [ClosedRange<Int>] = []
    public var outputRate: Double?
    /// Codes advanced per output frame over the span: 1 unless the rate was changed.
    public var codesPerFrame: Double
    public var hasAudio: Bool
    public var offset: Offset?
    public var audioGaps: [AudioEvent] = []
    public var audioRepeats: [AudioEvent] = []
    public var verdicts: [Verdict] = []
    public var checks: [Check] = []
    /// The code read from each output frame (nil: none).
    public var codeAt: [Int?] = []
    public var ok: Bool { checks.allSatisfy { $0.passed != false } }
    public var rateChanged: Bool { abs(codesPerFrame - 1) > 0.002 }
}

public enum CodedAnalysis {
    public struct NoCode: Error, CustomStringConvertible {
        public var path: String
        public var description: String { "\(path): no frame carries a frame code (not a `lockstep testsrc` movie, or its code was destroyed)" }
    }

    public static func run(_ scan: CodedScan) throws -> CodedReport {
        let coded = scan.frames.indices.filter { scan.frames[$0].code != nil }
        guard let first = coded.first, let last = coded.last else { throw NoCode(path: scan.path) }
        let code = { (i: Int) in scan.frames[i].code! }
        var r = CodedReport(
            file: scan.path, frames: scan.frames.count, span: first...last, codedFrames: coded.count,
            firstCode: code(first), lastCode: code(last),
            codesPerFrame: last > first ? Double(code(last) - code(first)) / Double(last - first) : 1,
            hasAudio: scan.hasAudio)
        r.codeAt = scan.frames.map(\.code)
        if last > first { r.outputRate = Double(last - first) / (scan.frames[last].time - scan.frames[first].time) }

        // Walk the coded frames: the highest code so far is the reference; a lower one is
        // reordered, an equal one repeated, a jump of more than one leaves codes missing.
        var highest = code(first), seen = Set([code(first)])
        var previous = first
        for i in coded.dropFirst() {
            let c = code(i)
            if c == highest {
                if let lastRun = r.repeated.last, lastRun.code == c, lastRun.to == previous { r.repeated[r.repeated.count - 1].to = i } else { r.repeated.append(.init(code: c, from: i, to: i)) }
            } else if c < highest {
                r.reordered.append(.init(code: c, outputFrame: i, after: highest))
            } else {
                if c > highest + 1 { r.missing.append(.init(from: highest + 1, to: c - 1, outputFrame: i)) }
                highest = c
            }
            seen.insert(c)
            if i > previous + 1 { r.unreadable.append((previous + 1)...(i - 1)) }
            previous = i
        }
        // A reordered code fills what looked missing: keep only the codes never seen.
        if !r.reordered.isEmpty {
            r.missing = r.missing.flatMap { run -> [CodedReport.CodeRun] in
                var out: [CodedReport.CodeRun] = [], start: Int?
                for c in run.from...run.to {
                    if seen.contains(c) { if let s = start { out.append(.init(from: s, to: c - 1, outputFrame: run.outputFrame)); start = nil } } else if start == nil { start = c }
                }
                if let s = start { out.append(.init(from: s, to: run.to, outputFrame: run.outputFrame)) }
                return out
            }
        }
        analyseAudio(scan, coded: coded, into: &r)
        r.checks = checks(r)
        return r
    }

    /// The time the frame with code c was (or, if it is not there, would have been) shown: its
    /// own time when present; otherwise a line fitted through the nearest codes around it.
    static func videoTimes(_ scan: CodedScan, coded: [Int]) -> (Int) -> Double? {
        // First occurrences in increasing code order (reordered frames left out).
        var codes: [Int] = [], times: [Double] = []
        for i in coded {
            let c = scan.frames[i].code!
            if let l = codes.last, c <= l { continue }
            codes.append(c); times.append(scan.frames[i].time)
        }
        return { c in
            guard let lo = codes.first, let hi = codes.last, c >= lo - 1, c <= hi + 1 else { return nil }
            var a = 0, b = codes.count
            while a < b { let m = (a + b) / 2; if codes[m] < c { a = m + 1 } else { b = m } }
            if a < codes.count && codes[a] == c { return times[a] }
            let from = max(0, a - 4), to = min(codes.count, a + 4)
            guard to - from >= 2 else { return nil }
            let fit = LineFit(x: codes[from..<to].map(Double.init), y: Array(times[from..<to]))
            return fit.at(Double(c))
        }
    }

    static func analyseAudio(_ scan: CodedScan, coded: [Int], into r: inout CodedReport) {
        let hits = scan.audioHits.sorted { $0.time < $1.time }
        guard !hits.isEmpty else { return }
        let tv = videoTimes(scan, coded: coded)
        let origin = scan.frames[coded[0]].time
        var blocks: [(time: Double, ms: Double)] = []
        for h in hits {
            guard let v = tv(h.frame) else { continue }
            blocks.append((time: v - origin, ms: (h.time - v) * 1000))
        }
        // Audio continuity: each block should follow the previous by its frames' worth of time.
        var periods: [Double] = []
        for (a, b) in zip(hits, hits.dropFirst()) where b.frame > a.frame { periods.append((b.time - a.time) / Double(b.frame - a.frame)) }
        periods.sort()
        if !periods.isEmpty {
            let period = periods[periods.count / 2]
            // Each block is checked against the furthest block so far: a repeat is named once,
            // and what follows it is measured against the run it interrupted.
            var a = hits[0]
            for b in hits.dropFirst() {
                let d = (b.time - a.time) - Double(b.frame - a.frame) * period
                if b.frame <= a.frame {
                    r.audioRepeats.append(.init(time: b.time, ms: d * 1000, frame: b.frame))
                    continue
                }
                if abs(d) > max(0.002, 0.01 * (b.time - a.time)) { r.audioGaps.append(.init(time: b.time, ms: d * 1000, frame: b.frame)) }
                a = b
            }
        }
        guard !blocks.isEmpty else { return }
        let ms = blocks.map(\.ms)
        var bySecond: [Int: [Double]] = [:]
        for b in blocks { bySecond[Int(b.time.rounded(.down)), default: []].append(b.ms) }
        let perSecond = bySecond.keys.sorted().map { s in (second: s, ms: bySecond[s]!.reduce(0, +) / Double(bySecond[s]!.count)) }
        // Rounded to 1e-6 ms/min (a fit of equal offsets gives -1e-13, printed "-0.00").
        let drift = blocks.count >= 2 ? (LineFit(x: blocks.map(\.time), y: ms).slope * 60 * 1e6).rounded() / 1e6 + 0 : 0
        r.offset = .init(
            blocks: blocks, perSecond: perSecond, mean: ms.reduce(0, +) / Double(ms.count),
            min: ms.min()!, max: ms.max()!, driftMsPerMin: drift)
        r.verdicts = SyncLimit.all.map { limit in
            // The block furthest past a limit (or, when all hold, the closest to one).
            let worst = blocks.max { margin($0.ms, limit) < margin($1.ms, limit) }!
            return .init(limit: limit, passed: ms.allSatisfy(limit.holds), worstSecond: Int(worst.time.rounded(.down)), worstMs: worst.ms)
        }
    }

    /// How far past the nearer limit an offset is (negative inside).
    static func margin(_ ms: Double, _ l: SyncLimit) -> Double { max(ms - l.latest, l.earliest - ms) }

    static func checks(_ r: CodedReport) -> [CodedReport.Check] {
        func list<T>(_ xs: [T], _ f: (T) -> String) -> String { xs.prefix(20).map(f).joined(separator: ", ") + (xs.count > 20 ? ", ... (\(xs.count) in all)" : "") }
        var c: [CodedReport.Check] = []
        c.append(
            .init(
                name: "no missing frames", passed: r.missing.isEmpty,
                message: r.missing.isEmpty
                    ? "every code from \(r.firstCode) to \(r.lastCode) is there"
                    : "missing codes " + list(r.missing) { ($0.from == $0.to ? "\($0.from)" : "\($0.from)-\($0.to)") + " (before output frame \($0.outputFrame))" }))
        c.append(
            .init(
                name: "no repeated frames", passed: r.repeated.isEmpty,
                message: r.repeated.isEmpty
                    ? "no code shown twice" : "repeated " + list(r.repeated) { "code \($0.code) again at output frame" + ($0.from == $0.to ? " \($0.from)" : "s \($0.from)-\($0.to)") }))
        c.append(
            .init(
                name: "no reordered frames", passed: r.reordered.isEmpty,
                message: r.reordered.isEmpty ? "codes in order" : "out of order " + list(r.reordered) { "code \($0.code) at output frame \($0.outputFrame) after \($0.after)" }))
        c.append(
            .init(
                name: "every frame in the coded span readable", passed: r.unreadable.isEmpty,
                message: r.unreadable.isEmpty
                    ? "output frames \(r.span.lowerBound)-\(r.span.upperBound) all carry a code"
                    : "no code in output frames " + list(r.unreadable) { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }))
        guard r.hasAudio else {
            c.append(.init(name: "audio code", passed: nil, message: "no audio stream: audio checks skipped"))
            return c
        }
        guard let o = r.offset else {
            c.append(.init(name: "audio code", passed: false, message: "the audio carries no readable code"))
            return c
        }
        // Rounded before printing: never "-0.00".
        func r2(_ x: Double) -> Double { (x * 100).rounded() / 100 + 0 }
        c.append(
            .init(
                name: "audio code", passed: true,
                message: String(format: "%d blocks read; offset mean %.2f ms, min %.2f, max %.2f, drift %.2f ms/min", o.blocks.count, r2(o.mean), r2(o.min), r2(o.max), r2(o.driftMsPerMin))))
        let continuous = r.audioGaps.isEmpty && r.audioRepeats.isEmpty
        c.append(
            .init(
                name: "no audio gaps or repeats", passed: continuous,
                message: continuous
                    ? "the audio code runs on without a break"
                    : list(r.audioGaps) { String(format: "%@ of %.1f ms at %.3f s (frame %d)", $0.ms > 0 ? "gap" : "cut", abs($0.ms), $0.time, $0.frame) }
                        + (r.audioGaps.isEmpty || r.audioRepeats.isEmpty ? "" : "; ")
                        + list(r.audioRepeats) { String(format: "audio of frame %d again at %.3f s", $0.frame, $0.time) }))
        for v in r.verdicts {
            let range = String(format: "%+.0f/%+.0f ms", v.limit.earliest, v.limit.latest)
            let worst = v.worstMs.map { String(format: "%+.2f ms in second %d", ($0 * 100).rounded() / 100 + 0, v.worstSecond ?? 0) } ?? "-"
            c.append(
                .init(
                    name: v.limit.name, passed: v.passed,
                    message: (v.passed ? "within \(range); closest to a limit: " : "outside \(range) (positive: audio late); worst: ") + worst))
        }
        return c
    }
}

/// Least-squares line y = a + b x.
struct LineFit {
    var intercept = 0.0, slope = 0.0
    init(x: [Double], y: [Double]) {
        let n = Double(x.count)
        guard n >= 2 else { intercept = y.first ?? 0; return }
        let mx = x.reduce(0, +) / n, my = y.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for i in x.indices { sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) * (x[i] - mx) }
        slope = sxx > 0 ? sxy / sxx : 0
        intercept = my - slope * mx
    }
    func at(_ x: Double) -> Double { intercept + slope * x }
}
