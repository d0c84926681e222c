import Compositor

/// What a time-sync output's header says of where each input lies in time (`SyncPlacement`):
/// each input's clock, origin (its first frame's pts), the output's start on the first input's
/// clock, the coverage. Read from the file, so anything out of range is a `problem`, never a trap.
struct TimePlacement {
    var clocks: [InputClock]
    var start = Rational(0, 1)
    var coverage: String?
    var origins: [Int64]?
    var problem: String?

    init(header: Provenance?, inputs: Int) {
        clocks = Array(repeating: .identity, count: inputs)
        guard let header else { return }
        coverage = header.coverage
        if let text = header.start {
            if let r = Rational(parsing: text), r.magnitudeAtMost(Rational(1 << 40, 1)) {
                start = r
            } else {
                problem = "the provenance gives the start \"\(text)\", not a time; the inputs' times are read from 0"
            }
        }
        let given = header.inputs ?? []
        if given.count == inputs, given.allSatisfy({ $0.origin != nil }) { origins = given.map { $0.origin! } }
        for (i, input) in given.enumerated() where i < inputs {
            if let text = input.offset {
                if let r = Rational(parsing: text), r.magnitudeAtMost(Rational(1 << 40, 1)) {
                    clocks[i].offset = r
                } else {
                    problem = "the provenance gives input \(i + 1) the offset \"\(text)\", not a time"
                }
            }
            if let d = input.driftPpm {
                if d.isFinite && abs(d) <= 1_000_000 { clocks[i].driftPpm = d } else { problem = "the provenance gives input \(i + 1) the drift \(d) ppm, out of range" }
            }
            if let text = input.trim {
                let ends = text.split(separator: ":", omittingEmptySubsequences: false)
                let a = ends.first.map { $0.isEmpty ? Rational(0, 1) : Rational(parsing: String($0)) } ?? nil
                let b = ends.count == 2 && !ends[1].isEmpty ? Rational(parsing: String(ends[1])) : nil
                if ends.count == 2, let a, a.magnitudeAtMost(Rational(1 << 40, 1)), ends[1].isEmpty || b.map({ $0.magnitudeAtMost(Rational(1 << 40, 1)) }) == true {
                    clocks[i].trim = InputClock.Trim(start: a, end: b)
                } else {
                    problem = "the provenance gives input \(i + 1) the trim \"\(text)\", not two times"
                }
            }
        }
    }

    /// Whether any input is placed other than from its first frame at once.
    var placed: Bool { !clocks.allSatisfy(\.isIdentity) || start != Rational(0, 1) || coverage != nil }

    /// Input i's own time at output time `tick`.
    func inputTime(_ tick: Rational, input i: Int) -> Rational? {
        guard i < clocks.count, let r = start.adding(tick) else { return nil }
        return clocks[i].inputTime(atReference: r)
    }

    func trimStart(_ i: Int) -> Rational { i < clocks.count ? clocks[i].trim.start : Rational(0, 1) }
}
