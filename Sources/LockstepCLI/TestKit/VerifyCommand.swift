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
            advanced and, where the provenance gives the rendered picture's change, that render changed by 1.0 \
            or more; without provenance, any repeated picture), each run named once by its first frame; black \
            frames at the start or the end. Audio: start and end against the video, to what the file's container \
            can express: the start to 1 ms once encoder priming the container cannot mark is allowed for (AAC in \
            Matroska starts every stream 21 ms later); the end to 1 ms where the container trims the last codec \
            frame (Lockstep's MP4s, to the sample), to one codec frame where it cannot (a camera's AAC ends on a \
            whole 21.3 ms frame). A quiet end is not judged. With provenance, that there is audio when an input \
            had some (the mix cannot be taken apart, so each input's presence in it is not checked).
            Exit status: 0 all holds, 1 violations (listed), 2 the file cannot be read.
            --coded: reads the frame and audio codes of a `lockstep testsrc` movie after any pipeline: codes \
            missing, repeated or out of order (by code and output frame), the rate change, the A/V offset per \
            second (positive: audio late) with mean, min, max and drift, audio gaps and repeats, and verdicts \
            against ATSC IS-191 (-15/+45 ms), EBU R37 (-40/+60), ITU-R BT.1359 (detectable -45/+125, acceptable \
            -90/+185). Exit 2 also when no frame carries a code.
            """)

    @Argument(help: "The movie.") var file: String
    @Flag(help: "A JSON document instead of text.") var json = false
    @Flag(help: "No progress on stderr.") var quiet = false
    @Flag(help: "Read the timestamp-sync codes of a `lockstep testsrc` movie (after any pipeline).") var coded = false
    @Option(help: ArgumentHelp("With --coded on a Lockstep composite: read input K's code (its quad cell, or the whole canvas).", valueName: "K"))
    var input: Int?
    @Option(help: ArgumentHelp("With --coded: also write JUnit XML, one testcase per check.", valueName: "OUT.xml"))
    var junit: String?
    @Option(help: ArgumentHelp("With --coded: also write a self-contained HTML report with plots.", valueName: "OUT.html"))
    var report: String?

    func validate() throws {
        if !coded {
            if input != nil { throw ValidationError("--input needs --coded.") }
            if junit != nil || report != nil { throw ValidationError("--junit and --report need --coded.") }
        }
        if let k = input, k < 0 { throw ValidationError("--input must be 0 or more.") }
        // The reports are written over whatever has their name: never over the movie itself
        // (--junit MOVIE replaced the movie with XML) nor over each other.
        try asUsage {
            if let junit { try OutputPath.checkPlace(junit, inputs: [file]) }
            if let report { try OutputPath.checkPlace(report, inputs: [file] + (junit.map { [$0] } ?? [])) }
        }
    }

    func run() throws {
        if coded { return try runCoded() }
        let report: VerifyReport
        do {
            report = try runJob(VerifyJob.self, VerifyOptions(movie: file), quiet: quiet)
        } catch let stopped as CommandEnding {
            throw stopped  // stopped by a signal
        } catch {
            throw CommandEnding.unreadable(error)
        }
        if json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try enc.encode(report), as: UTF8.self))
        } else {
            var head = "\(file): \(report.frames) frames"
            if let s = report.frameStep { head += String(format: ", step %.3f ms", s * 1000) }
            head += report.provenance ? ", provenance: \(report.sync ?? "?") sync of \(report.inputs?.joined(separator: ", ") ?? "?")" : ", no provenance" + intraNote
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
        if !report.ok { throw CommandEnding.reported }
    }
}

extension VerifyCommand {
    func runCoded() throws {
        let report: CodedReport
        do {
            report = try runJob(CodedVerifyJob.self, CodedVerifyOptions(movie: file, input: input))
        } catch let stopped as CommandEnding {
            throw stopped  // stopped by a signal
        } catch {
            throw CommandEnding.unreadable(error)
        }
        // Through the output path every command writes by; its errors name the file (Foundation's
        // said "The operation could not be completed. (Permission denied)" and no name).
        do {
            try CodedVerifyJob.write(report, junit: junit, html: self.report)
        } catch {
            throw CommandEnding.failed(error)
        }
        if json {
            print(String(decoding: try report.json(), as: UTF8.self))
        } else {
            var head = "\(file): \(report.frames) frames, codes \(report.firstCode)-\(report.lastCode) in output frames \(report.span.lowerBound)-\(report.span.upperBound)"
            if let r = report.outputRate { head += String(format: ", %.3f fps", r) }
            if report.rateChanged { head += String(format: " showing %.4f codes per frame (a rate change)", report.codesPerFrame) }
            print(head)
            for c in report.checks {
                print("  \(c.passed.map { $0 ? "pass" : "FAIL" } ?? "skip")  \(c.name): \(c.message)")
            }
            print(report.ok ? "ok" : "\(report.checks.filter { $0.passed == false }.count) checks failed")
        }
        if !report.ok { throw CommandEnding.reported }
    }
}

extension VerifyCommand {
    /// Why a movie has no provenance when Lockstep could not have put it there: ProRes and
    /// DNxHR frames have no place for the SEI message that carries it (`VideoCodec.carriesProvenance`).
    var intraNote: String {
        guard let probe = try? MovieProbe.probe(file), let v = probe.streams.first(where: { $0.type == "video" }) else { return "" }
        return ["prores", "dnxhd"].contains(v.codec) ? " (ProRes and DNxHR outputs carry none)" : ""
    }
}
