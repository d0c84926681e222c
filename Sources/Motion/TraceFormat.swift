/// The text forms a trace can be imported from and exported to.
public enum TraceFormat: String, CaseIterable, Sendable {
    /// Gyroflow's `.gcsv`: a `GYROFLOW IMU LOG` header, `key,value` lines, scaled integer columns.
    case gcsv
    /// `t_ns,gx,gy,gz[,ax,ay,az]`: nanoseconds, rad/s, m/s^2; the header line is optional.
    case csv

    /// The format a file name implies, nil when the extension says nothing.
    public init?(path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".gcsv") { self = .gcsv } else if lower.hasSuffix(".csv") { self = .csv } else { return nil }
    }
}

/// A problem in a trace file, naming the file and, where there is one, the line.
public struct TraceFileError: Error, Equatable, CustomStringConvertible, Sendable {
    public var path: String
    public var line: Int?
    public var message: String
    public init(path: String, line: Int? = nil, _ message: String) { self.path = path; self.line = line; self.message = message }
    public var description: String { line.map { "\(path):\($0): \(message)" } ?? "\(path): \(message)" }
}
