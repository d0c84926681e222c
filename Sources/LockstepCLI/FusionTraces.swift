import Motion

extension IMUTraceSource {
    /// All samples of one trace, for fusion (snake, calibrate): from a store, a .gcsv or a .csv.
    static func readings(_ path: String, trace: Int64?) throws -> [IMUReading] {
        let source = try IMUTraceSource(path: path)
        let chosen = try source.single(trace, path: path)
        var all: [IMUReading] = []
        try source.forEachBatch(chosen.id) { all += $0 }
        guard all.count >= 2 else { throw IMUFailure("\(path): fewer than two samples") }
        return all
    }
}
