/// What a sample may be, the one rule every command applies to every trace it reads (a trace
/// file, a flight log, a camera's telemetry track, a store), so that a trace `imu export` writes
/// is one `imu import` takes, and `imu info`, `plot`, `calibrate` and `snake` never work on
/// numbers no sensor gives.
extension IMUReading {
    /// Why this reading is not a sample, if it is not: a value that is not a finite number (SQLite
    /// would store NaN as NULL and keep +-Inf; the fusion turns it into "no overlap at any
    /// offset"), one beyond `largestValue`, a timestamp beyond `TraceParser.maxTimestamp`.
    /// One clause naming the sample's time and the value; the caller puts the file before it.
    public var problem: String? {
        // Every value within the bound (NaN is not), the time too: nothing to say, nothing made.
        let m = Self.largestValue
        let within = { (v: SIMD3<Double>) in abs(v.x) <= m && abs(v.y) <= m && abs(v.z) <= m }
        if within(gyro) && accel.map(within) ?? true && t.magnitude <= UInt64(TraceParser.maxTimestamp) { return nil }
        let values =
            [("gx", gyro.x), ("gy", gyro.y), ("gz", gyro.z)]
            + (accel.map { [("ax", $0.x), ("ay", $0.y), ("az", $0.z)] } ?? [])
        if let (name, v) = values.first(where: { !$0.1.isFinite }) {
            return "the sample at \(t) ns holds \(name) = \(v), not a finite number"
        }
        if let (name, v) = values.first(where: { !(abs($0.1) <= Self.largestValue) }) {
            return "the sample at \(t) ns holds \(name) = \(v), beyond +-\(Int(Self.largestValue)); not a motion sensor's reading"
        }
        guard t.magnitude <= UInt64(TraceParser.maxTimestamp) else {
            return "the sample at \(t) ns has a timestamp out of range (beyond 2.3e9 s from 0)"
        }
        return nil
    }

    /// The first problem among `readings`, if any (`problem`).
    public static func firstProblem<C: Collection>(in readings: C) -> String? where C.Element == IMUReading {
        for r in readings { if let p = r.problem { return p } }
        return nil
    }
}
