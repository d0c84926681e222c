import Compositor
import Foundation
import Media

/// The stretch of a clip `ThumbnailSearch` decodes, in the order it tries them.
struct ScanWindow: Equatable {
    /// Seek here (seconds from the video's start).
    var start: Double
    /// Offer frames up to this time (and past it while a candidate is being watched).
    var end: Double
    /// Or stop after this many frames (a sample of a long clip).
    var maxFrames: Int?
}

/// The search bound, as data: which stretches of a clip are decoded to find its thumbnail.
/// First every frame from the start point for `denseSeconds`; then, on a longer clip, samples
/// of `sampleFrames` frames spread over the rest (forward to the end, then from the start up to
/// the start point), at most `maxSamples` per stretch and never closer than `minSampleStep`.
/// So a clip costs at most `denseSeconds` of frames plus 2 x `maxSamples` seeks, whatever its
/// length.
struct ScanPlan: Equatable {
    var denseSeconds = 10.0
    var sampleFrames = 12
    var maxSamples = 30
    var minSampleStep = 1.0

    func windows(from start: Double, duration: Double?) -> [ScanWindow] {
        guard let duration else {
            // Length unknown: everything from the start point, then everything before it.
            return [ScanWindow(start: start, end: .infinity)] + (start > 0 ? [ScanWindow(start: 0, end: start)] : [])
        }
        var windows = [ScanWindow(start: start, end: min(duration, start + denseSeconds))]
        windows += stretch(from: start + denseSeconds, to: duration)
        windows += stretch(from: 0, to: start)
        return windows
    }

    /// [a, b) decoded whole when short, else sampled.
    private func stretch(from a: Double, to b: Double) -> [ScanWindow] {
        guard b > a else { return [] }
        if b - a <= denseSeconds { return [ScanWindow(start: a, end: b)] }
        let step = max(minSampleStep, (b - a) / Double(maxSamples))
        return stride(from: a, to: b, by: step).map { ScanWindow(start: $0, end: b, maxFrames: sampleFrames) }
    }
}

/// What the search found in one clip: the picture (as decoded, stored orientation) and where.
struct FoundPicture {
    let frame: Frame
    let time: Double
    let fallback: Bool
    let examined: Int
    var verdict: ThumbnailRule.Verdict = .picture
}

/// Finds a clip's thumbnail: decodes the plan's windows in order, measures every frame
/// (`PictureAnalyzer`), and lets `ThumbnailPicker` choose: the first picture that is not black,
/// not flat and not in a fade in. If nothing qualifies, the most detailed frame examined.
/// Holds three frames at most (the one decoding, the candidate, the best so far).
enum ThumbnailSearch {
    /// The frame on screen at `seconds` (`--at`), with what the rule sees in it.
    static func frame(in reader: StillReader, at seconds: Double) throws -> FoundPicture {
        let frame = Frame()
        guard let time = try reader.frame(atSeconds: seconds, into: frame) else {
            throw MediaError("no video frame could be decoded", path: reader.path)
        }
        let verdict = ThumbnailRule().classify(try PictureAnalyzer().detail(of: frame))
        return FoundPicture(frame: frame, time: time, fallback: false, examined: 1, verdict: verdict)
    }

    static func find(in reader: StillReader, from start: Double, plan: ScanPlan = ScanPlan(), cancellation: CancellationToken) throws -> FoundPicture {
        let analyzer = PictureAnalyzer()
        var picker = ThumbnailPicker()
        let decoded = Frame(), held = Frame(), best = Frame()
        var heldTime = 0.0, bestTime = 0.0
        for window in plan.windows(from: start, duration: reader.duration) {
            try reader.seek(toSeconds: window.start)
            picker.restart()
            analyzer.restart()
            var frames = 0
            while let time = try reader.next(into: decoded) {
                if cancellation.isCancelled { throw JobError.cancelled }
                frames += 1
                let step = picker.offer(try analyzer.detail(of: decoded))
                if picker.lastIsBest { try best.reference(decoded); bestTime = time }
                switch step {
                case .takeHeld: return FoundPicture(frame: held, time: heldTime, fallback: false, examined: picker.offered)
                case .takeThis: return FoundPicture(frame: decoded, time: time, fallback: false, examined: picker.offered)
                case .hold: try held.reference(decoded); heldTime = time
                case .skip: break
                }
                // Past the window's end, frames are still offered while a candidate is watched.
                if (time >= window.end || frames >= (window.maxFrames ?? .max)) && !picker.isWatching { break }
            }
            if picker.finish() {
                return FoundPicture(frame: held, time: heldTime, fallback: false, examined: picker.offered)
            }
        }
        guard picker.bestOffer != nil else {
            throw MediaError("no picture could be decoded", path: reader.path)
        }
        return FoundPicture(frame: best, time: bestTime, fallback: true, examined: picker.offered)
    }
}
