import Compositor
import Foundation
import Media

extension CompositeJob {
    /// Under time sync over the time every input saw, the line for inputs whose `--offsets`,
    /// `--trim` or `--drift` leave no such time: each input's used part on the first input's
    /// clock, so the options are blamed and not the input that happened to end the sync first
    /// (it said "A.mp4: has no video frame to composite"). nil when they do share time, or an
    /// input's length is unknown: then an input really had no frame, and is named.
    static func noSharedTime(_ options: CompositeOptions, readers: [MovieReader]) -> CompositeOptionsError? {
        guard options.sync == .time, options.coverage == .common, let clocks = options.clocks else { return nil }
        func seconds(_ r: Rational) -> String { String(format: "%.3f", r.seconds) }
        var spans: [String] = []
        var latestStart: Rational?, earliestEnd: Rational?, emptyPart = false
        for (i, path) in options.inputs.enumerated() where i < readers.count && i < clocks.count {
            // A still is shown throughout: it bounds nothing.
            if readers[i].video.isStill { continue }
            guard let length = readers[i].video.duration ?? readers[i].containerDuration else { return nil }
            let clock = clocks[i], end = min(clock.trim.end ?? length, length)
            guard clock.trim.start < end else {
                spans.append("\(path) none (its trim starts at \(seconds(clock.trim.start)) s, after its end at \(seconds(end)) s)")
                emptyPart = true
                continue
            }
            let a = clock.referenceTime(ofInput: clock.trim.start), b = clock.referenceTime(ofInput: end)
            spans.append("\(path) \(seconds(a)) to \(seconds(b)) s")
            latestStart = max(latestStart ?? a, a)
            earliestEnd = min(earliestEnd ?? b, b)
        }
        if !emptyPart {
            guard let latestStart, let earliestEnd, latestStart >= earliestEnd else { return nil }
        }
        let named =
            (clocks.contains { $0.offset.num != 0 } ? ["--offsets"] : [])
            + (clocks.contains { $0.driftPpm != 0 } ? ["--drift"] : [])
            + (clocks.contains { $0.trim != .whole } ? ["--trim"] : [])
        return .noSharedTime(options: named, spans: spans)
    }
}
