import ArgumentParser
import Lockstep

/// Where each input lies in time under `--sync time`: `--offsets`, `--drift`, `--trim`,
/// `--longest`, `--hold-last`. They fill `CompositeOptions.clocks`, the field `lockstep align`'s
/// offsets and drifts fill too, so a known offset given here takes exactly the aligned path.
struct PlacementArguments: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Where each input's time 0 (its first frame) lies on the first input's clock, seconds; the first is 0 (time sync).", valueName: "s1,s2,..."))
    var offsets: RationalList?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Each input's clock drift against the first's, ppm (positive: its clock runs fast); the first is 0. Its frames are chosen and its audio resampled on the corrected clock.",
            valueName: "p1,p2,..."))
    var drift: NumberList?

    @Option(help: ArgumentHelp("Use only START to END seconds of input N's own time (either may be left out: 2=1.5:, 3=:20); once per input.", valueName: "N=START:END"))
    var trim: [TrimArgument] = []

    @Flag(help: "Cover from the earliest start to the latest end, black and silent where an input has no picture (default: the time every input saw, from the latest start to the earliest end).")
    var longest = false

    @Flag(name: .customLong("hold-last"), help: "An input that ends early shows its last frame until the output ends (default: the first input to end ends the output).")
    var holdLast = false

    /// One value per input, each input trimmed once: sentences naming the option.
    func check(inputs: Int) throws {
        if let offsets, offsets.values.count != inputs {
            throw ValidationError("--offsets needs one offset per input: \(inputs) expected, \(offsets.values.count) given.")
        }
        if let drift, drift.values.count != inputs {
            throw ValidationError("--drift needs one value per input: \(inputs) expected, \(drift.values.count) given.")
        }
        var seen = Set<Int>()
        for t in trim {
            guard (1...max(1, inputs)).contains(t.input) else {
                throw ValidationError("--trim \(t.text): there is no input \(t.input); the inputs are numbered 1 to \(inputs).")
            }
            guard seen.insert(t.input).inserted else { throw ValidationError("--trim: input \(t.input) is trimmed twice.") }
        }
    }

    /// The clocks, when any of --offsets, --drift, --trim is given (nil: every input from its first frame).
    func clocks(inputs: Int) -> [InputClock]? {
        guard offsets != nil || drift != nil || !trim.isEmpty else { return nil }
        return (0..<inputs).map { i in
            var c = InputClock()
            if let o = offsets?.values, i < o.count { c.offset = o[i] }
            if let d = drift?.values, i < d.count { c.driftPpm = d[i] }
            if let t = trim.first(where: { $0.input == i + 1 }) { c.trim = t.trim }
            return c
        }
    }

    func apply(to options: inout CompositeOptions) {
        options.clocks = clocks(inputs: options.inputs.count)
        options.coverage = longest ? .longest : .common
        options.holdLast = holdLast
    }
}

/// "0,1.5,-0.25,1/3": exact seconds.
struct RationalList: ExpressibleByArgument {
    var values: [Rational]
    init?(argument: String) {
        let parsed = argument.split(separator: ",", omittingEmptySubsequences: false).map { Rational(parsing: $0.trimmingCharacters(in: .whitespaces)) }
        guard !parsed.isEmpty, parsed.allSatisfy({ $0 != nil }) else { return nil }
        values = parsed.map { $0! }
    }
}

/// "2=1.5:9.25", "3=:20", "1=4:".
struct TrimArgument: ExpressibleByArgument {
    var input: Int
    var trim: InputClock.Trim
    var text: String
    init?(argument: String) {
        let sides = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard sides.count == 2, let n = Int(sides[0]) else { return nil }
        let ends = sides[1].split(separator: ":", omittingEmptySubsequences: false)
        guard ends.count == 2, !(ends[0].isEmpty && ends[1].isEmpty) else { return nil }
        let start = ends[0].isEmpty ? Rational(0, 1) : Rational(parsing: String(ends[0]))
        let end = ends[1].isEmpty ? nil : Rational(parsing: String(ends[1]))
        guard let start, ends[1].isEmpty || end != nil else { return nil }
        input = n; trim = InputClock.Trim(start: start, end: end); text = argument
    }
}
