import Compositor
import Foundation
import Media

/// The one sentence every command says under `--keep-frames` (`composite --sync index`), naming
/// each input whose picture no longer keeps its own time: one at another rate plays faster or
/// slower; one whose frames do not fill its timeline (dropped frames, a variable rate) ends
/// early. Its sound keeps its own time, so the two drift apart: the user hears it here first.
enum KeepFramesNotice {
    /// `noun`: "input" (composite, filter, snake) or "clip" (concat).
    static func line(_ readers: [MovieReader], frameRate: Rational, noun: String = "input") -> String? {
        line(readers.map { (path: $0.path, video: $0.video) }, frameRate: frameRate, noun: noun)
    }

    /// The same for inputs read otherwise (`reverse` reads backwards, without a `MovieReader`).
    static func line(_ readers: [(path: String, video: VideoInfo)], frameRate: Rational, noun: String = "input") -> String? {
        let changed: [String] = readers.enumerated().compactMap { i, r in
            guard !r.video.isStill else { return nil }
            let name = "\(noun) \(i + 1) (\(r.path)"
            if let rate = r.video.nominalFrameRate ?? r.video.frameRate, rate != frameRate {
                return "\(name), \(CompositeJob.rateText(rate)) fps) at \(CompositeJob.speedText(frameRate, over: rate)) speed"
            }
            guard let frames = r.video.shownFrames ?? r.video.indexedFrames, let d = r.video.duration else { return nil }
            let shown = frameRate.inverse * frames
            // More than a frame short: frames missing from its timeline.
            guard !(d - shown).magnitudeAtMost(frameRate.inverse) else { return nil }
            return "\(name): \(frames) frames over \(String(format: "%.3f", d.seconds)) s) lasting \(String(format: "%.3f", shown.seconds)) s"
        }
        guard !changed.isEmpty else { return nil }
        return "--keep-frames shows every frame once at \(CompositeJob.rateText(frameRate)) fps: " + changed.joined(separator: ", ")
            + "; the sound keeps its own time, so the picture drifts from it (without --keep-frames every \(noun) keeps its timeline and its sync)"
    }
}
