import ArgumentParser
import Foundation
import Lockstep

struct AlignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "align",
        abstract: "Find where each movie lies on the first one's clock, by their sound.",
        discussion: """
            For each input after the first: the offset (where its time 0 lies on the first input's \
            clock, seconds), its clock's drift against the first (ppm; positive: it runs fast) and a \
            confidence (0 to 1). An input whose sound does not overlap the first's is placed through \
            another input that overlaps both. Only the sound is read; the video is not decoded. An input whose sound \
            does not match the first's (another event, silence, music or noise only) stops the command \
            with exit status 1 and a sentence naming it: no offset is ever made up.
            """)

    @Flag(help: "One JSON document: {\"inputs\":[{\"path\":...,\"offset\":S,\"driftPpm\":P,\"confidence\":C,...},...]}.")
    var json = false

    @Flag(name: .customLong("as-options"), help: "One line of composite options instead: --offsets s1,s2,... --drift p1,p2,... (each offset between the inputs' first frames, as time sync counts).")
    var asOptions = false

    @Flag(help: "No progress on stderr.") var quiet = false

    @Argument(help: ArgumentHelp("Movies (or sound files) of one event; the first is the reference.", valueName: "INPUT"))
    var inputs: [String] = []

    func validate() throws {
        if json && asOptions { throw ValidationError("--json and --as-options: choose one.") }
        try asUsage { try AlignOptions(inputs: inputs).check() }
    }

    func run() throws {
        let result = try runJob(AlignJob.self, AlignOptions(inputs: inputs), quiet: quiet, unit: .milliseconds)
        if json { print(result.json); return }
        if asOptions { print(result.compositeOptions); return }
        for (i, c) in result.inputs.enumerated() {
            guard let d = c.details else {
                print("input 1  \(c.path)  reference (offset 0)")
                continue
            }
            print(
                "input \(i + 1)  \(c.path)  offset " + String(format: "%+.6f s", c.offset)
                    + "  drift " + String(format: "%+.1f ppm", c.driftPpm)
                    + "  confidence " + String(format: "%.2f", c.confidence)
                    + "  (\(d.agreeing) of \(d.windows) windows agree, scatter " + String(format: "%.3f ms", d.residualMs)
                    + ", overlap " + String(format: "%.2f-%.2f s", d.overlap.lowerBound, d.overlap.upperBound)
                    + (c.via.map { ", through input \($0 + 1)" } ?? "") + ")")
        }
    }
}
