import Compositor
import Foundation
import Media

/// Camera telemetry (GPMF) through `concat`: one camera's chapters (GoPro's GH01xxxx.MP4,
/// GH02xxxx.MP4, ...) joined into one file whose telemetry track is continuous. Clip c's
/// packets lie at S_c + their time on the clip's video clock, S_c being where the clip's time 0
/// lies in the output (its picture's and its sound's), so chapter 2's payloads follow chapter
/// 1's on one time; a clip's packets that begin after its picture's end give way to the next
/// clip's. Kept only when every clip carries the same kind of track from the same camera model
/// and the clips keep their timelines (by time, not `--keep-frames`).
enum ConcatTelemetry {
    /// Every clip's track, or nil with the sentence why when the user should hear it (nothing is
    /// said when no clip has a track).
    static func read(_ clips: [String], keepsTime: Bool, cut: Bool = false) throws -> (kept: [CarriedTelemetry]?, notice: String?) {
        // A clip read from a pipe is read once, by its decoder: a second reader here would take
        // its bytes (ConcatCommandTests' stalled FIFO). Telemetry comes from regular files only.
        let regular = clips.allSatisfy { (try? FileManager.default.attributesOfItem(atPath: $0)[.type] as? FileAttributeType) == .typeRegular }
        guard regular else { return (nil, nil) }
        let tracks = try clips.map { try CarriedTelemetry.read(path: $0) }
        guard let firstIndex = tracks.firstIndex(where: { $0 != nil }), let first = tracks[firstIndex] else { return (nil, nil) }
        func notKept(_ why: String) -> (kept: [CarriedTelemetry]?, notice: String?) {
            (nil, "camera telemetry is not kept in the output: \(why)")
        }
        if let missing = tracks.firstIndex(where: { $0 == nil }) {
            return notKept("clip \(missing + 1) (\(clips[missing])) has no GPMF or CAMM track, clip \(firstIndex + 1) (\(clips[firstIndex])) has one")
        }
        let all = tracks.map { $0! }
        if let why = first.format.unwritable { return notKept(why) }
        for (c, t) in all.enumerated() where t.format.kind != first.format.kind || t.format.firmware != first.format.firmware {
            return notKept("clip \(c + 1) (\(clips[c])) comes from another camera than clip 1 (its track or firmware differs)")
        }
        guard keepsTime else { return notKept("--keep-frames changes the clips' timelines") }
        // Not yet placed on a cut's own clock (the output's time 0 is the cut's start).
        if cut { return notKept("--from/--to cut the joined timeline, and a cut of the joined telemetry is not written yet") }
        return (all, nil)
    }
}
