import Foundation
import Compositor

/// The checks `lockstep verify` runs on a scan. Each returns violations naming the output frame
/// and time; none reads a file.
public enum Checks {
    /// Thresholds, with their reasons.
    public static let audioTolerance = 0.001         // 1 ms: Lockstep cuts audio to the sample
    public static let blackMean = 20.0, blackDeviation = 4.0   // video-range black is 16
    public static let stillDifference = 0.1          // mean absolute luma difference of a repeated picture
    public static let silence = -60.0                // dBFS

    public static func run(_ scan: Scan) -> VerifyReport {
        let header = scan.frames.first?.provenance
        var v: [Violation] = []
        guard !scan.frames.isEmpty else {
            return VerifyReport(file: scan.path, frames: 0, frameStep: nil, provenance: false, sync: nil, inputs: nil, audio: scan.audio != nil,
                                violations: [Violation(.noFrames, "the file has no video frames")])
        }
        let step = commonStep(scan.frames)
        v += timing(scan, step: step)
        let hasProvenance = scan.frames.contains { $0.provenance != nil }
        if hasProvenance { v += provenance(scan.frames) }
        v += pictures(scan.frames, provenance: hasProvenance)
        v += audio(scan, step: step, header: header)
        return VerifyReport(file: scan.path, frames: scan.frames.count, frameStep: step?.seconds, provenance: hasProvenance,
                            sync: header?.sync, inputs: header?.inputs?.map(\.name), audio: scan.audio != nil, violations: v)
    }

    static func seconds(_ t: Rational) -> String { String(format: "%.3f s", t.seconds) }

    /// The most common step between consecutive timestamps.
    static func commonStep(_ frames: [ScannedFrame]) -> Rational? {
        var counts: [Rational: Int] = [:]
        for k in frames.indices.dropFirst() { counts[frames[k].pts.rational - frames[k - 1].pts.rational, default: 0] += 1 }
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
    }

    // MARK: timing

    static func timing(_ scan: Scan, step: Rational?) -> [Violation] {
        var v: [Violation] = []
        let f = scan.frames
        let first = f[0].pts.rational
        if first != Rational(0, 1) { v.append(Violation(.firstTimestamp, frame: 0, time: first.seconds, "the first frame is at \(seconds(first)), not 0")) }
        guard let step, step > Rational(0, 1) else { return v }
        // A stored time is the true one rounded to the time base (Matroska: 1 ms).
        let slack = min(f[0].pts.timeBase, Rational(1, 1000))
        for k in f.indices.dropFirst() {
            let d = f[k].pts.rational - f[k - 1].pts.rational
            let t = f[k].pts.rational
            if d == Rational(0, 1) {
                v.append(Violation(.repeatedTimestamp, frame: k, time: t.seconds, "frame \(k) repeats the timestamp of frame \(k - 1) (\(seconds(t)))"))
            } else if d < Rational(0, 1) {
                v.append(Violation(.reorderedTimestamp, frame: k, time: t.seconds, "frame \(k) at \(seconds(t)) comes before frame \(k - 1) at \(seconds(f[k - 1].pts.rational))"))
            } else if d > step + step * Rational(1, 2) {
                let missing = Int((d.seconds / step.seconds).rounded()) - 1
                v.append(Violation(.missingFrames, frame: k, time: t.seconds,
                                   "\(missing) frame\(missing == 1 ? "" : "s") missing before frame \(k): it comes \(String(format: "%.1f", d.seconds * 1000)) ms after frame \(k - 1), the step is \(String(format: "%.1f", step.seconds * 1000)) ms"))
            } else if d > step + slack || d + slack < step {
                v.append(Violation(.irregularStep, frame: k, time: t.seconds,
                                   "frame \(k) comes \(String(format: "%.1f", d.seconds * 1000)) ms after frame \(k - 1); the step is \(String(format: "%.1f", step.seconds * 1000)) ms"))
            }
        }
        if let duration = scan.videoDuration {
            let expected = Double(f.count) * step.seconds
            if abs(duration - expected) > step.seconds * 0.5 {
                v.append(Violation(.countVersusDuration, time: duration,
                                   String(format: "%d frames of %.1f ms make %.3f s, but the video stream lasts %.3f s", f.count, step.seconds * 1000, expected, duration)))
            }
        }
        return v
    }

    // MARK: provenance

    static func provenance(_ frames: [ScannedFrame]) -> [Violation] {
        var v: [Violation] = []
        let header = frames[0].provenance
        let names = header?.inputs?.map(\.name) ?? []
        func name(_ i: Int) -> String { i < names.count ? "input \(i + 1) (\(names[i]))" : "input \(i + 1)" }
        let missing = frames.indices.filter { frames[$0].provenance == nil }
        if let first = missing.first {
            v.append(Violation(.provenanceMissing, frame: first, "\(missing.count) frame\(missing.count == 1 ? "" : "s") carry no provenance, the first is frame \(first)"))
        }
        let timeBases: [Rational] = header?.inputs?.map { Rational(parsing: $0.timeBase) ?? Rational(1, 1) } ?? []
        let fps = header?.fps.flatMap { Rational(parsing: $0) }
        let timeSync = header?.sync == "time"
        var previous: [Int64]?
        var origins: [Int64]?
        // Source steps (time sync): per input, the smallest positive pts step per source frame seen.
        var sourceStep: [Rational?] = Array(repeating: nil, count: timeBases.count)
        if timeSync {
            for i in timeBases.indices {
                var best: Rational?
                for k in frames.indices.dropFirst() {
                    guard let a = frames[k - 1].provenance?.src, let b = frames[k].provenance?.src, i < a.count, i < b.count,
                          b[i][0] == a[i][0] + 1 else { continue }
                    let s = timeBases[i] * (b[i][1] - a[i][1])
                    if s > Rational(0, 1) && (best == nil || s < best!) { best = s }
                }
                sourceStep[i] = best
            }
        }
        for (k, frame) in frames.enumerated() {
            guard let p = frame.provenance else { previous = nil; continue }
            let t = frame.pts.seconds
            if p.k != Int64(k) {
                v.append(Violation(.provenanceMissing, frame: k, time: t, "frame \(k) carries the provenance of output frame \(p.k)"))
            }
            let indices = p.src.map { $0.first ?? -1 }
            if origins == nil { origins = p.src.map { $0.count > 1 ? $0[1] : 0 } }
            if let prev = previous, prev.count == indices.count {
                for i in indices.indices {
                    let d = indices[i] - prev[i]
                    if timeSync {
                        if d < 0 {
                            v.append(Violation(.reorderedSource, frame: k, time: t, "output frame \(k): \(name(i)) goes back from source frame \(prev[i]) to \(indices[i])"))
                        }
                    } else if d == 0 {
                        v.append(Violation(.duplicatedSource, frame: k, time: t, "output frame \(k): \(name(i)) shows source frame \(indices[i]) again"))
                    } else if d > 1 {
                        let n = d - 1
                        v.append(Violation(.droppedSource, frame: k, time: t,
                                           "output frame \(k): \(name(i)) jumps from source frame \(prev[i]) to \(indices[i]): \(n == 1 ? "source frame \(prev[i] + 1) was" : "\(n) source frames were") dropped"))
                    } else if d < 0 {
                        v.append(Violation(.reorderedSource, frame: k, time: t, "output frame \(k): \(name(i)) goes back from source frame \(prev[i]) to \(indices[i])"))
                    }
                }
            } else if previous == nil && k == 0 {
                for i in indices.indices where indices[i] != 0 {
                    v.append(Violation(.droppedSource, frame: 0, time: t, "output frame 0: \(name(i)) starts at source frame \(indices[i]), not 0"))
                }
            }
            if timeSync, let fps, let origins {
                let tick = fps.inverse * Int64(k)
                for i in indices.indices where i < timeBases.count && i < origins.count && p.src[i].count > 1 {
                    let chosen = timeBases[i] * (p.src[i][1] - origins[i])
                    let slack = min(timeBases[i] * Rational(1, 2), Rational(1, 1000))
                    if chosen > tick + slack {
                        v.append(Violation(.sourceFromTheFuture, frame: k, time: t,
                                           "output frame \(k) at \(seconds(tick)): \(name(i)) shows source frame \(indices[i]) of \(seconds(chosen)), which is not on screen yet"))
                    } else if let s = sourceStep[i], tick >= chosen + s + slack {
                        v.append(Violation(.staleSource, frame: k, time: t,
                                           "output frame \(k) at \(seconds(tick)): \(name(i)) still shows source frame \(indices[i]) of \(seconds(chosen)); frame \(indices[i] + 1) was due at \(seconds(chosen + s))"))
                    }
                }
            }
            previous = indices
        }
        return v
    }

    // MARK: pictures

    static func pictures(_ frames: [ScannedFrame], provenance: Bool) -> [Violation] {
        var v: [Violation] = []
        func black(_ f: ScannedFrame) -> Bool { f.meanLuma <= blackMean && f.lumaDeviation <= blackDeviation }
        let leading = frames.prefix { black($0) }.count
        if leading > 0 {
            v.append(Violation(.blackStart, frame: 0, time: frames[0].pts.seconds,
                               leading == 1 ? "frame 0 is black" : "frames 0-\(leading - 1) are black"))
        }
        if leading < frames.count {
            let trailing = frames.reversed().prefix { black($0) }.count
            if trailing > 0 {
                let from = frames.count - trailing
                v.append(Violation(.blackEnd, frame: from, time: frames[from].pts.seconds,
                                   trailing == 1 ? "the last frame (\(from)) is black" : "frames \(from)-\(frames.count - 1) at the end are black"))
            }
        }
        // A run of repeats is one violation, named by its first frame: a picture frozen for the
        // last second is one line, not thirty.
        var run: (kind: Violation.Kind, first: Int, last: Int, input: Int?)?
        func close() {
            guard let r = run else { return }
            run = nil
            let atEnd = r.last == frames.count - 1 && r.last > r.first ? " (to the end)" : ""
            let t = frames[r.first].pts.seconds
            if r.kind == .repeatedPicture {
                v.append(Violation(.repeatedPicture, frame: r.first, time: t, r.first == r.last
                    ? "frame \(r.first) repeats the picture of frame \(r.first - 1)"
                    : "frames \(r.first)-\(r.last) repeat the picture of frame \(r.first - 1)\(atEnd)"))
            } else {
                let i = r.input ?? 0
                func source(_ k: Int) -> Int64 { frames[k].provenance.flatMap { i < $0.src.count ? $0.src[i].first : nil } ?? -1 }
                let from = source(r.first - 1), to = source(r.last)
                v.append(Violation(.frozenFrame, frame: r.first, time: t, r.first == r.last
                    ? "output frame \(r.first) is the same picture as frame \(r.first - 1) although input \(i + 1) advanced from source frame \(from) to \(to)"
                    : "output frames \(r.first)-\(r.last) are the same picture as frame \(r.first - 1)\(atEnd) although input \(i + 1) advanced from source frame \(from) to \(to)"))
            }
        }
        for k in frames.indices.dropFirst() {
            var found: (Violation.Kind, Int?)?
            if let d = frames[k].difference, d < stillDifference, !black(frames[k]) {
                if !provenance {
                    found = (.repeatedPicture, nil)
                } else if let a = frames[k - 1].provenance?.src, let b = frames[k].provenance?.src, a.count == b.count,
                          let i = b.indices.first(where: { b[$0].first != a[$0].first }) {
                    found = (.frozenFrame, i)
                }
            }
            if let kind = found?.0, let r = run, r.kind == kind, r.last == k - 1 {
                run!.last = k
            } else {
                close()
                if let (kind, input) = found { run = (kind, k, k, input) }
            }
        }
        close()
        return v
    }

    // MARK: audio

    static func audio(_ scan: Scan, step: Rational?, header: Provenance?) -> [Violation] {
        var v: [Violation] = []
        let videoStart = scan.frames[0].pts.seconds
        let videoEnd = scan.frames.last!.pts.seconds + (step?.seconds ?? 0)
        guard let a = scan.audio else {
            if let withAudio = header?.inputs?.filter(\.audio), !withAudio.isEmpty {
                v.append(Violation(.audioMissing, "the file has no audio, but \(withAudio.map(\.name).joined(separator: ", ")) had audio"))
            }
            return v
        }
        func ms(_ s: Double) -> String { String(format: "%.0f ms", abs(s) * 1000) }
        if abs(a.start - videoStart) > audioTolerance {
            v.append(Violation(.audioStart, time: a.start, "audio starts \(ms(a.start - videoStart)) \(a.start > videoStart ? "after" : "before") the video"))
        }
        if abs(a.end - videoEnd) > audioTolerance {
            v.append(Violation(.audioEnd, time: a.end, "audio ends \(ms(a.end - videoEnd)) \(a.end > videoEnd ? "after" : "before") the video (\(String(format: "%.3f", a.end)) s against \(String(format: "%.3f", videoEnd)) s)"))
        }
        if a.tailLevel < silence && a.overallLevel > silence + 10 {
            v.append(Violation(.silentEnd, time: a.end, String(format: "the last 100 ms of audio are silent (%.0f dBFS) while the rest is not (%.0f dBFS)", a.tailLevel, a.overallLevel)))
        }
        return v
    }
}
