import Compositor
import Foundation
import Media

/// The filter step of a composite-shaped job (`lockstep filter`): after the blend, before the
/// snake, the chain the schedule puts in force renders the output picture. Every chain is made
/// and prepared here, before the first frame (`FilterSwitcher`), so switching allocates nothing
/// and never waits. Runs on the compositor thread only.
final class FilterStage {
    let switcher: FilterSwitcher
    /// How the chain is mixed in by a matte input (`filter --matte`), where it is.
    let matteMix: MatteMix?

    init(schedule: FilterSchedule, canvas: Size, matteMix: MatteMix? = nil) throws {
        self.matteMix = matteMix
        var luts: [String: CubeLUT] = [:]
        // The writer holds at most one of our pictures: each is copied into its frame at once.
        switcher = try FilterSwitcher(
            schedule: schedule, format: FilterFormat(width: canvas.width, height: canvas.height),
            retainedBufferHint: 1
        ) { path in
            if let lut = luts[path] { return lut }
            let lut = try Self.loadLUT(path)
            luts[path] = lut
            return lut
        }
    }

    /// Reads a `.cube` file; a file that cannot be read is named with the system's reason.
    static func loadLUT(_ path: String) throws -> CubeLUT {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read as UTF-8 text" : "no such file"
            throw FilterError("\(path): \(reason)")
        }
        return try CubeLUT(parsing: text, name: path)
    }

    /// Renders output frame `index` (at output time `time`) through the chain in force, in place;
    /// returns that chain's text for the frame's provenance.
    func apply(to frame: Frame, index: Int64, time: Rational) throws -> String {
        let chain = switcher.chain(forFrame: index, at: time)
        guard !chain.isEmpty else { return chain.name }
        frame.withImage { picture in
            PlaneKernels.copy(chain.render(picture), into: picture)
        }
        return chain.name
    }

    /// Renders `frame` (output frame `index`, at `time`) through the chain in force into `out`, a
    /// frame of the same size owned by the caller, leaving `frame` as it was (`concat`: a lane's
    /// pool picture, whose margins are drawn once and must not be filtered again on its next
    /// use). Returns the frame to write (`frame` itself when no chain is in force) and the
    /// chain's text for the provenance.
    func render(_ frame: Frame, into out: Frame, index: Int64, time: Rational) throws -> (frame: Frame, chain: String) {
        let chain = switcher.chain(forFrame: index, at: time)
        guard !chain.isEmpty else { return (frame, chain.name) }
        try out.makeWritable()  // the encoder may still hold the previous picture
        frame.withImage { picture in
            out.withImage { PlaneKernels.copy(chain.render(picture), into: $0) }
        }
        return (out, chain.name)
    }

    /// A schedule entry no output frame reached is an error (the user asked for a switch that
    /// never happened), named by the entry.
    func finish(frames: Int64, frameRate: Rational) throws {
        try switcher.schedule.check(frames: frames, frameRate: frameRate)
    }
}
