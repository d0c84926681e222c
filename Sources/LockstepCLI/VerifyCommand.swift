import ArgumentParser
import Foundation
import Lockstep

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a movie for frame-perfect timing, provenance, frozen or black frames, and audio against video.",
        discussion: """
        Timing: the first frame at 0, one constant step, no repeated, reordered or missing timestamps, frame \
        count against duration. Provenance (Lockstep outputs): under index sync every input advances one \
        source frame per output frame; under time sync each chosen source frame is the one on screen at the \
        tick. Pictures: frozen frames (the same picture, mean luma difference under 0.1, although a source \
        advanced; without provenance, any repeated picture), each run named once by its first frame; black \
        frames at the start or the end. Audio: start and end against the video to 1 ms (Lockstep cuts audio \
        to the sample, so more is a fault), silence in the last 100 ms (under -60 dBFS, in a track not \
        silent throughout); with provenance, that there is audio when an input had some (the mix cannot \
        be taken apart, so each input's presence in it is not checked).
        Exit status: 0 all holds, 1 violations (listed), 2 the file cannot be read.
        """)

    @Argument(help: "The movie.") var file: String
    @Flag(help: "A JSON document instead of text.") var json = false

    func run() throws {
        let report: VerifyReport
        do {
            report = try VerifyJob.run(file)
        } catch {
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        if json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try enc.encode(report), as: UTF8.self))
        } else {
            var head = "\(file): \(report.frames) frames"
            if let s = report.frameStep { head += String(format: ", step %.3f ms", s * 1000) }
            head += report.provenance ? ", provenance: \(report.sync ?? "?") sync of \(report.inputs?.joined(separator: ", ") ?? "?")" : ", no provenance"
            head += report.audio ? ", audio" : ", no audio"
            print(head)
            if let switches = report.filterSwitches {
                print("filters: " + switches.map { "\($0.filter) from frame \($0.frame) (\(String(format: "%.3f", $0.time)) s)" }.joined(separator: ", "))
            }
            if report.ok { print("ok") }
            for v in report.violations {
                print("  \(v.kind.rawValue): \(v.message)")
            }
        }
        if !report.ok { throw ExitCode(1) }
    }
}
