import ArgumentParser
import Foundation
import Lockstep

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Describe a movie: container, streams, frame rates (declared and measured), frame counts.",
        discussion: "Exit status: 0 described, 2 the file cannot be read (as verify), 1 any other failure (a file with no video).")

    @Argument(help: "The movie.") var file: String
    @Flag(help: "A JSON document instead of text.") var json = false

    func run() throws {
        let r: ProbeReport
        do {
            r = try MovieProbe.probe(file)
        } catch let e as MediaError {
            throw e.kind == .unreadable ? CommandEnding.unreadable(e) : CommandEnding.failed(e)
        }
        if json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try enc.encode(r), as: UTF8.self))
            return
        }
        print("\(r.path): \(r.container), \(r.duration.map { String(format: "%.3f s", $0) } ?? "duration unknown")")
        for s in r.streams {
            var parts = ["#\(s.index) \(s.type) \(s.codec)"]
            if let w = s.width, let h = s.height {
                parts.append("\(w)x\(h)")
                if let dw = s.displayWidth, let dh = s.displayHeight, dw != w || dh != h { parts.append("display \(dw)x\(dh)") }
                if let rot = s.rotation, rot != 0 {
                    // ffprobe's number (the display matrix's counter-clockwise angle), and what it means.
                    let clockwise = ((-rot) % 360 + 360) % 360
                    parts.append("rotation \(rot) (display matrix, as ffprobe prints it: shown turned \(clockwise) degrees clockwise)")
                }
                if let pf = s.pixelFormat {
                    // As ffmpeg prints it: pix_fmt(range, matrix/primaries/transfer), "unknown" where untagged.
                    let c = s.color ?? ColorTags()
                    let tags = [c.matrix, c.primaries, c.transfer].map { $0 ?? "unknown" }.joined(separator: "/")
                    parts.append("\(pf)(\(c.range ?? "unknown range"), \(tags))")
                }
                if let m = s.colorMeaning { parts.append("read as \(m)") }
                if let f = s.fieldOrder, f != "progressive" { parts.append("interlaced, field order \(f)") }
                if let dv = s.dolbyVision { parts.append("Dolby Vision profile \(dv.profile).\(dv.compatibilityID) level \(dv.level) (\(dv.baseLayer))") }
                if let m = s.masteringLuminance { parts.append(String(format: "mastering display %.4g-%.0f nits", m[0], m[1])) }
                if let l = s.contentLight { parts.append("MaxCLL \(l[0]), MaxFALL \(l[1])") }
                if let avg = s.averageFrameRate { parts.append("avg \(avg) fps") }
                if let m = s.measuredFrameRate { parts.append(String(format: "measured %.3f fps", m)) }
                if let f = s.frames { parts.append("\(f) frames" + (s.hiddenFrames.map { " (and \($0) an edit list hides)" } ?? "")) }
            }
            if let sr = s.sampleRate { parts.append("\(sr) Hz") }
            if let l = s.layout { parts.append(l) }
            if let d = s.duration { parts.append(String(format: "%.3f s", d)) }
            if let st = s.startTime, st != 0 { parts.append(String(format: "starts %.3f s", st)) }
            print("  " + parts.joined(separator: ", "))
        }
    }
}
