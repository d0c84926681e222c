import Compositor
import Foundation

/// `lockstep filter IN -o OUT --filter CHAIN [--filter-at T=CHAIN;...]`: the composite pipeline
/// with one input and no blend (readers, conformer, writer, audio lanes, the temporary-file
/// rename), its output picture rendered by the chain in force (`FilterStage`).
extension CompositeOptions {
    public static func filter(input: String, output: String, schedule: FilterSchedule) -> CompositeOptions {
        var options = CompositeOptions(inputs: [input], output: output, blend: .single)
        options.filter = schedule
        return options
    }
}

extension FilterSchedule {
    /// The schedule the two options describe; messages name the option at fault.
    public static func parse(filter: String?, filterAt: String?) throws -> FilterSchedule {
        let initial: FilterChainSpec
        do { initial = try filter.map { try FilterChainSpec(parsing: $0) } ?? .none } catch let e as FilterError {
            throw FilterError("--filter: \(e.description)")
        }
        guard let filterAt else { return FilterSchedule(initial: initial) }
        return try FilterSchedule(initial: initial, parsing: filterAt)
    }
}
