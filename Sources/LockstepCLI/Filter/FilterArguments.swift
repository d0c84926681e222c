import ArgumentParser
import Lockstep

/// `--filter CHAIN` and `--filter-at T=CHAIN[;T=CHAIN...]`, shared by `filter`, `composite` and
/// `snake` so that all three parse and refuse them with the same sentences (the library's).
struct FilterArguments: ParsableArguments {
    @Option(help: ArgumentHelp("The filter chain for the whole movie (or until the first --filter-at entry); `lockstep filter --list` prints the presets.", valueName: "CHAIN"))
    var filter: String?

    @Option(name: .customLong("filter-at"), help: ArgumentHelp("Switch chains at output times, in seconds (`none`: no filter).", valueName: "T=CHAIN[;T=CHAIN...]"))
    var filterAt: String?

    /// Neither option given: the job has no filter stage at all.
    var isEmpty: Bool { filter == nil && filterAt == nil }

    /// The schedule the options describe, nil when neither is given; a bad chain or entry is a
    /// usage error naming the option.
    func schedule() throws -> FilterSchedule? {
        if isEmpty { return nil }
        return try asUsage { try FilterSchedule.parse(filter: filter, filterAt: filterAt) }
    }

    func validate() throws { _ = try schedule() }
}
